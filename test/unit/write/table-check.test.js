import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { TableError } from '../../../src/errors.js';
import { checkTable } from '../../../src/write/table-check.js';

describe('checkTable', () => {
  // DynamoDB Local always answers with a key schema; an endpoint that is not DynamoDB (a proxy, a partial
  // emulator) may not. The answer is given here as such an endpoint would give it.
  it('says what is wrong when DescribeTable gives no key schema, instead of naming an "undefined" key', async () => {
    const config = resolveConfig({ bucket: 'b', key: 'k.csv', table: 'orders' }, {});
    const dynamodb = /** @type {any} */ ({ send: async () => ({ Table: { TableName: 'orders', TableStatus: 'ACTIVE' } }) });
    const failure = await checkTable(dynamodb, config).catch((/** @type {Error} */ error) => error);
    expect(failure).toBeInstanceOf(TableError);
    expect(String(failure)).toMatch(/DescribeTable of "orders" in us-east-1 gave no partition key/);
    expect(String(failure)).not.toMatch(/undefined/);
  });
});

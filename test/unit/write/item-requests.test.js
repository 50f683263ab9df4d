/**
 * The conditional write modes' calls (src/write/item-requests.js): each row's request as DynamoDB reads
 * it, and the rows refused before any call. What the calls do to a table is shown on the local servers
 * (test/integration/write-modes.test.js) and against the oracle (the fuzz lanes if-absent, newer, update).
 */
import { describe, expect, it } from 'vitest';
import { createItemRequests, MAX_EXPRESSION_BYTES } from '../../../src/write/item-requests.js';

const keys = { partition: { name: 'id', type: /** @type {const} */ ('S') }, sort: { name: 'at', type: /** @type {const} */ ('N') } };
/** @param {Record<string, unknown>} item @param {'put' | 'delete'} [op] */
const entry = (item, op) => ({ json: JSON.stringify(item), keyId: 'k', line: 2, fields: [], ...(op === undefined ? {} : { op }) });

describe('conditional write requests', () => {
  it('if-absent: a PutItem of the row under attribute_not_exists of the partition key', () => {
    const request = createItemRequests({ table: 'T "x"', writeMode: 'if-absent', versionColumn: undefined, keys })(entry({ id: { S: 'a' }, at: { N: '1' }, n: { S: 'x' } }));
    expect(request).toMatchObject({ operation: 'PutItem' });
    expect(JSON.parse(/** @type {{ body: string }} */ (request).body)).toEqual({
      TableName: 'T "x"',
      Item: { id: { S: 'a' }, at: { N: '1' }, n: { S: 'x' } },
      ConditionExpression: 'attribute_not_exists(#k)',
      ExpressionAttributeNames: { '#k': 'id' },
      ReturnConsumedCapacity: 'TOTAL',
    });
  });

  it('newer: a PutItem where the item is absent or its version lower; a row without an N or S version refused', () => {
    const requestOf = createItemRequests({ table: 'T', writeMode: 'newer', versionColumn: 'v', keys });
    const body = JSON.parse(/** @type {{ body: string }} */ (requestOf(entry({ id: { S: 'a' }, at: { N: '1' }, v: { N: '007' } }))).body);
    expect(body).toMatchObject({ ConditionExpression: 'attribute_not_exists(#k) OR #v < :v', ExpressionAttributeNames: { '#k': 'id', '#v': 'v' }, ExpressionAttributeValues: { ':v': { N: '007' } } });
    for (const version of [undefined, { NULL: true }, { BOOL: true }, { SS: ['a'] }, { S: '' }]) {
      const refusal = requestOf(entry({ id: { S: 'a' }, at: { N: '1' }, ...(version === undefined ? {} : { v: version }) }));
      expect(refusal).toMatchObject({ reason: 'INVALID_VERSION' });
      expect(/** @type {{ message: string }} */ (refusal).message).toContain('"v"');
    }
    // Not a prototype's member: an attribute named like one is read as the row's own.
    expect(createItemRequests({ table: 'T', writeMode: 'newer', versionColumn: 'toString', keys })(entry({ id: { S: 'a' } }))).toMatchObject({ reason: 'INVALID_VERSION' });
  });

  it('update: an UpdateItem of the key that sets every other attribute, and only with a version under newer\'s condition', () => {
    const plain = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: undefined, keys })(entry({ at: { N: '1' }, 'odd "name"': { S: 'x' }, id: { S: 'a' }, n: { NULL: true } }));
    expect(JSON.parse(/** @type {{ body: string }} */ (plain).body)).toEqual({
      TableName: 'T',
      Key: { at: { N: '1' }, id: { S: 'a' } },
      UpdateExpression: 'SET #0=:0,#1=:1',
      ExpressionAttributeNames: { '#0': 'odd "name"', '#1': 'n' },
      ExpressionAttributeValues: { ':0': { S: 'x' }, ':1': { NULL: true } },
      ReturnConsumedCapacity: 'TOTAL',
    });
    const versioned = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: 'v', keys })(entry({ id: { S: 'a' }, at: { N: '1' }, v: { S: '2026' }, n: { N: '2' } }));
    expect(JSON.parse(/** @type {{ body: string }} */ (versioned).body)).toEqual({
      TableName: 'T',
      Key: { id: { S: 'a' }, at: { N: '1' } },
      UpdateExpression: 'SET #v=:v,#0=:0',
      ConditionExpression: 'attribute_not_exists(#k) OR #v < :v',
      ExpressionAttributeNames: { '#k': 'id', '#v': 'v', '#0': 'n' },
      ExpressionAttributeValues: { ':v': { S: '2026' }, ':0': { N: '2' } },
      ReturnConsumedCapacity: 'TOTAL',
    });
    // A row of the key alone creates the item if it is absent, and changes nothing else.
    const bare = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: undefined, keys })(entry({ id: { S: 'a' }, at: { N: '1' } }));
    expect(JSON.parse(/** @type {{ body: string }} */ (bare).body)).toEqual({ TableName: 'T', Key: { id: { S: 'a' }, at: { N: '1' } }, ReturnConsumedCapacity: 'TOTAL' });
    expect(createItemRequests({ table: 'T', writeMode: 'update', versionColumn: 'v', keys })(entry({ id: { S: 'a' }, at: { N: '1' }, n: { N: '2' } }))).toMatchObject({ reason: 'INVALID_VERSION' });
  });

  it('a delete (an incremental export\'s) is a DeleteItem of its key, whatever the mode', () => {
    for (const writeMode of /** @type {const} */ (['if-absent', 'newer', 'update'])) {
      const request = createItemRequests({ table: 'T', writeMode, versionColumn: writeMode === 'if-absent' ? undefined : 'v', keys })(entry({ id: { S: 'a' }, at: { N: '1' } }, 'delete'));
      expect(request).toEqual({ operation: 'DeleteItem', body: '{"TableName":"T","Key":{"id":{"S":"a"},"at":{"N":"1"}},"ReturnConsumedCapacity":"TOTAL"}' });
    }
  });

  it('update: a row whose UpdateExpression would pass DynamoDB\'s 4 KB is refused before any call; 500 attributes fit', () => {
    const requestOf = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: undefined, keys });
    /** @param {number} count */
    const wide = (count) => entry({ id: { S: 'a' }, at: { N: '1' }, ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`c${i}`, { S: 'x' }])) });
    const fits = /** @type {{ body: string }} */ (requestOf(wide(500)));
    expect(JSON.parse(fits.body).UpdateExpression.length).toBeLessThanOrEqual(MAX_EXPRESSION_BYTES);
    expect(requestOf(wide(700))).toMatchObject({ reason: 'REJECTED_BY_TABLE', message: expect.stringContaining('passes DynamoDB\'s limit of 4096') });
  });
});

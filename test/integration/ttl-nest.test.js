/**
 * The TTL column and nested maps (ttl, nest) through the function's entry, on the local servers: CSV and
 * JSON Lines alike; a filled TTL column counts from one time for every row of a job, however many
 * segments and shards it takes; a DynamoDB export refuses them.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '../../src/handler.js';
import { summaryOf } from '../support/imports.js';
import { createTable, rejectedLinesIn, scanAll, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const { dynamodb, s3 } = useLocalServers();

/** The table's items by id, as DynamoDB gives them back. @param {string} table */
async function itemsOf(table) {
  const items = await scanAll(dynamodb, table);
  return Object.fromEntries(items.map((item) => [item.id.S, item]));
}

/** The filled TTL value of a job: its time, in whole seconds, plus `after`. @param {string | undefined} ttlFrom @param {number} after */
const filled = (ttlFrom, after) => String(Math.floor(Date.parse(/** @type {string} */ (ttlFrom)) / 1000) + after);

/** A CSV of `rows` rows (ids r1...), with a name and a nested city. @param {number} rows */
const rowsCsv = (rows) => `id,name,address.city\n${Array.from({ length: rows }, (_, i) => `r${i + 1},name ${i + 1},city ${i % 7}`).join('\n')}\n`;

describe('ttl and nest', () => {
  it('read a CSV file\'s TTL column from seconds and ISO dates, reject other values, and nest its dotted columns', async () => {
    const table = await createTable(dynamodb);
    const csv = ['id,expires,address.city,address.zip,a.b.c', 'u1,1790000000,Oslo,0150,deep', 'u2,2026-12-01T01:00:00+01:00,,,', 'u3,next week,Bergen,5003,', 'u4,,Bergen,x,', 'u5,1790000000000,,,'].join('\n');
    await upload(s3, 'ttl/users.csv', `${csv}\n`);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'ttl/users.csv', table, ttl: 'expires', nest: true, columnTypes: 'address.zip:N' }));
    expect(summary).toMatchObject({ rowsRead: 5, written: 3, rejected: 2, rejectedByReason: { INVALID_TTL: 1, INVALID_NUMBER: 1 }, balanced: true });
    expect(summary).not.toHaveProperty('ttlFrom');
    expect(await itemsOf(table)).toEqual({
      u1: { id: { S: 'u1' }, expires: { N: '1790000000' }, address: { M: { city: { S: 'Oslo' }, zip: { N: '150' } } }, a: { M: { b: { M: { c: { S: 'deep' } } } } } },
      u2: { id: { S: 'u2' }, expires: { N: String(Date.UTC(2026, 11, 1) / 1000) } },
      u5: { id: { S: 'u5' }, expires: { N: '1790000000000' } },
    });
    expect(await rejectedLinesIn(s3, summary.rejectsObjects)).toEqual({ INVALID_TTL: [4], INVALID_NUMBER: [5] });
  });

  it('fill a JSON Lines TTL attribute from the import\'s time, nest dotted names, and reject a line whose names conflict or that has the attribute', async () => {
    const table = await createTable(dynamodb);
    const lines = ['{"id":"a","address.city":"Oslo","address.zip":"0150"}', '{"id":"b","address":{"city":"x"},"address.zip":1}', '{"id":"c","expires":5}', '{"id":"d","x..y":1}'];
    await upload(s3, 'ttl/items.jsonl', `${lines.join('\n')}\n`);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'ttl/items.jsonl', table, ttl: 'expires:+30d', nest: true }));
    expect(summary).toMatchObject({ rowsRead: 4, written: 1, rejected: 3, rejectedByReason: { INVALID_JSON: 1, INVALID_TTL: 1, INVALID_ATTRIBUTE_VALUE: 1 }, balanced: true });
    expect(Date.parse(summary.ttlFrom ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(await itemsOf(table)).toEqual({ a: { id: { S: 'a' }, address: { M: { city: { S: 'Oslo' }, zip: { S: '0150' } } }, expires: { N: filled(summary.ttlFrom, 30 * 86400) } } });
  });

  it('count a filled TTL column from one time in every segment of a job (hand-overs every 64 rows)', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'ttl/segments.csv', rowsCsv(300));
    // As much Lambda time left as the margin: each segment hands over as soon as it may.
    const context = { invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:ttl', getRemainingTimeInMillis: () => 1_000 };
    const payload = { bucket: TEST_BUCKET, key: 'ttl/segments.csv', table, ttl: 'expires:+1h', nest: true, timeMarginMs: 1_000 };
    // In a Lambda without the state machine, an invocation whose time runs out returns its checkpoint.
    const name = process.env.AWS_LAMBDA_FUNCTION_NAME;
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'ttl';
    let result;
    let invocations = 1;
    try {
      result = /** @type {Record<string, any>} */ (await handler(payload, /** @type {any} */ (context)));
      while (result.stopped === true && invocations < 20) {
        // A later invocation, more than a second later, resumes from the checkpoint.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        result = /** @type {Record<string, any>} */ (await handler({ ...payload, checkpoint: result.checkpoint }, /** @type {any} */ (context)));
        invocations++;
      }
    } finally {
      if (name === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      else process.env.AWS_LAMBDA_FUNCTION_NAME = name;
    }
    expect(invocations).toBeGreaterThan(2);
    expect(result).toMatchObject({ rowsRead: 300, written: 300, balanced: true });
    const values = new Set(Object.values(await itemsOf(table)).map((item) => item.expires.N));
    expect([...values]).toEqual([filled(result.ttlFrom, 3600)]);
    expect(result.ttlFrom).toBe(result.startedAt);
  });

  it('count it from the plan\'s time in every shard of a sharded job, and read renamed key columns there too', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'ttl/sharded.csv', rowsCsv(3_000).replace(/^id,/, 'user_id,'));
    const job = /** @type {Record<string, any>} */ (await handler({ bucket: TEST_BUCKET, key: 'ttl/sharded.csv', table, ttl: 'expires:+2d', nest: true, rename: 'user_id:id', shards: 3, shardConcurrency: 1 }));
    expect(job).toMatchObject({ shards: 3, state: 'done', rowsRead: 3_000, written: 3_000, balanced: true });
    const items = Object.values(await itemsOf(table));
    expect(items).toHaveLength(3_000);
    expect([...new Set(items.map((item) => item.expires.N))]).toEqual([filled(job.ttlFrom, 2 * 86400)]);
    expect(items[0].address.M.city.S).toMatch(/^city \d$/);
  });

  it('are refused for a DynamoDB export, whose items are written as the table held them; a dotted key or TTL key is refused with the fix', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'ttl/export.json', '{"Item":{"id":{"S":"a"}}}\n');
    await expect(handler({ bucket: TEST_BUCKET, key: 'ttl/export.json', table, format: 'dynamodb-json', ttl: 'expires' })).rejects.toThrow(/Invalid option "ttl".*a DynamoDB export's items are written as the table held them/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'ttl/export.json', table, format: 'dynamodb-json', nest: true })).rejects.toThrow(/Invalid option "nest"/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'ttl/users.csv', table, ttl: 'id' })).rejects.toThrow(/"id" is a key column/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'ttl/users.csv', table, nest: true, keyColumn: 'user.id' })).rejects.toThrow(/with the "nest" option, a dotted name becomes a map/);
  });
});

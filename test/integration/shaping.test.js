/**
 * Columns dropped and renamed (drop, rename) through the function's entry, on the local servers: CSV and
 * JSON Lines alike, the key named as written, a JSON line whose attributes would share a name rejected.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '../../src/handler.js';
import { summaryOf } from '../support/imports.js';
import { createTable, rejectedLinesIn, scanAll, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const { dynamodb, s3 } = useLocalServers();

/** The table's items by id, as plain values. @param {string} table */
async function itemsOf(table) {
  const items = await scanAll(dynamodb, table);
  return Object.fromEntries(items.map((item) => [item.id.S, Object.fromEntries(Object.entries(item).map(([name, value]) => [name, Object.values(value)[0]]))]));
}

describe('drop and rename', () => {
  it('shape a CSV file: dropped columns left out, others written under their new names, the key and types named as written', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'shaping/users.csv', 'user_id,name,notes,score\nu1,Ann,secret,7\nu2,Bob,,x\n');
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'shaping/users.csv', table, rename: 'user_id:id,name:full_name', drop: 'notes', columnTypes: 'score:N' }));
    expect(summary).toMatchObject({ rowsRead: 2, written: 1, rejected: 1, balanced: true });
    expect(await itemsOf(table)).toEqual({ u1: { id: 'u1', full_name: 'Ann', score: '7' } });
    // The rejects file keeps the row as the file wrote it, under the file's header.
    expect(await rejectedLinesIn(s3, summary.rejectsObjects)).toEqual({ INVALID_NUMBER: [3] });
  });

  it('shape JSON Lines alike, and reject a line whose attributes would share a name after the renames', async () => {
    const table = await createTable(dynamodb);
    const lines = ['{"user_id":"u1","name":"Ann","notes":"secret","n":1}', '{"user_id":"u2","name":"Bob","full_name":"B."}', '{"user_id":"u3","notes":"x"}'];
    await upload(s3, 'shaping/users.jsonl', `${lines.join('\n')}\n`);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'shaping/users.jsonl', table, rename: { user_id: 'id', name: 'full_name' }, drop: ['notes'] }));
    expect(summary).toMatchObject({ rowsRead: 3, written: 2, rejected: 1, rejectedByReason: { INVALID_JSON: 1 }, balanced: true });
    expect(await itemsOf(table)).toEqual({ u1: { id: 'u1', full_name: 'Ann', n: '1' }, u3: { id: 'u3' } });
  });

  it('are refused for a DynamoDB export, whose items are written as the table held them', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'shaping/export.json', '{"Item":{"id":{"S":"a"}}}\n');
    await expect(handler({ bucket: TEST_BUCKET, key: 'shaping/export.json', table, format: 'dynamodb-json', drop: 'x' })).rejects.toThrow(/shapes CSV and JSON Lines; a DynamoDB export's items are written as the table held them/);
  });
});

/**
 * The write modes (writeMode if-absent, newer, update) through the function's entry, on the local
 * servers, over a table that already holds items: which rows apply, which are skipped (counted by
 * reason, with their lines), which are rejected, and what the table ends with.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { withFlagNames } from '../../src/cli/import-flags.js';
import { resolveConfig } from '../../src/config/index.js';
import { handler } from '../../src/handler.js';
import { summaryOf } from '../support/imports.js';
import { createTable, rejectedLinesIn, scanAll, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const { dynamodb, s3 } = useLocalServers();

/** The table's items by id, as plain values. @param {string} table */
async function itemsOf(table) {
  const items = await scanAll(dynamodb, table);
  return Object.fromEntries(items.map((item) => [item.id.S, Object.fromEntries(Object.entries(item).map(([name, value]) => [name, Object.values(value)[0]]))]));
}

/** A table holding these items. @param {Array<Record<string, import('@aws-sdk/client-dynamodb').AttributeValue>>} items */
async function tableHolding(items) {
  const table = await createTable(dynamodb);
  for (const item of items) await dynamodb.send(new PutItemCommand({ TableName: table, Item: item }));
  return table;
}

/** @type {Array<Record<string, import('@aws-sdk/client-dynamodb').AttributeValue>>} */
const HELD = [
  { id: { S: 'a' }, v: { N: '5' }, name: { S: 'table a' }, keep: { S: 'kept' } },
  { id: { S: 'b' }, v: { N: '1' }, name: { S: 'table b' } },
];

describe('write modes', () => {
  it('if-absent writes only keys the table lacks, and the first row of a key, skipping the rest', async () => {
    const table = await tableHolding(HELD);
    await upload(s3, 'modes/if-absent.csv', 'id,v,name\na,9,file a\nc,1,first c\nc,2,second c\nb,7,file b\n');
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/if-absent.csv', table, writeMode: 'if-absent', columnTypes: 'v:N' }));
    expect(summary).toMatchObject({ rowsRead: 4, written: 1, skipped: 3, skippedByReason: { ITEM_EXISTS: 3 }, skippedLines: [2, 4, 5], duplicatesCollapsed: 0, balanced: true });
    expect(await itemsOf(table)).toEqual({ a: { id: 'a', v: '5', name: 'table a', keep: 'kept' }, b: { id: 'b', v: '1', name: 'table b' }, c: { id: 'c', v: '1', name: 'first c' } });
  });

  it('newer writes where the version is higher than the item\'s (numbers as numbers), the highest row of a key winning, a tie keeping the first', async () => {
    const table = await tableHolding(HELD);
    const csv = 'id,v,name\na,10,a ten\na,9,a nine\nb,1,b tie\nc,2,c two\nc,2,c two again\nc,3,c three\nd,,no version\n';
    await upload(s3, 'modes/newer.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/newer.csv', table, writeMode: 'newer', versionColumn: 'v', columnTypes: 'v:N' }));
    expect(summary).toMatchObject({ rowsRead: 7, written: 3, skipped: 3, skippedByReason: { NOT_NEWER: 3 }, rejected: 1, rejectedByReason: { INVALID_VERSION: 1 }, balanced: true });
    expect(await itemsOf(table)).toEqual({ a: { id: 'a', v: '10', name: 'a ten' }, b: { id: 'b', v: '1', name: 'table b' }, c: { id: 'c', v: '3', name: 'c three' } });
    expect(await rejectedLinesIn(s3, summary.rejectsObjects)).toEqual({ INVALID_VERSION: [8] });
  });

  it('newer compares S versions as text (ISO 8601), and skips an item whose version has another type', async () => {
    const table = await tableHolding([
      { id: { S: 'a' }, at: { S: '2026-01-02T00:00:00Z' } },
      { id: { S: 'b' }, at: { N: '1' } },
    ]);
    const lines = ['{"id":"a","at":"2026-01-01T00:00:00Z"}', '{"id":"a","at":"2026-03-01T00:00:00Z","x":1}', '{"id":"b","at":"2027-01-01T00:00:00Z"}'];
    await upload(s3, 'modes/newer.jsonl', `${lines.join('\n')}\n`);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/newer.jsonl', table, writeMode: 'newer', versionColumn: 'at' }));
    expect(summary).toMatchObject({ rowsRead: 3, written: 1, skipped: 2, balanced: true });
    expect(await itemsOf(table)).toEqual({ a: { id: 'a', at: '2026-03-01T00:00:00Z', x: '1' }, b: { id: 'b', at: '1' } });
  });

  it('update merges a row\'s attributes into the item, leaving the others, and composes the rows of a key in file order', async () => {
    const table = await tableHolding(HELD);
    const csv = 'id,v,name,extra\na,,renamed a,\nc,1,,x\nc,,c named,\nb,2,,\n';
    await upload(s3, 'modes/update.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/update.csv', table, writeMode: 'update', columnTypes: 'v:N' }));
    expect(summary).toMatchObject({ rowsRead: 4, written: 4, skipped: 0, balanced: true });
    expect(await itemsOf(table)).toEqual({
      a: { id: 'a', v: '5', name: 'renamed a', keep: 'kept' },
      b: { id: 'b', v: '2', name: 'table b' },
      c: { id: 'c', v: '1', name: 'c named', extra: 'x' },
    });
  });

  it('update with a version column merges only newer rows; an empty cell under emptyCell null sets NULL', async () => {
    const table = await tableHolding(HELD);
    const csv = 'id,v,name\na,4,old a\na,6,\nb,3,new b\n';
    await upload(s3, 'modes/update-newer.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/update-newer.csv', table, writeMode: 'update', versionColumn: 'v', columnTypes: 'v:N', emptyCell: 'null' }));
    expect(summary).toMatchObject({ rowsRead: 3, written: 2, skipped: 1, skippedByReason: { NOT_NEWER: 1 }, skippedLines: [2], balanced: true });
    expect(await itemsOf(table)).toEqual({ a: { id: 'a', v: '6', name: true, keep: 'kept' }, b: { id: 'b', v: '3', name: 'new b' } });
  });

  it('update with a version column keeps a newer item from a stale wide row (40 columns), and writes a newer one', async () => {
    // Issue 46: the 21st attribute's placeholder was the condition's #k, the 32nd's #v and :v.
    const columns = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const table = await tableHolding([{ id: { S: 'a' }, v: { N: '5' }, ...Object.fromEntries(columns.map((name) => [name, { S: 'held' }])) }]);
    const row = (/** @type {string} */ id, /** @type {number} */ v, /** @type {string} */ value) => [id, v, ...columns.map(() => value)].join(',');
    const csv = `id,v,${columns.join(',')}\n${row('a', 4, 'stale')}\n${row('b', 1, 'new b')}\n${row('a', 6, 'newer')}\n${row('a', 5, 'tie')}\n`;
    await upload(s3, 'modes/update-wide.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/update-wide.csv', table, writeMode: 'update', versionColumn: 'v', columnTypes: 'v:N' }));
    expect(summary).toMatchObject({ rowsRead: 4, written: 2, skipped: 2, skippedByReason: { NOT_NEWER: 2 }, skippedLines: [2, 5], rejected: 0, balanced: true });
    const items = await itemsOf(table);
    expect(items.a).toEqual({ id: 'a', v: '6', ...Object.fromEntries(columns.map((name) => [name, 'newer'])) });
    expect(items.b).toEqual({ id: 'b', v: '1', ...Object.fromEntries(columns.map((name) => [name, 'new b'])) });
  });

  it('counts and paces a skipped row by the size of the item the table holds, as DynamoDB bills a failed condition (issue 46, 5)', async () => {
    // 30 items of about 3.5 KB held: each row's condition fails and is billed 4 WCU, not 1.
    const held = Array.from({ length: 30 }, (_, i) => ({ id: { S: `k${i}` }, blob: { S: 'x'.repeat(3_500) } }));
    const table = await tableHolding(held);
    await upload(s3, 'modes/skipped-big.csv', `id,name\n${held.map((_, i) => `k${i},small`).join('\n')}\n`);
    const started = performance.now();
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/skipped-big.csv', table, writeMode: 'if-absent', maxWcu: 40 }));
    const seconds = (performance.now() - started) / 1000;
    expect(summary).toMatchObject({ rowsRead: 30, written: 0, skipped: 30, wcuConsumed: 120, balanced: true });
    // 120 WCU under a cap of 40 a second: at least two seconds past the first second's burst (one unit a row took under one).
    expect(seconds).toBeGreaterThan(1.9);
  });

  it('keeps every row of a key in the shuffle window, in file order', async () => {
    const table = await tableHolding(HELD);
    const rows = Array.from({ length: 60 }, (_, i) => `k${i % 5},${i},row ${i}`);
    await upload(s3, 'modes/shuffled.csv', `id,v,name\n${rows.join('\n')}\n`);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/shuffled.csv', table, writeMode: 'if-absent', shuffleWindow: 7 }));
    expect(summary).toMatchObject({ rowsRead: 60, written: 5, skipped: 55, balanced: true });
    const items = await itemsOf(table);
    for (let k = 0; k < 5; k++) expect(items[`k${k}`]).toEqual({ id: `k${k}`, v: String(k), name: `row ${k}` });
  });

  it('refuses options a mode does not take, naming the fix', async () => {
    const table = await createTable(dynamodb);
    await expect(handler({ bucket: TEST_BUCKET, key: 'x.csv', table, writeMode: 'newer' })).rejects.toThrow(/name the column it compares with versionColumn/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'x.csv', table, writeMode: 'if-absent', versionColumn: 'v' })).rejects.toThrow(/only writeMode newer and update compare versions/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'x.csv', table, writeMode: 'update', mode: 'delete' })).rejects.toThrow(/leave writeMode out, or set mode to put/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'x.csv', table, writeMode: 'update', nest: true })).rejects.toThrow(/would replace the item's whole map/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'x.csv', table, writeMode: 'newer', versionColumn: 'id' })).rejects.toThrow(/is a key column/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'x.csv', table, writeMode: 'newer', versionColumn: 'v', columnTypes: 'v:BOOL' })).rejects.toThrow(/compared as a number \(N\) or as text \(S\)/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'x.csv', table, writeMode: 'newer', versionColumn: 'meta.v', nest: true })).rejects.toThrow(/the version compared is a top-level attribute/);
  });

  it('newer is safe across shards of one file: with each key\'s versions unique, the table ends with each key\'s highest, whatever order the shards ran in', async () => {
    // 40 keys, each on rows spread over the whole file, its versions a shuffled run of unique numbers: the
    // shards (worker processes, running at once) apply a key's rows in an order of their timing, not the file's.
    let seed = 7;
    const random = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const rows = Array.from({ length: 4_000 }, (_, i) => ({ id: `k${i % 40}`, v: i }));
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [rows[i].v, rows[j].v] = [rows[j].v, rows[i].v];
    }
    // The table holds some keys already, at versions in the middle of the file's.
    const held = Array.from({ length: 10 }, (_, k) => ({ id: { S: `k${k * 4}` }, v: { N: String(1_000 + k * 200) }, name: { S: 'held' } }));
    const table = await tableHolding(held);
    await upload(s3, 'modes/sharded-newer.csv', `id,v,name\n${rows.map((row) => `${row.id},${row.v},row ${row.v}`).join('\n')}\n`);
    const job = /** @type {Record<string, any>} */ (await handler({ bucket: TEST_BUCKET, key: 'modes/sharded-newer.csv', table, writeMode: 'newer', versionColumn: 'v', columnTypes: 'v:N', shards: 4 }));
    expect(job).toMatchObject({ shards: 4, state: 'done', rowsRead: 4_000, rejected: 0, balanced: true });
    /** @type {Record<string, { id: string, v: string, name: string }>} */
    const expected = {};
    for (const item of held) expected[item.id.S] = { id: item.id.S, v: item.v.N, name: 'held' };
    for (const row of rows) {
      if (Number(expected[row.id]?.v ?? -1) < row.v) expected[row.id] = { id: row.id, v: String(row.v), name: `row ${row.v}` };
    }
    expect(await itemsOf(table)).toEqual(expected);
    expect(job.written + job.skipped).toBe(4_000);
  });

  it('refuses a CSV header without the version column before any row, and says so in the flags typed', async () => {
    const table = await tableHolding(HELD);
    await upload(s3, 'modes/misspelled.csv', 'id,updated_at,name\na,2026,x\n');
    await expect(handler({ bucket: TEST_BUCKET, key: 'modes/misspelled.csv', table, writeMode: 'newer', versionColumn: 'updatedAt' })).rejects.toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', option: 'versionColumn', message: expect.stringMatching(/the header has no column "updatedAt"/) }));
    expect(await itemsOf(table)).toEqual(await itemsOf(await tableHolding(HELD)));
    const error = (() => {
      try {
        resolveConfig({ bucket: 'b', key: 'k.csv', table: 'people', writeMode: 'update', mode: 'delete' }, {});
      } catch (thrown) {
        return withFlagNames(thrown);
      }
    })();
    expect(String(/** @type {Error} */ (error).message)).toMatch(/leave --write-mode out, or pass --mode put/);
  });

  it('a dry run counts a call per row, rejects the rows without a version, and says what it assumes of skipped rows', async () => {
    const table = await tableHolding(HELD);
    await upload(s3, 'modes/dry.csv', 'id,v,name\na,10,x\nb,,y\na,11,z\n');
    const report = /** @type {Record<string, any>} */ (await handler({ bucket: TEST_BUCKET, key: 'modes/dry.csv', table, writeMode: 'newer', versionColumn: 'v', columnTypes: 'v:N', dryRun: true }));
    expect(report).toMatchObject({ dryRun: true, writeMode: 'newer', calls: 2, rowsRead: 3, wouldWrite: 2, wouldReject: 1, rejectedByReason: { INVALID_VERSION: 1 }, firstRejectedLines: { INVALID_VERSION: [3] } });
    expect(report.writeModeNote).toMatch(/still consumes write capacity/);
    expect(await itemsOf(table)).toEqual(await itemsOf(await tableHolding(HELD)));
  });
});

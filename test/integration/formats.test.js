/**
 * Beyond CSV (issue 20): DynamoDB JSON as an export writes it, JSON Lines, every DynamoDB type from CSV,
 * and deletes, each imported end to end into DynamoDB Local and checked item by item: the export made
 * by scanning one table is imported into another and the two are compared.
 */
import { gzipSync } from 'node:zlib';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/handler.js';
import { resolveConfig } from '../../src/config/index.js';
import { scanTable } from '../oracle/differential.js';
import { canonicalItem as canonical } from '../oracle/oracle.js';
import { createTable, readRejects, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const quiet = { info() {}, warn() {}, error() {} };

/** A table's items keyed by their `id` (and `sk`), as wire JSON, to compare two tables. @param {Array<Record<string, any>>} items */
const byKey = (items) => new Map(items.map((item) => [JSON.stringify([item.id, item.sk]), canonical(item)]));


describe('formats beyond CSV', () => {
  const local = useLocalServers();

  /** @param {Record<string, unknown>} payload */
  async function importJob(payload) {
    return JSON.parse(JSON.stringify(await runJob(payload, resolveConfig(payload, process.env), undefined, { log: quiet })));
  }

  /** Every rejected row of a job: [line, reason] pairs. @param {{ rejectsObjects: string[] }} summary */
  async function rejectsOf(summary) {
    const rows = [];
    for (const key of summary.rejectsObjects) rows.push(...(await readRejects(local.s3, key)).slice(1));
    return rows.map((row) => [Number(row[0]), row[1]]);
  }

  it('imports a DynamoDB export (full, then incremental with deletes) made from one table into another: the two are identical', async () => {
    const keys = /** @type {const} */ ({ partition: { name: 'id', type: 'S' }, sort: { name: 'sk', type: 'N' } });
    const source = await createTable(local.dynamodb, keys);
    const target = await createTable(local.dynamodb, keys);
    const bytes = (/** @type {number[]} */ ...values) => Uint8Array.from(values);
    /** @type {Array<Record<string, import('@aws-sdk/client-dynamodb').AttributeValue>>} */
    const items = [
      {
        id: { S: 'every-type' }, sk: { N: '1' }, s: { S: 'text with "quotes", \\ and ünïcödé 🎉' }, empty: { S: '' }, n: { N: '12345678901234567890123456789012345678' },
        small: { N: '-1.5E-100' }, b: { B: bytes(0, 1, 2, 255) }, t: { BOOL: true }, f: { BOOL: false }, nul: { NULL: true },
        m: { M: { nested: { M: { deep: { L: [{ N: '1' }, { S: 'two' }, { NULL: true }] } } }, ' ': { S: 'a name of one space' } } },
        l: { L: [{ M: {} }, { L: [] }, { B: bytes(7) }, { SS: ['x'] }] }, ss: { SS: ['a', 'b', 'c'] }, ns: { NS: ['1', '2.5', '-3'] }, bs: { BS: [bytes(1), bytes(2, 3)] },
      },
      // (A computed name: `__proto__:` in a literal would set the object's prototype.)
      { id: { S: 'constructor' }, sk: { N: '0' }, ['__proto__']: { S: 'a name JavaScript treats specially' }, toString: { N: '7' } },
      ...Array.from({ length: 300 }, (_, i) => ({ id: { S: `item-${i}` }, sk: { N: String(i % 7) }, v: { N: String(i * 1.25) }, tags: { SS: [`t${i}`, 'common'] } })),
    ];
    for (const Item of items) await local.dynamodb.send(new PutItemCommand({ TableName: source, Item }));

    // The export as DynamoDB writes it: manifest aside, gzip-compressed data files of {"Item": ...} lines.
    const scanned = await scanTable(local.env, source);
    expect(scanned).toHaveLength(items.length);
    const half = Math.ceil(scanned.length / 2);
    const files = [scanned.slice(0, half), scanned.slice(half)].map((part) => gzipSync(part.map((Item) => `${JSON.stringify({ Item })}\n`).join('')));
    const summaries = [];
    for (const [index, file] of files.entries()) {
      const key = `exports/AWSDynamoDB/01234567890123-abcdefgh/data/part-${index}.json.gz`;
      await upload(local.s3, key, file);
      summaries.push(await importJob({ bucket: TEST_BUCKET, key, table: target, keyColumn: 'id', sortKeyColumn: 'sk' }));
    }
    for (const summary of summaries) expect(summary).toMatchObject({ rejected: 0, balanced: true, deleted: 0 });
    expect(summaries.reduce((sum, s) => sum + s.written, 0)).toBe(items.length);
    expect(byKey(await scanTable(local.env, target))).toEqual(byKey(scanned));

    // An incremental export of changes: new images (updates and inserts) are puts, lines with Keys and no
    // NewImage are deletes. The same changes are made to the source table by hand.
    const metadata = { WriteTimestampMicros: { N: '1732400000000000' } };
    const changes = [
      { Metadata: metadata, Keys: { id: { S: 'item-1' }, sk: { N: '1' } }, OldImage: scanned.find((item) => item.id.S === 'item-1'), NewImage: { id: { S: 'item-1' }, sk: { N: '1' }, v: { N: '99' } } },
      { Metadata: metadata, Keys: { id: { S: 'item-2' }, sk: { N: '2' } }, OldImage: scanned.find((item) => item.id.S === 'item-2') },
      { Metadata: metadata, Keys: { id: { S: 'item-3' }, sk: { N: '3' } } },
      { Metadata: metadata, Keys: { id: { S: 'new' }, sk: { N: '5' } }, NewImage: { id: { S: 'new' }, sk: { N: '5' }, m: { M: { a: { NS: ['1'] } } } } },
    ];
    await upload(local.s3, 'exports/incremental/data/changes.json.gz', gzipSync(changes.map((change) => JSON.stringify(change)).join('\n')));
    const incremental = await importJob({ bucket: TEST_BUCKET, key: 'exports/incremental/data/changes.json.gz', table: target, keyColumn: 'id', sortKeyColumn: 'sk' });
    expect(incremental).toMatchObject({ rowsRead: 4, written: 2, deleted: 2, rejected: 0, balanced: true });
    const { DeleteItemCommand } = await import('@aws-sdk/client-dynamodb');
    await local.dynamodb.send(new PutItemCommand({ TableName: source, Item: { id: { S: 'item-1' }, sk: { N: '1' }, v: { N: '99' } } }));
    await local.dynamodb.send(new DeleteItemCommand({ TableName: source, Key: { id: { S: 'item-2' }, sk: { N: '2' } } }));
    await local.dynamodb.send(new DeleteItemCommand({ TableName: source, Key: { id: { S: 'item-3' }, sk: { N: '3' } } }));
    await local.dynamodb.send(new PutItemCommand({ TableName: source, Item: { id: { S: 'new' }, sk: { N: '5' }, m: { M: { a: { NS: ['1'] } } } } }));
    expect(byKey(await scanTable(local.env, target))).toEqual(byKey(await scanTable(local.env, source)));
  }, 120_000);

  it('rejects each malformed line of DynamoDB JSON with its line and its own reason, and writes the rest', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    const lines = [
      '{"Item":{"id":{"S":"good"},"n":{"N":"1"}}}',
      'not json',
      '{"Item":{"id":{"S":"bad-number"},"n":{"N":"1e400"}}}',
      '{"Item":{"id":{"S":"bare-number"},"n":{"N":5}}}',
      '{"Item":{"id":{"S":"bad-binary"},"b":{"B":"***"}}}',
      '{"Item":{"id":{"S":"empty-set"},"s":{"SS":[]}}}',
      '{"Item":{"id":{"S":"duplicate-set"},"s":{"NS":["1","1.0"]}}}',
      '{"Item":{"id":{"S":"two-types"},"x":{"S":"a","N":"1"}}}',
      '{"Item":{"n":{"N":"1"}}}',
      '{"Item":{"id":{"N":"1"}}}',
      '{"Item":{"id":{"S":""}}}',
      '{"Something":{}}',
      '{"Item":{"id":{"S":"\\ud800"}}}',
      '{"Item":{"id":{"S":"empty-name"},"m":{"M":{"":{"S":"x"}}}}}',
      '[1]',
      '{"Item":{"id":{"S":"last"},"l":{"L":[{"M":{"x":{"BOOL":true}}}]}}}',
    ];
    await upload(local.s3, 'dynamodb-json/bad.json', `${lines.join('\r\n')}\r\n\r\n`);
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'dynamodb-json/bad.json', table });
    expect(summary).toMatchObject({ rowsRead: 16, written: 2, rejected: 14, balanced: true });
    expect(await rejectsOf(summary)).toEqual([
      [2, 'INVALID_JSON'], [3, 'INVALID_NUMBER'], [4, 'INVALID_NUMBER'], [5, 'INVALID_BINARY'], [6, 'INVALID_SET'], [7, 'INVALID_SET'],
      [8, 'INVALID_ATTRIBUTE_VALUE'], [9, 'MISSING_KEY'], [10, 'KEY_TYPE'], [11, 'MISSING_KEY'], [12, 'INVALID_JSON'], [13, 'INVALID_JSON'], [14, 'INVALID_ATTRIBUTE_VALUE'], [15, 'INVALID_JSON'],
    ]);
    expect(byKey(await scanTable(local.env, table))).toEqual(byKey([{ id: { S: 'good' }, n: { N: '1' } }, { id: { S: 'last' }, l: { L: [{ M: { x: { BOOL: true } } }] } }]));
  });

  it('imports JSON Lines: exact 20-digit numbers, nested maps and lists, type overrides, and rejects with lines', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'N' } });
    const lines = [
      '\ufeff{"id": 12345678901234567890, "name": "first", "nested": {"a": [1, 2.50, {"b": null}], "big": 98765432109876543210.5}, "flag": true}',
      '{"id": 2, "count": "42", "tags": ["x", "y"], "csv": "p|q", "raw": {"k": 1}}',
      '',
      '{"id": 3, "__proto__": {"polluted": true}, "constructor": "kept"}',
      '{"id": "4"}',
      '{"id": 5, "count": "forty"}',
      '{"id": 6, "n": 1e400}',
      '{"id": 7, "a": 1, "a": 2}',
      '[1, 2]',
      '{"id": 8, "tags": ["x", "x"]}',
      '{"id": 9, ',
      '{"name": "no id"}',
      '{"id": 0.000, "z": -0}',
      '{"id": 10, "": "empty name"}',
    ];
    await upload(local.s3, 'jsonl/people.jsonl', lines.join('\n'));
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'jsonl/people.jsonl', table, columnTypes: { count: 'N', tags: 'SS', csv: 'SS' } });
    expect(summary).toMatchObject({ rowsRead: 13, written: 4, rejected: 9, balanced: true });
    expect(await rejectsOf(summary)).toEqual([
      [5, 'KEY_TYPE'], [6, 'INVALID_NUMBER'], [7, 'INVALID_NUMBER'], [8, 'INVALID_JSON'], [9, 'INVALID_JSON'], [10, 'INVALID_SET'], [11, 'INVALID_JSON'], [12, 'MISSING_KEY'], [14, 'INVALID_ATTRIBUTE_VALUE'],
    ]);
    // The rejects file gives each line as it was, to fix and import again.
    const [head, first] = await readRejects(local.s3, summary.rejectsObjects[0]);
    expect(head).toEqual(['line', 'reason', 'message', 'record']);
    expect(first[3]).toBe('{"id": "4"}');
    const expected = [
      { id: { N: '12345678901234567890' }, name: { S: 'first' }, nested: { M: { a: { L: [{ N: '1' }, { N: '2.5' }, { M: { b: { NULL: true } } }] }, big: { N: '98765432109876543210.5' } } }, flag: { BOOL: true } },
      { id: { N: '2' }, count: { N: '42' }, tags: { SS: ['x', 'y'] }, csv: { SS: ['p', 'q'] }, raw: { M: { k: { N: '1' } } } },
      JSON.parse('{ "id": { "N": "3" }, "__proto__": { "M": { "polluted": { "BOOL": true } } }, "constructor": { "S": "kept" } }'),
      { id: { N: '0' }, z: { N: '0' } },
    ];
    expect(byKey(await scanTable(local.env, table))).toEqual(byKey(expected.map((item) => JSON.parse(JSON.stringify(item)))));
  });

  it('reads every DynamoDB type from CSV cells, with an empty cell as NULL, and rejects each malformed value with its own reason', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'B' } });
    const csv = [
      'id,m,l,ss,ns,bs,b,note',
      'AQI=,"{""n"": 12345678901234567890, ""s"": ""x""}","[1, ""two"", [true]]",a|b,1|2.5,AQ==|Ag==,/w==,',
      'AwM=,{},[],solo,7,AA==,,',
      'BAQ=,not json,,,,,,',
      'BQU=,,{},,,,,',
      'BgY=,,,a||b,,,,',
      'Bwc=,,,,1|one,,,',
      'CAg=,,,,,AQ==|AQ==,,',
      'CQk=,,,,,,not base64!,',
      'not base64!,,,,,,,',
      ',,,,,,,',
    ].join('\n');
    await upload(local.s3, 'types/every.csv', csv);
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'types/every.csv', table, columnTypes: { id: 'B', m: 'M', l: 'L', ss: 'SS', ns: 'NS', bs: 'BS', b: 'B' }, emptyCell: 'null' });
    expect(await rejectsOf(summary)).toEqual([[4, 'INVALID_JSON'], [5, 'INVALID_JSON'], [6, 'INVALID_SET'], [7, 'INVALID_NUMBER'], [8, 'INVALID_SET'], [9, 'INVALID_BINARY'], [10, 'INVALID_BINARY'], [11, 'MISSING_KEY']]);
    expect(summary).toMatchObject({ rowsRead: 10, written: 2, rejected: 8, balanced: true });
    const expected = [
      { id: { B: 'AQI=' }, m: { M: { n: { N: '12345678901234567890' }, s: { S: 'x' } } }, l: { L: [{ N: '1' }, { S: 'two' }, { L: [{ BOOL: true }] }] }, ss: { SS: ['a', 'b'] }, ns: { NS: ['1', '2.5'] }, bs: { BS: ['AQ==', 'Ag=='] }, b: { B: '/w==' }, note: { NULL: true } },
      { id: { B: 'AwM=' }, m: { M: {} }, l: { L: [] }, ss: { SS: ['solo'] }, ns: { NS: ['7'] }, bs: { BS: ['AA=='] }, b: { NULL: true }, note: { NULL: true } },
    ];
    expect(byKey(await scanTable(local.env, table))).toEqual(byKey(expected));
  });

  it('deletes the items whose keys a file lists (mode delete), with the books and the rejects of any import', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    await upload(local.s3, 'delete/all.csv', ['id,n', ...Array.from({ length: 100 }, (_, i) => `k${i},${i}`)].join('\n'));
    expect(await importJob({ bucket: TEST_BUCKET, key: 'delete/all.csv', table, columnTypes: { n: 'N' } })).toMatchObject({ written: 100, deleted: 0 });
    // Other columns are not read in a delete (not even checked); a blank key is rejected; an absent key deletes nothing and counts.
    await upload(local.s3, 'delete/some.csv', ['id,n', ...Array.from({ length: 40 }, (_, i) => `k${i * 2},not-a-number`), ',x', 'absent,1'].join('\n'));
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'delete/some.csv', table, columnTypes: { n: 'N' }, mode: 'delete' });
    expect(summary).toMatchObject({ rowsRead: 42, written: 0, deleted: 41, rejected: 1, balanced: true });
    expect(await rejectsOf(summary)).toEqual([[42, 'MISSING_KEY']]);
    const left = (await scanTable(local.env, table)).map((item) => item.id.S).sort();
    expect(left).toEqual(Array.from({ length: 100 }, (_, i) => `k${i}`).filter((_, i) => i % 2 === 1 || i >= 80).sort());
  });

  it('goes on past a segment\'s time in a JSON Lines file, its format carried by the checkpoint', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    // 26-digit numbers, which a JS float would round.
    const text = Array.from({ length: 6_000 }, (_, i) => `{"id":"r${i % 4_000}","v":${i},"big":${10n ** 25n + BigInt(i)}}`).join('\n');
    await upload(local.s3, 'jsonl/segments.ndjson', text);
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'jsonl/segments.ndjson', table, segmentMs: 300, maxWcu: 4_000 });
    expect(summary.segments).toBeGreaterThan(1);
    expect(summary).toMatchObject({ rowsRead: 6_000, rejected: 0, balanced: true });
    const items = await scanTable(local.env, table);
    expect(items).toHaveLength(4_000);
    for (const item of items) {
      const i = Number(item.v.N);
      expect(i % 4_000).toBe(Number(item.id.S.slice(1)));
      expect(item.big.N).toBe(String(10n ** 25n + BigInt(i)));
    }
    // The last row of each key wins: keys 0-1999 appear twice (rows i and i + 4000).
    expect(items.filter((item) => Number(item.id.S.slice(1)) < 2_000).every((item) => Number(item.v.N) >= 4_000)).toBe(true);
  }, 120_000);

  it('imports a fixed rejects file as it is (fromRejects): a CSV source\'s columns, a JSON source\'s lines, in shards', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    // A ";" source: its rejects file is written with "," and its three columns first.
    const rows = Array.from({ length: 3000 }, (_, i) => `r${i};name ${i}, with a comma;${i % 500 === 7 ? 'bad' : i}`);
    await upload(local.s3, 'round-trip/people.csv', `id;name;n\n${rows.join('\n')}\n`);
    const first = await importJob({ bucket: TEST_BUCKET, key: 'round-trip/people.csv', table, delimiter: ';', columnTypes: { n: 'N' } });
    expect(first).toMatchObject({ rowsRead: 3000, written: 2994, rejected: 6 });
    const rejects = (await readRejects(local.s3, first.rejectsObjects[0])).map((row) => row.map((cell) => (cell === 'bad' ? '7' : cell)));
    // Fixed by hand in a spreadsheet: the bad numbers replaced, the file saved again as CSV.
    const { csvLine } = await import('../../src/observe/rejects.js');
    await upload(local.s3, 'round-trip/fixed.csv', rejects.map(csvLine).join(''));
    const again = await importJob({ bucket: TEST_BUCKET, key: 'round-trip/fixed.csv', table, columnTypes: { n: 'N' }, fromRejects: true, shards: 2, segmentMs: 100 });
    expect(again).toMatchObject({ rowsRead: 6, written: 6, rejected: 0, balanced: true });
    const items = await scanTable(local.env, table);
    expect(items).toHaveLength(3000);
    expect(items.find((item) => item.id.S === 'r7')).toEqual({ id: { S: 'r7' }, name: { S: 'name 7, with a comma' }, n: { N: '7' } });

    // A JSON source's rejects file holds each line in its record column; imported with the source's format.
    await upload(local.s3, 'round-trip/events.jsonl', ['{"id": "j1", "n": 1}', '{"id": "j2", "n": 2,}', '{"id": "j3", "tags": ["a", "a"]}'].join('\n'));
    const json = await importJob({ bucket: TEST_BUCKET, key: 'round-trip/events.jsonl', table, columnTypes: { tags: 'SS' } });
    expect(json).toMatchObject({ written: 1, rejected: 2 });
    const jsonRejects = await readRejects(local.s3, json.rejectsObjects[0]);
    expect(jsonRejects[0]).toEqual(['line', 'reason', 'message', 'record']);
    const fixed = jsonRejects.map((row) => [...row.slice(0, 3), row[3].replace(', }', '}').replace(',}', '}').replace('["a", "a"]', '["a", "b"]')]);
    await upload(local.s3, 'round-trip/events-fixed.csv', fixed.map(csvLine).join(''));
    await expect(importJob({ bucket: TEST_BUCKET, key: 'round-trip/events-fixed.csv', table, fromRejects: true })).rejects.toThrow('is the rejects file of a JSON import (its one column is "record"): import it with format jsonl or dynamodb-json');
    const jsonAgain = await importJob({ bucket: TEST_BUCKET, key: 'round-trip/events-fixed.csv', table, columnTypes: { tags: 'SS' }, fromRejects: true, format: 'jsonl' });
    expect(jsonAgain).toMatchObject({ rowsRead: 2, written: 2, rejected: 0 });
    expect((await scanTable(local.env, table)).find((item) => item.id.S === 'j3')).toEqual({ id: { S: 'j3' }, tags: { SS: ['a', 'b'] } });

    // A file that is not a rejects file is refused, not read with its first three columns dropped.
    await expect(importJob({ bucket: TEST_BUCKET, key: 'round-trip/people.csv', table, fromRejects: true })).rejects.toThrow('round-trip/people.csv is not a rejects file: its header does not start with line,reason,message');
    expect(() => resolveConfig({ bucket: TEST_BUCKET, key: 'k', table, fromRejects: true, delimiter: ';' }, {})).toThrow('a rejects file is written with "," whatever the source\'s delimiter');
  }, 120_000);
});

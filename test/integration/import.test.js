import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler } from '../../src/handler.js';
import { generatedCsv, summaryOf } from '../support/imports.js';
import { createTable, scanAll, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const { dynamodb, s3 } = useLocalServers();

describe('import against DynamoDB Local and the S3 emulator', () => {
  it('imports a generated file and every item reads back with the right types', async () => {
    const table = await createTable(dynamodb);
    const csv = generatedCsv(20_000, 11);
    await upload(s3, 'types/people.csv', csv);

    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'types/people.csv', table, columnTypes: 'balance:N,active:BOOL', concurrency: 16 }));
    expect(summary).toMatchObject({ rowsRead: 20_000, written: 20_000, rejected: 0, duplicatesCollapsed: 0, balanced: true });
    expect(summary.wcuConsumed).toBe(20_000);

    const items = new Map((await scanAll(dynamodb, table)).map((item) => [item.id.S, item]));
    expect(items.size).toBe(20_000);
    /** @type {Array<Record<string, string>>} */
    const rows = parse(csv, { columns: true });
    for (const row of rows) {
      expect(items.get(row.id)).toEqual({
        id: { S: row.id },
        first_name: { S: row.first_name },
        last_name: { S: row.last_name },
        email: { S: row.email },
        phone: { S: row.phone },
        national_id: { S: row.national_id },
        birth_date: { S: row.birth_date },
        country: { S: row.country },
        // DynamoDB normalises numbers (trailing zeros of a fraction go): compare as numbers of cents.
        balance: { N: expect.any(String) },
        active: { BOOL: row.active === 'true' },
      });
      expect(Math.round(Number(items.get(row.id)?.balance.N) * 100)).toBe(Math.round(Number(row.balance) * 100));
    }
  });

  it('writes every row once with a shuffle window, and rejects keep their true lines', async () => {
    const table = await createTable(dynamodb);
    const csv = `${generatedCsv(3_000, 13).trimEnd()}\nbad-row\n`;
    await upload(s3, 'shuffle/people.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'shuffle/people.csv', table, shuffleWindow: 700 }));
    expect(summary).toMatchObject({ rowsRead: 3_001, written: 3_000, rejected: 1, balanced: true, rejectSample: [{ line: 3_002, reason: 'FIELD_COUNT' }] });
    /** @type {Array<{ id: string }>} */
    const rows = parse(csv, { columns: true, relax_column_count: true });
    const ids = new Set((await scanAll(dynamodb, table)).map((item) => item.id.S));
    expect(ids.size).toBe(3_000);
    expect(rows.slice(0, 3_000).every((row) => ids.has(row.id))).toBe(true);
  });

  it('rejects bad rows with their line numbers and writes the rest', async () => {
    const table = await createTable(dynamodb);
    const csv = 'id,name,age,active\r\n1,Ann,30,true\r\n2,Bob,thirty,false\r\n\r\n3,"Cy\r\nMultiline, quoted",5,TRUE\r\n4,Dee\r\n,NoKey,1,true\r\n5,Eve,7,maybe\r\n6,Fay,8,false';
    await upload(s3, 'bad/rows.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'bad/rows.csv', table, columnTypes: { age: 'N', active: 'BOOL' } }));
    expect(summary).toMatchObject({ rowsRead: 7, written: 3, rejected: 4, balanced: true });
    expect(summary.rejectedByReason).toEqual({ INVALID_NUMBER: 1, FIELD_COUNT: 1, MISSING_KEY: 1, INVALID_BOOL: 1 });
    expect(summary.rejectSample).toEqual([
      { line: 3, reason: 'INVALID_NUMBER' },
      { line: 7, reason: 'FIELD_COUNT' },
      { line: 8, reason: 'MISSING_KEY' },
      { line: 9, reason: 'INVALID_BOOL' },
    ]);
    const items = await scanAll(dynamodb, table);
    expect(items.map((item) => item.id.S).sort()).toEqual(['1', '3', '6']);
    expect(items.find((item) => item.id.S === '3')).toEqual({ id: { S: '3' }, name: { S: 'Cy\r\nMultiline, quoted' }, age: { N: '5' }, active: { BOOL: true } });
  });

  it('fails before writing with a message that names the problem', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'nokey/rows.csv', 'name,age\nAnn,3\n');
    await expect(handler({ bucket: TEST_BUCKET, key: 'nokey/rows.csv', table })).rejects.toThrow(/Invalid option "keyColumn": got "id"; .*the header has no column "id"; the first line has 2 columns; if the file has no header line, add one/);
    // A file without a header line: its first row is taken for the header, and no value of it may reach the message or the log.
    await upload(s3, 'noheader/rows.csv', 'Ann Secret,555-0101\nBob,555-0102\n');
    const failure = await handler({ bucket: TEST_BUCKET, key: 'noheader/rows.csv', table }).catch((/** @type {Error} */ error) => error);
    expect(String(failure)).toMatch(/the header has no column "id"/);
    expect(String(failure)).not.toMatch(/Ann Secret|555-0101/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'missing.csv', table })).rejects.toThrow(/s3:\/\/test-imports\/missing.csv does not exist/);
    await expect(handler({ bucket: TEST_BUCKET, key: 'nokey/rows.csv', table, concurrency: 0 })).rejects.toThrow(/"concurrency"/);
    expect(await scanAll(dynamodb, table)).toEqual([]);
  });

  it('checks the table before the first write: it exists, and its key matches in name and type', async () => {
    await upload(s3, 'check/rows.csv', 'id,sku,qty\na,1,2\n');
    const options = { bucket: TEST_BUCKET, key: 'check/rows.csv' };
    // A name of the tests' tables (the IAM gate judges it as the stack's table): missing, not forbidden.
    const missing = `t-${randomUUID()}`;
    await expect(handler({ ...options, table: missing })).rejects.toThrow(new RegExp(`table "${missing}" does not exist in us-east-1; create it first`));

    const bySku = await createTable(dynamodb, { partition: { name: 'sku', type: 'N' } });
    await expect(handler({ ...options, table: bySku })).rejects.toThrow(/has partition key "sku", but keyColumn is "id"; set keyColumn/);
    await expect(handler({ ...options, table: bySku, keyColumn: 'sku' })).rejects.toThrow(/types key "sku" as N, but the import types it as S; set columnTypes to "sku:N"/);
    expect(await scanAll(dynamodb, bySku)).toEqual([]);

    const summary = summaryOf(await handler({ ...options, table: bySku, keyColumn: 'sku', columnTypes: 'sku:N,qty:N' }));
    expect(summary).toMatchObject({ rowsRead: 1, written: 1, balanced: true });
    expect(await scanAll(dynamodb, bySku)).toEqual([{ id: { S: 'a' }, sku: { N: '1' }, qty: { N: '2' } }]);
  });

  it('imports every record of an S3 event notification, with URL-encoded keys', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'imports/a file.csv', 'id,v\na,1\nb,2\n');
    await upload(s3, 'imports/second.csv', 'id,v\nc,3\n');
    process.env.TABLE_NAME = table;
    const record = (/** @type {string} */ key) => ({ eventSource: 'aws:s3', s3: { bucket: { name: TEST_BUCKET }, object: { key } } });
    const result = /** @type {{ imports: Array<{ written: number }> }} */ (await handler({ Records: [record('imports/a+file.csv'), record('imports/second.csv')] }));
    delete process.env.TABLE_NAME;
    expect(result.imports.map((s) => s.written)).toEqual([2, 1]);
    expect((await scanAll(dynamodb, table)).length).toBe(3);
  });

  it('imports the version its S3 event names: a quicker second upload is not imported twice under the first event', async () => {
    const table = await createTable(dynamodb);
    process.env.TABLE_NAME = table;
    const etagOfUpload = async (/** @type {string} */ body) => {
      await upload(s3, 'imports/twice.csv', body);
      const head = await s3.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: 'imports/twice.csv' }));
      return /** @type {string} */ (head.ETag);
    };
    const first = await etagOfUpload('id,v\nfirst,1\n');
    const second = await etagOfUpload('id,v\nsecond,2\n');
    const event = (/** @type {string} */ eTag) => ({ Records: [{ eventSource: 'aws:s3', s3: { bucket: { name: TEST_BUCKET }, object: { key: 'imports/twice.csv', eTag: eTag.replaceAll('"', ''), size: 1 } } }] });
    try {
      // The first upload's event arrives after the second upload: it names a version that is gone.
      await expect(handler(event(first))).rejects.toThrow(/s3:\/\/test-imports\/imports\/twice.csv was replaced during the import \(ETag \w+, now [\w ]+\)/);
      const summary = summaryOf(await handler(event(second)));
      expect(summary).toMatchObject({ written: 1, balanced: true });
      expect((await scanAll(dynamodb, table)).map((item) => item.id.S)).toEqual(['second']);
    } finally {
      delete process.env.TABLE_NAME;
    }
  });

  it('reads a UTF-16LE file by its byte order mark in every segment and every shard, by code units', async () => {
    const table = await createTable(dynamodb);
    // U+2C22, U+0A2C and U+220D hold the bytes of a quote, a comma, a line feed and a carriage return:
    // read byte by byte, they would cut fields and records; an emoji is a surrogate pair.
    const name = (/** @type {number} */ i) => `Zoë \u2c22\u0a2c\u220d 😀 ${i}`;
    const rows = Array.from({ length: 3_000 }, (_, i) => `u${i},"${name(i)}, ""q"""`);
    const text = `id,name\r\n${rows.join('\r\n')}\r\nbad,\ud800x\r\n`;
    await upload(s3, 'utf16/people.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    for (const options of [{ segmentMs: 100 }, { shards: 3 }]) {
      const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'utf16/people.csv', table, ...options }));
      expect(summary, JSON.stringify(options)).toMatchObject({ rowsRead: 3_001, written: 3_000, rejected: 1, balanced: true, rejectedByReason: { INVALID_UTF16: 1 } });
      const items = await scanAll(dynamodb, table);
      expect(items.length).toBe(3_000);
      expect(new Map(items.map((item) => [item.id.S, item.name.S]))).toEqual(new Map(rows.map((_, i) => [`u${i}`, `${name(i)}, "q"`])));
    }
    await upload(s3, 'utf16/big-endian.csv', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('id\n1\n', 'utf16le').swap16()]));
    await expect(handler({ bucket: TEST_BUCKET, key: 'utf16/big-endian.csv', table })).rejects.toThrow(/the file is UTF-16BE \(its byte order mark says so\), which is not read; save it as UTF-8 or UTF-16LE/);
  });

  it('refuses a checkpoint that starts past the end of its file, instead of reporting an import of nothing as done', async () => {
    const table = await createTable(dynamodb);
    const csv = generatedCsv(100, 12);
    await upload(s3, 'checkpoint/past-end.csv', csv);
    const etag = ((await s3.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: 'checkpoint/past-end.csv' }))).ETag ?? '').replaceAll('"', '');
    const totals = { rowsRead: 10, written: 10, rejected: 0, duplicatesCollapsed: 0, retries: 0, throttledItems: 0, throttledCalls: 0, transientErrors: 0, wcu: 10, calls: 1, rejectedByReason: {} };
    const checkpoint = { jobId: 'a-job', etag, byte: Buffer.byteLength(csv) + 500, line: 11, header: csv.slice(0, csv.indexOf('\n')).split(','), segments: 1, seconds: 1, reopens: 0, totals, rejectsObjects: [], rejectSample: [] };
    await expect(handler({ bucket: TEST_BUCKET, key: 'checkpoint/past-end.csv', table, checkpoint })).rejects.toThrow(new RegExp(`the checkpoint starts at byte ${checkpoint.byte} of s3://${TEST_BUCKET}/checkpoint/past-end.csv, which has ${Buffer.byteLength(csv)}`));
    expect(await scanAll(dynamodb, table)).toEqual([]);
  });
});

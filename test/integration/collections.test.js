/**
 * Jobs over many objects (issue 20): every object under a prefix, and a DynamoDB export as a whole (its
 * manifest), each one job with one id, one status and one summary, one shard per object (more for a large
 * uncompressed one), on the local servers. zstd beside gzip, and a zstd file cut short.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/handler.js';
import { resolveConfig } from '../../src/config/index.js';
import { readJobStatus } from '../../src/state/job-status.js';
import { bucketStore } from '../../src/state/output-store.js';
import { scanTable } from '../oracle/differential.js';
import { eventsJsonl, peopleCsv } from '../fixtures/zstd/contents.js';
import { createTable, readRejects, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const quiet = { info() {}, warn() {}, error() {} };
const zstdFixture = (/** @type {string} */ name) => readFileSync(new URL(`../fixtures/zstd/${name}`, import.meta.url));

describe('a job over many objects', () => {
  const local = useLocalServers();

  /** @param {Record<string, unknown>} payload */
  async function importJob(payload) {
    return JSON.parse(JSON.stringify(await runJob(payload, resolveConfig(payload, process.env), undefined, { log: quiet })));
  }

  /** Every rejected row of a job, as [object, line, reason]: the object is in the rejects file's key. @param {{ rejectsObjects: string[] }} summary @param {string} prefix */
  async function rejectsOf(summary, prefix) {
    const rows = [];
    for (const key of summary.rejectsObjects) {
      const object = key.slice(prefix.length, key.indexOf('/', key.indexOf('.') + 1));
      for (const row of (await readRejects(local.s3, key)).slice(1)) rows.push([object, Number(row[0]), row[1]]);
    }
    return rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1]));
  }

  it('imports every object under a prefix (CSV, gzip, zstd, JSON Lines, large ones cut) as one job, with exact books and rejects that name their object', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    const csv = (/** @type {string} */ name, /** @type {number} */ rows, /** @type {number[]} */ bad = []) =>
      `id,name,n,tags\n${Array.from({ length: rows }, (_, i) => `${name}-${i},row ${i} of ${name},${bad.includes(i + 2) ? 'x' : i},t${i % 3}|u`).join('\n')}\n`;
    const jsonl = (/** @type {string} */ name, /** @type {number} */ rows, /** @type {number[]} */ bad = []) =>
      `${Array.from({ length: rows }, (_, i) => (bad.includes(i + 1) ? '{"id": "broken"' : `{"id":"${name}-${i}","n":${i},"pad":"${'p'.repeat(60)}"}`)).join('\n')}\n`;
    const objects = {
      'mixed/a.csv': csv('a', 300, [5, 200]),
      'mixed/b.csv.gz': gzipSync(csv('b', 200)),
      'mixed/people.csv.zst': zstdFixture('people.csv.zst'),
      'mixed/events.jsonl.zst': zstdFixture('events.jsonl.zst'),
      'mixed/c.jsonl': jsonl('c', 100, [5]),
      'mixed/big.csv': csv('big', 40_000, [39_990]),
      'mixed/big.jsonl': jsonl('bigj', 18_000, [17_000]),
      'mixed/empty.csv': '',
      'mixed/folder/': '',
      'mixed/_rejects/old/segment-0001-abcd.csv': 'line,reason,message,id\n2,MISSING_KEY,x,\n',
    };
    for (const [key, body] of Object.entries(objects)) await upload(local.s3, key, body);
    const payload = { bucket: TEST_BUCKET, prefix: 'mixed/', table, columnTypes: 'n:N,tags:SS', bytesPerShard: 1 << 20, rejectsPrefix: 'mixed/_rejects/' };

    // Run as `ddbload import s3://... --rejects-prefix` runs it, with the person's own credentials (not
    // the stack's role, which grants writes under rejects/ and _imports/ only): the IAM gate does not judge them.
    const token = process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_SESSION_TOKEN;
    const job = await importJob(payload).finally(() => Object.assign(process.env, token === undefined ? {} : { AWS_SESSION_TOKEN: token }));
    const rows = 300 + 200 + 2000 + 1000 + 100 + 40_000 + 18_000;
    expect(job).toMatchObject({ bucket: TEST_BUCKET, prefix: 'mixed/', objects: 7, shards: 9, started: 9, alreadyDone: 0, state: 'done', rowsRead: rows, rejected: 5, written: rows - 5, balanced: true });
    expect(job.note).toBe('1 objects under mixed/_rejects/ and _imports/ (this importer\'s rejects and status) left out; 1 empty objects left out');
    expect(job.rejectedByReason).toEqual({ INVALID_NUMBER: 3, INVALID_JSON: 2 });
    expect(await rejectsOf(job, 'mixed/_rejects/')).toEqual([
      ['mixed/a.csv', 5, 'INVALID_NUMBER'], ['mixed/a.csv', 200, 'INVALID_NUMBER'], ['mixed/big.csv', 39_990, 'INVALID_NUMBER'], ['mixed/big.jsonl', 17_000, 'INVALID_JSON'], ['mixed/c.jsonl', 5, 'INVALID_JSON'],
    ]);

    const items = await scanTable(local.env, table);
    expect(items).toHaveLength(rows - 5);
    const byId = new Map(items.map((item) => [item.id.S, item]));
    expect(byId.get('a-0')).toEqual({ id: { S: 'a-0' }, name: { S: 'row 0 of a' }, n: { N: '0' }, tags: { SS: ['t0', 'u'] } });
    expect(byId.get('big-39999')?.n).toEqual({ N: '39999' });
    expect(byId.get('bigj-17999')?.n).toEqual({ N: '17999' });
    // Both zstd files, two frames each, are read whole, as their sources say.
    const people = peopleCsv().trim().split('\n').slice(1);
    expect(people.every((line) => byId.has(line.slice(0, line.indexOf(','))))).toBe(true);
    expect(byId.get('zp-7')).toEqual({ id: { S: 'zp-7' }, name: { S: 'Name "7", ünï' }, n: { N: '21' }, tags: { SS: ['a2', 'b'] } });
    const events = eventsJsonl().trim().split('\n');
    expect(events.every((line) => byId.has(JSON.parse(line).id))).toBe(true);
    expect(byId.get('ze-999')).toEqual({ id: { S: 'ze-999' }, seq: { N: '12345678901234560999' }, nested: { M: { at: { N: '999' }, list: { L: [{ N: '999' }, { S: 'x999' }] } } } });

    // One job: its status lists a shard per object, two for each large one, each naming its object.
    const status = await readJobStatus(bucketStore(local.s3, TEST_BUCKET), '_imports/', job.jobId);
    expect(status?.plan?.shards.map((shard) => shard.key)).toEqual(['mixed/a.csv', 'mixed/b.csv.gz', 'mixed/big.csv', 'mixed/big.csv', 'mixed/big.jsonl', 'mixed/big.jsonl', 'mixed/c.jsonl', 'mixed/events.jsonl.zst', 'mixed/people.csv.zst']);
    expect(status?.total).toMatchObject({ state: 'done', rowsRead: rows, balanced: true });

    // The same objects again: the same job, every shard done already.
    const again = await importJob(payload);
    expect(again).toMatchObject({ jobId: job.jobId, started: 0, alreadyDone: 9, rowsRead: rows });
  }, 180_000);

  it('refuses a prefix past maxObjects, one with nothing to import, shards, and a suffix without a prefix, before anything starts', async () => {
    for (const key of ['few/a.csv', 'few/b.csv', 'few/c.csv.gz', 'few/d.txt']) await upload(local.s3, key, 'id\n1\n');
    const base = { bucket: TEST_BUCKET, table: 'AnyTable' };
    await expect(importJob({ ...base, prefix: 'few/', suffix: '.csv,.csv.gz', maxObjects: 2 })).rejects.toThrow(`s3://${TEST_BUCKET}/few/ holds 3 objects ending in .csv or .csv.gz, more than one job takes; narrow it (a longer prefix, a suffix) or raise maxObjects`);
    await expect(importJob({ ...base, prefix: 'few/', suffix: '.parquet' })).rejects.toThrow('holds no object ending in .parquet to import (4 listed)');
    await expect(importJob({ ...base, prefix: 'few/', shards: 4 })).rejects.toThrow('runs one shard per object; to cut its large uncompressed objects too, use bytesPerShard');
    expect(() => resolveConfig({ ...base, key: 'few/a.csv', suffix: '.csv' }, {})).toThrow('filters the objects under a prefix: use it with "prefix"');
    expect(() => resolveConfig({ ...base, prefix: 'few/', key: 'few/a.csv' }, {})).toThrow('leave key out');
  });

  it('imports a DynamoDB export as a whole from its manifest (copied elsewhere, an empty data file, full then incremental), and fails the books when a data file was cut', async () => {
    const keys = /** @type {const} */ ({ partition: { name: 'id', type: 'S' }, sort: { name: 'sk', type: 'N' } });
    const source = await createTable(local.dynamodb, keys);
    const target = await createTable(local.dynamodb, keys);
    const bytes = (/** @type {number[]} */ ...values) => Uint8Array.from(values);
    const items = [
      { id: { S: 'every-type' }, sk: { N: '1' }, s: { S: 'ünï "q"' }, n: { N: '12345678901234567890123' }, b: { B: bytes(0, 255) }, t: { BOOL: true }, z: { NULL: true }, m: { M: { l: { L: [{ N: '1' }, { SS: ['x'] }] } } }, ss: { SS: ['a', 'b'] }, ns: { NS: ['1', '2.5'] }, bs: { BS: [bytes(1), bytes(2)] } },
      ...Array.from({ length: 120 }, (_, i) => ({ id: { S: `item-${i}` }, sk: { N: String(i % 4) }, v: { N: String(i) } })),
    ];
    for (const Item of items) await local.dynamodb.send(new PutItemCommand({ TableName: source, Item }));
    const scanned = await scanTable(local.env, source);

    /**
     * An export laid out as DynamoDB writes one, under `at` (its manifest naming the keys under `origin`, as
     * an export copied from another bucket or prefix does), its lines cut into `files` gzip data files.
     * @param {string} at @param {string} origin @param {string} exportId @param {string[]} lines @param {number} files @param {string} exportType
     */
    async function writeExport(at, origin, exportId, lines, files, exportType, { countExtra = 0 } = {}) {
      const folder = `${at}AWSDynamoDB/${exportId}/`;
      const manifest = [];
      for (let f = 0; f < files; f++) {
        const part = lines.filter((_, i) => i % files === f);
        const name = `data/${exportId}-${f}.json.gz`;
        await upload(local.s3, `${folder}${name}`, gzipSync(part.map((line) => `${line}\n`).join('')));
        manifest.push({ itemCount: part.length + (f === 0 ? countExtra : 0), md5Checksum: 'unused', etag: 'unused', dataFileS3Key: `${origin}AWSDynamoDB/${exportId}/${name}` });
      }
      // An empty partition's data file: one of no bytes is left out, one of an empty gzip stream reads no row.
      await upload(local.s3, `${folder}data/${exportId}-empty.json.gz`, Buffer.alloc(0));
      manifest.push({ itemCount: 0, md5Checksum: 'unused', etag: 'unused', dataFileS3Key: `${origin}AWSDynamoDB/${exportId}/data/${exportId}-empty.json.gz` });
      await upload(local.s3, `${folder}manifest-files.json`, manifest.map((entry) => JSON.stringify(entry)).join('\n'));
      await upload(local.s3, `${folder}_started`, '');
      await upload(local.s3, `${folder}manifest-summary.json`, JSON.stringify({ version: '2020-06-30', exportArn: `arn:aws:dynamodb:us-east-1:123456789012:table/T/export/${exportId}`, s3Bucket: 'elsewhere', s3Prefix: origin, manifestFilesS3Key: `${origin}AWSDynamoDB/${exportId}/manifest-files.json`, itemCount: lines.length, outputFormat: 'DYNAMODB_JSON', exportType }));
      return `${folder}manifest-summary.json`;
    }

    const full = await writeExport('copied/', 'original/', '01700000000000-aaaaaaaa', scanned.map((Item) => JSON.stringify({ Item })), 3, 'FULL_EXPORT');
    const job = await importJob({ bucket: TEST_BUCKET, key: full, table: target, keyColumn: 'id', sortKeyColumn: 'sk' });
    expect(job).toMatchObject({ objects: 3, shards: 3, state: 'done', rowsRead: items.length, written: items.length, rejected: 0, exportItemCount: items.length, balanced: true, note: '1 empty data files left out' });
    const sorted = (/** @type {Array<Record<string, any>>} */ list) => list.map((item) => JSON.stringify(item, Object.keys(item).sort())).sort();
    expect(sorted(await scanTable(local.env, target))).toEqual(sorted(scanned));

    // An incremental export, named by its folder (a prefix): a put, an update, a delete; the same by hand on the source.
    const metadata = { WriteTimestampMicros: { N: '1732400000000000' } };
    const changes = [
      { Metadata: metadata, Keys: { id: { S: 'item-1' }, sk: { N: '1' } }, NewImage: { id: { S: 'item-1' }, sk: { N: '1' }, v: { N: '-1' } } },
      { Metadata: metadata, Keys: { id: { S: 'item-2' }, sk: { N: '2' } } },
      { Metadata: metadata, Keys: { id: { S: 'fresh' }, sk: { N: '9' } }, NewImage: { id: { S: 'fresh' }, sk: { N: '9' } } },
    ].map((change) => JSON.stringify(change));
    await writeExport('incremental/', 'incremental/', '01700000000001-bbbbbbbb', changes, 2, 'INCREMENTAL_EXPORT');
    const incremental = await importJob({ bucket: TEST_BUCKET, prefix: 'incremental/', table: target, keyColumn: 'id', sortKeyColumn: 'sk' });
    expect(incremental).toMatchObject({ objects: 2, rowsRead: 3, written: 2, deleted: 1, exportItemCount: 3, balanced: true });
    const { DeleteItemCommand } = await import('@aws-sdk/client-dynamodb');
    await local.dynamodb.send(new PutItemCommand({ TableName: source, Item: { id: { S: 'item-1' }, sk: { N: '1' }, v: { N: '-1' } } }));
    await local.dynamodb.send(new DeleteItemCommand({ TableName: source, Key: { id: { S: 'item-2' }, sk: { N: '2' } } }));
    await local.dynamodb.send(new PutItemCommand({ TableName: source, Item: { id: { S: 'fresh' }, sk: { N: '9' } } }));
    expect(sorted(await scanTable(local.env, target))).toEqual(sorted(await scanTable(local.env, source)));

    // A data file that lost lines since the export: the manifest counts more items than were read.
    const cut = await writeExport('cut/', 'cut/', '01700000000002-cccccccc', scanned.slice(0, 10).map((Item) => JSON.stringify({ Item })), 2, 'FULL_EXPORT', { countExtra: 1 });
    const short = await importJob({ bucket: TEST_BUCKET, key: cut, table: target, keyColumn: 'id', sortKeyColumn: 'sk' });
    expect(short).toMatchObject({ rowsRead: 10, exportItemCount: 11, balanced: false });
    expect(short.exportMismatch).toContain("the export's manifest lists 11 items and the job read 10 rows");

    // An ION export, and a prefix holding two exports, are refused with what to do.
    await upload(local.s3, 'ion/AWSDynamoDB/x/manifest-summary.json', JSON.stringify({ outputFormat: 'ION', manifestFilesS3Key: 'ion/AWSDynamoDB/x/manifest-files.json' }));
    await expect(importJob({ bucket: TEST_BUCKET, key: 'ion/AWSDynamoDB/x/manifest-summary.json', table: target, keyColumn: 'id', sortKeyColumn: 'sk' })).rejects.toThrow('is an export in "ION"; this importer reads exports in DYNAMODB_JSON');
    // (Under a prefix of their own: a listing of the whole bucket would meet every other test file's objects.)
    const lines = scanned.slice(0, 4).map((Item) => JSON.stringify({ Item }));
    await writeExport('two-exports/', 'two-exports/', '01700000000003-dddddddd', lines, 1, 'FULL_EXPORT');
    await writeExport('two-exports/', 'two-exports/', '01700000000004-eeeeeeee', lines, 1, 'FULL_EXPORT');
    await expect(importJob({ bucket: TEST_BUCKET, prefix: 'two-exports/', table: target })).rejects.toThrow(/holds 2 DynamoDB exports/);
  }, 180_000);

  it('reads a gzip stream of nothing (an empty partition\'s data file, as any gzip writer makes it) as no rows, in an export and under a prefix (issue 35, defect 7)', async () => {
    // A sort key typed N: a data file read as CSV (the default for a file of no bytes) is refused by the table.
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' }, sort: { name: 'sk', type: 'N' } });
    const exportId = '01700000000002-cccccccc';
    const folder = `empty-gzip/AWSDynamoDB/${exportId}/`;
    await upload(local.s3, `${folder}data/full.json.gz`, gzipSync('{"Item":{"id":{"S":"a"},"sk":{"N":"1"}}}\n{"Item":{"id":{"S":"b"},"sk":{"N":"2"}}}\n'));
    await upload(local.s3, `${folder}data/empty.json.gz`, gzipSync(''));
    const manifest = [{ itemCount: 2, dataFileS3Key: `${folder}data/full.json.gz` }, { itemCount: 0, dataFileS3Key: `${folder}data/empty.json.gz` }];
    await upload(local.s3, `${folder}manifest-files.json`, manifest.map((entry) => JSON.stringify(entry)).join('\n'));
    await upload(local.s3, `${folder}manifest-summary.json`, JSON.stringify({ version: '2020-06-30', s3Prefix: 'empty-gzip/', manifestFilesS3Key: `${folder}manifest-files.json`, itemCount: 2, outputFormat: 'DYNAMODB_JSON', exportType: 'FULL_EXPORT' }));
    const keys = { keyColumn: 'id', sortKeyColumn: 'sk' };
    const job = await importJob({ bucket: TEST_BUCKET, key: `${folder}manifest-summary.json`, table, ...keys });
    expect(job).toMatchObject({ state: 'done', rowsRead: 2, written: 2, exportItemCount: 2, balanced: true });

    // Under a prefix too, whatever the name says: no bytes, no rows, nothing to check.
    await upload(local.s3, 'empty-gzip-prefix/rows.csv', 'id,sk,v\nc,3,1\n');
    await upload(local.s3, 'empty-gzip-prefix/nothing.gz', gzipSync(''));
    await upload(local.s3, 'empty-gzip-prefix/nothing.jsonl.gz', gzipSync(''));
    const prefixJob = await importJob({ bucket: TEST_BUCKET, prefix: 'empty-gzip-prefix/', table, ...keys, columnTypes: 'sk:N' });
    expect(prefixJob).toMatchObject({ state: 'done', rowsRead: 1, written: 1, balanced: true });
    expect((await scanTable(local.env, table)).map((item) => item.id.S).sort()).toEqual(['a', 'b', 'c']);
  });

  it('fails a job with the reason a shard\'s worker failed, not only its exit code (issue 35, defect 7)', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' }, sort: { name: 'sk', type: 'N' } });
    await upload(local.s3, 'worker-error/a.jsonl', '{"id":"a","sk":1}\n');
    // Read as CSV, its sort key would be S: the table refuses the import before the shard writes a status.
    await upload(local.s3, 'worker-error/b.csv', 'id,sk\nb,2\n');
    const failure = await importJob({ bucket: TEST_BUCKET, prefix: 'worker-error/', table, keyColumn: 'id', sortKeyColumn: 'sk' }).catch((/** @type {Error} */ error) => error);
    expect(String(failure)).toMatch(/1 of 2 shards did not finish \(shard 2: TableError: table "[^"]+" types key "sk" as N, but the import types it as S/);
  });

  it('imports a single zstd file as gzip is (one shard, continued across segments), and fails a zstd file cut short instead of losing its end', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    await upload(local.s3, 'zstd/people.csv.zst', zstdFixture('people.csv.zst'));
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'zstd/people.csv.zst', table, columnTypes: 'n:N,tags:SS', shards: 2, segmentMs: 100, logIntervalMs: 100 });
    expect(summary).toMatchObject({ rowsRead: 2000, written: 2000, rejected: 0, balanced: true, note: 'the file is zstd-compressed, which cannot be split: it ran as one shard' });

    // A file that starts with a skippable frame, as pzstd writes them, is zstd too (it was read as CSV text).
    const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]), zstdFixture('people.csv.zst')]);
    await upload(local.s3, 'zstd/parallel.csv.zst', skippable);
    expect(await importJob({ bucket: TEST_BUCKET, key: 'zstd/parallel.csv.zst', table, columnTypes: 'n:N,tags:SS' })).toMatchObject({ rowsRead: 2000, written: 2000, rejected: 0 });

    const whole = zstdFixture('events.jsonl.zst');
    await upload(local.s3, 'zstd/cut.jsonl.zst', whole.subarray(0, whole.length - 200));
    await expect(importJob({ bucket: TEST_BUCKET, key: 'zstd/cut.jsonl.zst', table })).rejects.toThrow(`s3://${TEST_BUCKET}/zstd/cut.jsonl.zst starts as zstd but cannot be decompressed (unexpected EOF): it is damaged or cut short; upload it again`);
  }, 120_000);
});

/**
 * Every row read ends in the table or in the rejects file, whatever happens: bad rows, a table that
 * refuses, throttles, 5xx, resets, hung calls, a stalled or broken S3 body, and the 15-minute limit.
 * All against DynamoDB Local and the S3 emulator, with faults injected by proxies on 127.0.0.1.
 */
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../src/handler.js';
import { resolveConfig } from '../../src/config/index.js';
import { generatedCsv, mixedCsv, summaryOf } from '../support/imports.js';
import { jobIdOfObject, readJobStatus } from '../../src/state/job-status.js';
import { bucketStore } from '../../src/state/output-store.js';
import { openSource } from '../../src/source/s3-object.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { runSegmentLoop } from '../support/segment-loop.js';
import { createTable, expectTableHoldsExactly, listKeys, readRejects, rejectedLinesIn, scanAll, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';
import { startS3FaultProxy } from '../support/s3-fault-proxy.js';
import { S3Client } from '@aws-sdk/client-s3';

const { env, dynamodb, s3 } = useLocalServers();

const onCleanup = useCleanups(env);
afterEach(() => {
  for (const name of ['TABLE_NAME', 'ALLOWED_TABLES']) delete process.env[name];
});

/**
 * Uploads `csv` under `key` and imports it into a new table as a Step Functions child runs it on AWS: the
 * segment handler again and again, each invocation with `timeoutMs` of Lambda time. Returns the table and
 * the invocations.
 * @param {string} key @param {string} csv @param {number} timeoutMs
 * @param {Record<string, unknown>} options  the payload's import options
 */
async function importThroughSegments(key, csv, timeoutMs, options) {
  const table = await createTable(dynamodb);
  await upload(s3, key, csv);
  const invocations = await runSegmentLoop({ bucket: TEST_BUCKET, key, table, columnTypes: 'n:N', ...options }, { timeoutMs });
  return { table, invocations };
}

/** Routes the function's DynamoDB traffic through a fault proxy for this test. @param {Omit<import('../support/fault-proxy.js').FaultOptions, 'target'>} faults */
async function dynamodbFaults(faults) {
  const proxy = await startFaultProxy({ target: env.DYNAMODB_ENDPOINT, ...faults });
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  onCleanup(() => proxy.stop());
  return proxy;
}

/**
 * Routes the function's S3 traffic through a fault proxy for this test.
 * @param {import('../support/s3-fault-proxy.js').BodyFault[]} faults
 * @param {Pick<Parameters<typeof startS3FaultProxy>[0], 'refuseWrites' | 'refuseAfterMs'>} [writes]
 */
async function s3Faults(faults, writes = {}) {
  const proxy = await startS3FaultProxy({ target: env.S3_ENDPOINT, faults, ...writes });
  process.env.S3_ENDPOINT = proxy.endpoint;
  onCleanup(() => proxy.stop());
  return proxy;
}

/** The ids of a generated CSV, in order. @param {string} csv */
function idsOf(csv) {
  return csv.split('\n').slice(1).filter((line) => line !== '').map((line) => line.slice(0, line.indexOf(',')));
}

describe('the rejects file', () => {
  it('holds each rejected row with its line, reason, message and original fields; the summary names it', async () => {
    const table = await createTable(dynamodb);
    const big = 'x'.repeat(401 * 1024);
    const longKey = 'k'.repeat(2100);
    const csv = `id,name,age,active\n1,Ann,30,true\n2,"Bob, Jr",thirty,false\n3,Cy,5,maybe\n,NoKey,1,true\n5,Eve\n6,${big},1,true\n${longKey},Long,2,true\n8,"Fay ""F""",8,false\n9,"Gus\n`;
    await upload(s3, 'rejects/input.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'rejects/input.csv', table, columnTypes: 'age:N,active:BOOL' }));
    expect(summary).toMatchObject({ rowsRead: 9, written: 2, rejected: 7, balanced: true });
    expect(summary.rejectsObjects).toEqual([expect.stringMatching(new RegExp(`^rejects/rejects/input.csv/${summary.jobId}/segment-0001-[0-9a-f]{8}\\.csv$`))]);

    const [header, ...rows] = await readRejects(s3, summary.rejectsObjects[0]);
    expect(header).toEqual(['line', 'reason', 'message', 'id', 'name', 'age', 'active']);
    const byLine = new Map(rows.map(([line, reason, message, ...fields]) => [Number(line), { reason, message, fields }]));
    expect([...byLine.keys()].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 10]);
    expect(byLine.get(3)).toEqual({ reason: 'INVALID_NUMBER', message: expect.stringMatching(/column "age" is typed N/), fields: ['2', 'Bob, Jr', 'thirty', 'false'] });
    expect(byLine.get(4)).toMatchObject({ reason: 'INVALID_BOOL', fields: ['3', 'Cy', '5', 'maybe'] });
    expect(byLine.get(5)).toMatchObject({ reason: 'MISSING_KEY', fields: ['', 'NoKey', '1', 'true'] });
    expect(byLine.get(6)).toMatchObject({ reason: 'FIELD_COUNT', fields: ['5', 'Eve'] });
    expect(byLine.get(7)).toMatchObject({ reason: 'ITEM_TOO_LARGE', fields: ['6', big, '1', 'true'] });
    expect(byLine.get(8)).toMatchObject({ reason: 'KEY_TOO_LONG', message: expect.stringMatching(/key column "id" is 2100 bytes; DynamoDB's limit for a partition key is 2048/), fields: [longKey, 'Long', '2', 'true'] });
    expect(byLine.get(10)).toMatchObject({ reason: 'MALFORMED_CSV', message: expect.stringMatching(/^line 10: a quoted field opened on this line is never closed/) });

    const items = await scanAll(dynamodb, table);
    expect(items.map((item) => item.id.S).sort()).toEqual(['1', '8']);
    expect(items.find((item) => item.id.S === '8')?.name).toEqual({ S: 'Fay "F"' });
  });

  it('fails the import with a clear error and a failed status when its upload is refused mid-import', async () => {
    // Every row is rejected with a large row, so the rejects file passes its 8 MB part size while rows are
    // still being read, and its first part upload is refused. The reader used to wait for 'drain' forever.
    const table = await createTable(dynamodb);
    const filler = 'x'.repeat(1_000);
    let csv = 'id,name,n\n';
    for (let i = 1; i <= 40_000; i++) csv += `r${i},${filler},not-a-number\n`;
    await upload(s3, 'refused/input.csv', csv);
    // The part uploads are refused after a second, as a slow one would be: meanwhile the reader fills the
    // rejects stream and waits for it to drain.
    const proxy = await s3Faults([], { refuseWrites: (key, method, query) => key.startsWith('rejects/refused-by-proxy/') && method === 'PUT' && query.has('partNumber'), refuseAfterMs: 1_000 });
    const payload = { bucket: TEST_BUCKET, key: 'refused/input.csv', table, columnTypes: 'n:N', rejectsPrefix: 'rejects/refused-by-proxy/' };
    const run = handler(payload);
    const timeout = new Promise((resolve) => setTimeout(() => resolve(new Error('still running after 60 s')), 60_000).unref());
    const outcome = await Promise.race([run.then(() => new Error('the import succeeded'), (/** @type {Error} */ error) => error), timeout]);
    expect(String(outcome)).toMatch(/could not write the rejects file s3:\/\/test-imports\/rejects\/refused-by-proxy\/refused\/input\.csv\/.*\(\w+: .*\); the function needs s3:PutObject/);
    expect(proxy.counts.refusedWrites).toBeGreaterThan(0);
    const status = await readJobStatus(bucketStore(s3, TEST_BUCKET), '_imports/', await jobIdOfObject(s3, { ...resolveConfig(payload, process.env), bucket: TEST_BUCKET, key: 'refused/input.csv' }));
    expect(status?.shards[0]).toMatchObject({ state: 'failed', error: expect.stringMatching(/could not write the rejects file/) });
  });

  it('is not written when nothing is rejected', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'clean/input.csv', 'id,v\na,1\n');
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'clean/input.csv', table, rejectsPrefix: 'clean-rejects/' }));
    expect(summary).toMatchObject({ written: 1, rejected: 0, rejectsObjects: [] });
    expect(await listKeys(s3, 'clean-rejects/')).toEqual([]);
  });

  it('takes rows whose attempts ran out, with the last error', async () => {
    const proxy = await dynamodbFaults({ unprocessedItems: 1 });
    const table = await createTable(dynamodb);
    const csv = generatedCsv(60, 5);
    await upload(s3, 'exhausted/input.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'exhausted/input.csv', table, maxAttempts: 3, backoffBaseMs: 1, backoffCapMs: 5 }));
    expect(summary).toMatchObject({ rowsRead: 60, written: 0, rejected: 60, rejectedByReason: { ATTEMPTS_EXHAUSTED: 60 }, retries: 6, balanced: true });
    expect(proxy.counts.calls).toBe(9);
    const [, ...rows] = await readRejects(s3, summary.rejectsObjects[0]);
    expect(rows.map(([line]) => Number(line)).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 2));
    for (const [, reason, message] of rows) {
      expect(reason).toBe('ATTEMPTS_EXHAUSTED');
      expect(message).toMatch(/^not written after 3 attempts; last error: \d+ of \d+ items came back as UnprocessedItems$/);
    }
    expect(await scanAll(dynamodb, table)).toEqual([]);
  });
});

describe('transient DynamoDB failures', () => {
  it('retries 5xx answers, resets after the write and hung calls, and lands every row exactly once', async () => {
    const proxy = await dynamodbFaults({ serverErrors: 0.05, resetCalls: 0.03, hangCalls: 0.01 });
    const table = await createTable(dynamodb);
    const csv = generatedCsv(20_000, 21);
    await upload(s3, 'transient/input.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'transient/input.csv', table, requestTimeoutMs: 3_000, backoffBaseMs: 5, backoffCapMs: 100, maxAttempts: 20 }));
    expect(proxy.counts.serverErrors).toBeGreaterThan(0);
    expect(proxy.counts.resets).toBeGreaterThan(0);
    expect(proxy.counts.hangs).toBeGreaterThan(0);
    expect(summary).toMatchObject({ rowsRead: 20_000, written: 20_000, rejected: 0, balanced: true });
    expect(summary.transientErrors).toBe(proxy.counts.serverErrors + proxy.counts.resets + proxy.counts.hangs);
    await expectTableHoldsExactly(dynamodb, table, idsOf(csv));
    console.info(JSON.stringify({ figures: '5xx, resets, hangs', seconds: summary.seconds, retries: summary.retries, transientErrors: summary.transientErrors, proxy: proxy.counts }));
  });
});

describe('everything at once', () => {
  it('lands 200,000 rows exactly once through 50% unprocessed items, 5% 5xx, 2% resets, 2% throttled calls and a stalled S3 body', async () => {
    const dynamo = await dynamodbFaults({ unprocessedItems: 0.5, serverErrors: 0.05, resetCalls: 0.02, throttleCalls: 0.02 });
    const s3proxy = await s3Faults([{ kind: 'stall', afterBytes: 10_000_000 }]);
    const table = await createTable(dynamodb);
    const csv = generatedCsv(200_000, 41);
    await upload(s3, 'everything/input.csv', csv);
    const started = performance.now();
    // The window is fixed here: these faults are random, not a capacity limit, and an adaptive window
    // would rightly slow to its floor, as it should before a table that is really full.
    const options = { readIdleTimeoutMs: 500, backoffBaseMs: 5, backoffCapMs: 200, maxAttempts: 40, adaptiveConcurrency: false };
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'everything/input.csv', table, ...options }));
    expect(dynamo.counts.throttledCalls).toBeGreaterThanOrEqual(3); // each of the three throttling errors
    const seconds = (performance.now() - started) / 1000;

    expect(summary).toMatchObject({ rowsRead: 200_000, written: 200_000, rejected: 0, reopens: 1, balanced: true });
    expect(s3proxy.counts).toMatchObject({ stalls: 1, gets: 2 });
    expect(summary.throttledItems).toBe(dynamo.counts.heldBackItems + dynamo.counts.throttledCallItems);
    expect(summary.throttledCalls).toBe(dynamo.counts.throttledCalls);
    expect(summary.transientErrors).toBe(dynamo.counts.serverErrors + dynamo.counts.resets);
    expect(summary.calls).toBe(dynamo.counts.calls);
    await expectTableHoldsExactly(dynamodb, table, idsOf(csv));
    // The figures for the closing note.
    console.info(JSON.stringify({ figures: 'everything at once', seconds: Math.round(seconds * 10) / 10, retries: summary.retries, throttledItems: summary.throttledItems, transientErrors: summary.transientErrors, reopens: summary.reopens, calls: summary.calls, proxy: dynamo.counts }));
  });
});

describe('a stalled or broken S3 body', () => {
  it('is re-opened at the next unread byte, pinned to the ETag, and no row is lost or read twice', async () => {
    const proxy = await s3Faults([
      { kind: 'stall', afterBytes: 200_000 },
      { kind: 'reset', afterBytes: 300_000 },
      { kind: 'stall', afterBytes: 10 },
    ]);
    const table = await createTable(dynamodb);
    const csv = generatedCsv(30_000, 31);
    await upload(s3, 'stall/input.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'stall/input.csv', table, readIdleTimeoutMs: 300 }));
    expect(summary).toMatchObject({ rowsRead: 30_000, written: 30_000, rejected: 0, reopens: 3, balanced: true });
    expect(proxy.counts).toMatchObject({ gets: 4, stalls: 2, resets: 1 });
    // A reset may drop bytes already sent (the receiving kernel discards them), so where the third
    // read starts is only known to lie after the second's start.
    const starts = proxy.counts.ranges.map((range) => Number(/^bytes=(\d+)-$/.exec(range)?.[1] ?? 0));
    expect(proxy.counts.ranges[0]).toBe('');
    expect(starts[1]).toBe(200_000);
    expect(starts[2]).toBeGreaterThan(200_000);
    expect(starts[2]).toBeLessThanOrEqual(500_000);
    expect(starts[3]).toBe(starts[2] + 10);
    await expectTableHoldsExactly(dynamodb, table, idsOf(csv));
    console.info(JSON.stringify({ figures: 'S3 stall, reset, stall', seconds: summary.seconds, reopens: summary.reopens, ranges: proxy.counts.ranges }));
  });

  it('gives up after maxReopens re-opens in a row that bring no new byte', async () => {
    await s3Faults([
      { kind: 'stall', afterBytes: 1_000 },
      { kind: 'stall', afterBytes: 0 },
      { kind: 'reset', afterBytes: 0 },
      { kind: 'stall', afterBytes: 0 },
    ]);
    const table = await createTable(dynamodb);
    await upload(s3, 'stuck/input.csv', generatedCsv(2_000, 32));
    await expect(handler({ bucket: TEST_BUCKET, key: 'stuck/input.csv', table, readIdleTimeoutMs: 200, maxReopens: 2 })).rejects.toThrow(
      /reading s3:\/\/test-imports\/stuck\/input.csv failed 3 times in a row at byte 1000 of \d+ .*raise maxReopens/,
    );
  });

  it('fails clearly when the object is replaced mid-import', async () => {
    const proxy = await s3Faults([{ kind: 'reset', afterBytes: 5_000 }]);
    await upload(s3, 'replaced/input.csv', generatedCsv(2_000, 33));
    const viaProxy = new S3Client({ region: env.AWS_REGION, endpoint: proxy.endpoint, forcePathStyle: true, credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY } });
    onCleanup(() => viaProxy.destroy());
    const source = await openSource(viaProxy, TEST_BUCKET, 'replaced/input.csv');
    await upload(s3, 'replaced/input.csv', generatedCsv(2_000, 34));
    const read = async () => {
      for await (const _chunk of source.body);
    };
    await expect(read()).rejects.toThrow(new RegExp(`s3://test-imports/replaced/input.csv was replaced during the import \\(ETag ${source.etag}, now \\w+\\)`));
  });
});

describe('past one invocation: checkpoints and continuations', () => {
  it('stops on time when the rows at the cadence of the clock are rejected ones', async () => {
    // Every 64th row is short: the clock used to be read only after a good row whose count was a multiple
    // of 64, so this file was read to its end in one segment whatever the time.
    const table = await createTable(dynamodb);
    let csv = 'id,name,n\n';
    /** @type {string[]} */
    const good = [];
    for (let i = 1; i <= 3_200; i++) {
      if (i % 64 === 0) csv += `r${i},short\n`;
      else {
        csv += `r${i},name ${i},${i}\n`;
        good.push(`r${i}`);
      }
    }
    await upload(s3, 'segments/cadence.csv', csv);
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'segments/cadence.csv', table, columnTypes: 'n:N', segmentMs: 100 }));
    expect(summary.segments).toBeGreaterThan(1);
    expect(summary).toMatchObject({ rowsRead: 3_200, written: good.length, rejected: 50, balanced: true });
    await expectTableHoldsExactly(dynamodb, table, good);
  });

  it('continues in-process from checkpoints through at least 10 segments, with exact totals and true line numbers', async () => {
    const table = await createTable(dynamodb);
    const { csv, good, rejected } = mixedCsv(30_000);
    await upload(s3, 'segments/input.csv', csv);
    const options = { bucket: TEST_BUCKET, key: 'segments/input.csv', columnTypes: 'n:N' };
    const summary = summaryOf(await handler({ ...options, table, segmentMs: 100 }));

    const rejectedCount = rejected.FIELD_COUNT.length + rejected.INVALID_NUMBER.length;
    expect(summary.segments).toBeGreaterThanOrEqual(10);
    expect(summary).toMatchObject({ rowsRead: 30_000, written: good.length, rejected: rejectedCount, duplicatesCollapsed: 0, balanced: true });
    expect(summary.rejectedByReason).toEqual({ FIELD_COUNT: rejected.FIELD_COUNT.length, INVALID_NUMBER: rejected.INVALID_NUMBER.length });
    expect(await rejectedLinesIn(s3, summary.rejectsObjects)).toEqual(rejected);
    await expectTableHoldsExactly(dynamodb, table, good);
    console.info(JSON.stringify({ figures: 'in-process continuations', seconds: summary.seconds, segments: summary.segments, rowsRead: summary.rowsRead, rejectsObjects: summary.rejectsObjects.length }));

    // The same file in one segment gives the same books (into another table: another job).
    const single = summaryOf(await handler({ ...options, table: await createTable(dynamodb) }));
    expect(single.segments).toBe(1);
    expect(single.jobId).not.toBe(summary.jobId);
    expect(single).toMatchObject({ rowsRead: summary.rowsRead, written: summary.written, rejected: summary.rejected, rejectedByReason: summary.rejectedByReason });
  });

  it('goes on in the next invocation of its segment step when its Lambda time runs low', async () => {
    // 60.5 s per invocation with a 60 s margin: each invocation reads for about 0.5 s, then hands over. (On
    // dynalite, 25,000 rows took 1.3 s in all: the file is large enough for several invocations.)
    const { csv, good, rejected } = mixedCsv(40_000);
    const { table, invocations } = await importThroughSegments('invoke/input.csv', csv, 60_500, { timeMarginMs: 60_000, concurrency: 16 });
    expect(invocations.length).toBeGreaterThanOrEqual(2);
    const results = invocations.map((invocation) => invocation.result);
    expect(results.slice(0, -1).every((result) => result.done === false && result.checkpoint !== undefined)).toBe(true);
    const summary = summaryOf(results.at(-1).result);
    expect(summary.segments).toBe(invocations.length);
    expect(summary).toMatchObject({ rowsRead: 40_000, written: good.length, rejected: rejected.FIELD_COUNT.length + rejected.INVALID_NUMBER.length, balanced: true });
    expect(await rejectedLinesIn(s3, summary.rejectsObjects)).toEqual(rejected);
    await expectTableHoldsExactly(dynamodb, table, good);
    console.info(JSON.stringify({ figures: 'segments in invocations of their own', seconds: summary.seconds, invocations: invocations.length }));
  });
});

describe('the drain at the end of an invocation', () => {
  it('fits in the invocation: the reader stops early enough for the rows queued at the table\'s rate', async () => {
    // 100 WCU/s and a window of 16 calls: 400 rows queued take 4 s to write. An invocation has 8 s and
    // stops reading at 1 s left (timeMarginMs): reading until then and draining after took about 11 s.
    const { csv, good } = mixedCsv(1_500);
    const { table, invocations } = await importThroughSegments('drain/input.csv', csv, 8_000, { timeMarginMs: 1_000, maxWcu: 100, concurrency: 16 });
    const times = invocations.map((invocation) => Math.round(invocation.ms ?? Infinity));
    expect(times.every((ms) => ms < 8_000)).toBe(true);
    const summary = summaryOf(invocations.at(-1)?.result.result);
    expect(summary).toMatchObject({ rowsRead: 1_500, balanced: true });
    await expectTableHoldsExactly(dynamodb, table, good);
    console.info(JSON.stringify({ figures: 'drain within the invocation', invocationsMs: times }));
  });

  it('hands the rows of writes that do not end on to the next invocation, when the estimate was wrong', async () => {
    // Calls 30 to 45 are never answered (within requestTimeoutMs): the table stops answering after the
    // estimate was made. With a window of 8, every slot hangs, twice. Each invocation has 8 s, stops
    // reading at 4 s left, and at 2 s left (half the margin) gives its writes up: the rows still
    // unwritten go to the next invocation, which writes them before it reads on.
    const proxy = await dynamodbFaults({ hangCall: (call) => call >= 30 && call <= 45 });
    const { csv, good, rejected } = mixedCsv(3_000, { duplicates: true });
    const { table, invocations } = await importThroughSegments('abandon/input.csv', csv, 8_000, { timeMarginMs: 4_000, concurrency: 8, requestTimeoutMs: 60_000 });
    const times = invocations.map((invocation) => Math.round(invocation.ms ?? Infinity));
    expect(times.every((ms) => ms < 8_000)).toBe(true);
    const handedOn = invocations.map((invocation) => invocation.payload.segment.checkpoint?.replay?.rows ?? 0);
    expect(handedOn.filter((rows) => rows > 0).length).toBe(2);
    expect(proxy.counts.hangs).toBe(16);
    const summary = summaryOf(invocations.at(-1)?.result.result);
    expect(summary).toMatchObject({ rowsRead: 3_000, rejected: rejected.FIELD_COUNT.length + rejected.INVALID_NUMBER.length, balanced: true });
    expect(await rejectedLinesIn(s3, summary.rejectsObjects)).toEqual(rejected);
    await expectTableHoldsExactly(dynamodb, table, good);
    // A key written twice holds its later row: a replayed row never lands after a newer one.
    /** @type {Map<string, string>} */
    const latest = new Map();
    for (const row of /** @type {Array<{ id: string, name: string }>} */ (parse(csv, { columns: true, relax_column_count: true }))) if (good.includes(row.id)) latest.set(row.id, row.name);
    expect(new Map((await scanAll(dynamodb, table)).map((item) => [item.id.S, item.name.S]))).toEqual(latest);
    console.info(JSON.stringify({ figures: 'writes handed on', invocationsMs: times, handedOn }));
  });

  it('hands them on from the end of the file too: the next invocation only writes them', async () => {
    // 1,000 rows are 40 calls; the last 5 never answer, after the whole file was read.
    const proxy = await dynamodbFaults({ hangCall: (call) => call >= 36 && call <= 40 });
    const { csv, good } = mixedCsv(999);
    const { table, invocations } = await importThroughSegments('abandon/end.csv', csv, 6_000, { timeMarginMs: 4_000, concurrency: 8, requestTimeoutMs: 60_000 });
    expect(invocations.length).toBe(2);
    expect(invocations[1].payload.segment.checkpoint).toMatchObject({ byte: Buffer.byteLength(csv), replay: { rows: expect.any(Number) } });
    expect(proxy.counts.hangs).toBe(5);
    expect(summaryOf(invocations[1].result.result)).toMatchObject({ rowsRead: 999, written: good.length, balanced: true, segments: 2 });
    await expectTableHoldsExactly(dynamodb, table, good);
  });
});

describe('idempotent writes and job ids', () => {
  it('writes the same items when a file with generated keys is imported again, under the same job id', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'again/input.csv', 'name,city\nAnn,Paris\nBob,Rome\nAnn,Paris\n');
    const options = { bucket: TEST_BUCKET, key: 'again/input.csv', table, generateKey: true };
    const first = summaryOf(await handler(options));
    const second = summaryOf(await handler(options));
    expect(first).toMatchObject({ written: 3, balanced: true });
    expect(second.jobId).toBe(first.jobId);
    const items = await scanAll(dynamodb, table);
    expect(items.length).toBe(3);

    await upload(s3, 'again/input.csv', 'name,city\nCy,Oslo\n');
    const third = summaryOf(await handler(options));
    expect(third.jobId).not.toBe(first.jobId);
    expect((await scanAll(dynamodb, table)).length).toBe(4);
  });
});

describe('security', () => {
  it('writes only to its configured table unless another is allow-listed', async () => {
    const configured = await createTable(dynamodb);
    const other = await createTable(dynamodb);
    await upload(s3, 'allow/input.csv', 'id,v\na,1\n');
    process.env.TABLE_NAME = configured;
    const payload = { bucket: TEST_BUCKET, key: 'allow/input.csv', table: other };
    await expect(handler(payload)).rejects.toThrow(new RegExp(`"table": got "${other}"; this function writes only to its table "${configured}".*ALLOWED_TABLES`));
    expect(await scanAll(dynamodb, other)).toEqual([]);

    process.env.ALLOWED_TABLES = `some-other-table, ${other}`;
    expect(summaryOf(await handler(payload)).written).toBe(1);
    expect(summaryOf(await handler({ bucket: TEST_BUCKET, key: 'allow/input.csv' })).table).toBe(configured);
  });

  it('never logs row contents, even of rejected rows', async () => {
    const canary = 'CANARY-7f3a9c';
    const table = await createTable(dynamodb);
    const csv = `id,secret,n\n1,${canary},1\n2,${canary},${canary}\n${canary},x,2,extra\n3,"${canary}\n`;
    await upload(s3, 'canary/input.csv', csv);
    /** @type {string[]} */
    const output = [];
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      const spy = vi.spyOn(stream, 'write').mockImplementation((/** @type {any} */ chunk, /** @type {any[]} */ ...rest) => {
        output.push(String(chunk));
        return write(chunk, ...rest);
      });
      onCleanup(() => spy.mockRestore());
    }
    // Under vitest the logger writes through the global console (src/observe/logger.js): its lines too.
    for (const method of /** @type {const} */ (['log', 'info', 'warn', 'error', 'debug'])) {
      const spy = vi.spyOn(console, method).mockImplementation((/** @type {any[]} */ ...args) => void output.push(`${args.map(String).join(' ')}\n`));
      onCleanup(() => spy.mockRestore());
    }
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'canary/input.csv', table, columnTypes: 'n:N', logIntervalMs: 100 }));
    expect(summary).toMatchObject({ rowsRead: 4, written: 1, rejected: 3 });
    const lines = output.join('').split('\n').filter((line) => line !== '');
    expect(lines.some((line) => line.includes('"message":"summary"'))).toBe(true);
    expect(lines.filter((line) => line.includes(canary))).toEqual([]);
    // The rejects file, where row contents belong, does have them.
    expect((await readRejects(s3, summary.rejectsObjects[0])).flat().some((field) => field.includes(canary))).toBe(true);
  });
});

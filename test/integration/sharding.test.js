/**
 * Sharded jobs on the local servers: one file cut into byte ranges, each imported by its own worker
 * process, with job status in the bucket. Every good row lands once, rejects keep their true lines, a
 * killed worker's shard is re-run alone, and a job's maxWcu holds for all its shards together.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startCapacityModel } from '../../bench/capacity-model.js';
import { handler } from '../../src/handler.js';
import { MAX_SHARDS, resolveConfig } from '../../src/config/index.js';
import { planJob, shardCountFor, shardPayloads } from '../../src/plan/job-plan.js';
import { cutsAtKeyRuns } from '../../src/segment/key-runs.js';
import { readJobStatus } from '../../src/state/job-status.js';
import { bucketStore } from '../../src/state/output-store.js';
import { WCU_CAP_DEPTH_SECONDS } from '../../src/write/pace.js';
import { generatedCsv, mixedCsv, summaryOf } from '../support/imports.js';
import { createTable, expectTableHoldsExactly, readObject, rejectedLinesIn, scanAll, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';

const { env, dynamodb, s3 } = useLocalServers();
const run = promisify(execFile);

const onCleanup = useCleanups(env);

/** @param {unknown} result */
const jobSummaryOf = (result) => /** @type {import('../../src/state/job-status.js').JobStatus['total'] & { jobId: string, shards: number, started: number, alreadyDone: number }} */ (result);

describe('a sharded job', () => {
  it('fans a file with quoted newlines, bad rows and duplicate keys out over 8 worker processes: every good row once, rejects at their true lines', async () => {
    const table = await createTable(dynamodb);
    const { csv, good, rejected, goodRows } = mixedCsv(24_000, { duplicates: true });
    await upload(s3, 'sharded/mixed.csv', csv);

    const job = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/mixed.csv', table, columnTypes: 'n:N', shards: 8 }));

    const rejectedCount = rejected.FIELD_COUNT.length + rejected.INVALID_NUMBER.length;
    expect(job).toMatchObject({ shards: 8, started: 8, alreadyDone: 0, state: 'done', rowsRead: 24_000, rejected: rejectedCount, balanced: true });
    expect(job.written + job.duplicatesCollapsed).toBe(goodRows);
    expect(job.rejectedByReason).toEqual({ FIELD_COUNT: rejected.FIELD_COUNT.length, INVALID_NUMBER: rejected.INVALID_NUMBER.length });
    // Each shard that rejected something wrote its own rejects file, with the file's line numbers.
    expect(job.rejectsObjects.length).toBeGreaterThanOrEqual(2);
    expect(job.rejectsObjects.every((key) => key.includes(`/${job.jobId}/shard-`))).toBe(true);
    expect(await rejectedLinesIn(s3, job.rejectsObjects)).toEqual(rejected);
    await expectTableHoldsExactly(dynamodb, table, good);
    // The path of a job on AWS, run here: Plan's shard list, the map's results as a ResultWriter lays
    // them out, and Summarize's summary.json beside them.
    const shardList = (await readObject(s3, `_imports/${job.jobId}/shards.jsonl`)).trim().split('\n').map((line) => JSON.parse(line));
    expect(shardList.map((item) => item.shard.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(JSON.parse(await readObject(s3, `_imports/${job.jobId}/summary.json`))).toMatchObject({ state: 'done', shards: 8, rowsRead: 24_000, rejected: rejectedCount, balanced: true });

    // The status in the bucket says the same, shard by shard.
    const status = await readJobStatus(bucketStore(s3, TEST_BUCKET), '_imports/', job.jobId);
    expect(status?.plan?.shards.length).toBe(8);
    expect(status?.shards.map((shard) => shard.state)).toEqual(Array(8).fill('done'));
    expect(status?.shards.reduce((sum, shard) => sum + shard.rowsRead, 0)).toBe(24_000);
    expect(status?.plan?.header).toEqual(['id', 'name', 'n']);

    // npm run status prints the same, shard by shard.
    const { stdout } = await run(process.execPath, ['src/cli/main.js', 'status', job.jobId, '--bucket', TEST_BUCKET], { env: process.env });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe(`job ${job.jobId}  s3://${TEST_BUCKET}/sharded/mixed.csv  done  8 shards`);
    expect(lines.slice(2, 10).map((line) => line.split(/\s+/).slice(0, 2))).toEqual(Array.from({ length: 8 }, (_, i) => [String(i + 1), 'done']));
    expect(lines[10]).toMatch(new RegExp(`^total\\s+done\\s+24,000\\s+${job.written.toLocaleString('en-US')}\\s+${rejectedCount}\\s`));
    expect(lines[10]).toContain('books balanced');
    const byObject = await run(process.execPath, ['src/cli/main.js', 'status', `s3://${TEST_BUCKET}/sharded/mixed.csv`, '--table', table, '--json'], { env: process.env });
    expect(JSON.parse(byObject.stdout).total).toEqual(status?.total);

    // Run again, the job is done: nothing is started.
    const again = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/mixed.csv', table, columnTypes: 'n:N', shards: 8 }));
    expect(again).toMatchObject({ started: 0, alreadyDone: 8, state: 'done', rowsRead: 24_000 });
  });

  it('re-runs only the shard whose worker was killed, and ends with exact totals', async () => {
    const table = await createTable(dynamodb);
    const { csv, good, rejected, goodRows } = mixedCsv(40_000);
    await upload(s3, 'sharded/killed.csv', csv);
    const payload = { bucket: TEST_BUCKET, key: 'sharded/killed.csv', table, columnTypes: 'n:N', shards: 4, logIntervalMs: 100, concurrency: 4 };

    const firstRun = handler(payload).then(
      () => undefined,
      (/** @type {Error} */ error) => error,
    );
    // Kill one worker once its shard is under way (its status names its process).
    const victim = await waitFor(async () => {
      const plan = await findPlan('sharded/killed.csv');
      if (plan === undefined) return undefined;
      const status = await readJobStatus(bucketStore(s3, TEST_BUCKET), '_imports/', plan.jobId);
      return status?.shards.find((shard) => shard.state === 'running' && shard.written > 0 && shard.runner !== undefined && 'pid' in shard.runner);
    });
    process.kill(/** @type {{ pid: number }} */ (victim.runner).pid, 'SIGKILL');
    const error = await firstRun;
    expect(error?.message).toMatch(new RegExp(`1 of 4 shards did not finish \\(shard ${victim.shard + 1}: worker process exited with SIGKILL\\)`));

    const afterKill = await readJobStatus(bucketStore(s3, TEST_BUCKET), '_imports/', victim.jobId);
    expect(afterKill?.shards.map((shard) => shard.state)).toEqual([0, 1, 2, 3].map((i) => (i === victim.shard ? 'failed' : 'done')));
    expect(afterKill?.total.state).toBe('failed');

    const rerun = jobSummaryOf(await handler(payload));
    expect(rerun).toMatchObject({ started: 1, alreadyDone: 3, state: 'done', rowsRead: 40_000, written: goodRows, rejected: rejected.FIELD_COUNT.length + rejected.INVALID_NUMBER.length, balanced: true });
    expect(await rejectedLinesIn(s3, rerun.rejectsObjects)).toEqual(rejected);
    await expectTableHoldsExactly(dynamodb, table, good);
  });

  it('runs a gzip-compressed file as one import, says so, and continues it across segments with exact totals', async () => {
    const table = await createTable(dynamodb);
    const { csv, good, rejected } = mixedCsv(20_000);
    await upload(s3, 'sharded/mixed.csv.gz', gzipSync(csv));

    const result = /** @type {Record<string, any>} */ (await handler({ bucket: TEST_BUCKET, key: 'sharded/mixed.csv.gz', table, columnTypes: 'n:N', shards: 4, segmentMs: 300 }));
    expect(result.note).toBe('the file is gzip-compressed, which cannot be split: it ran as one shard');
    expect(result.segments).toBeGreaterThanOrEqual(3);
    expect(result).toMatchObject({ shards: 1, rowsRead: 20_000, written: good.length, rejected: rejected.FIELD_COUNT.length + rejected.INVALID_NUMBER.length, balanced: true });
    expect(await rejectedLinesIn(s3, result.rejectsObjects)).toEqual(rejected);
    await expectTableHoldsExactly(dynamodb, table, good);
  });

  it('shards a file past bytesPerShard, and leaves a smaller one whole', async () => {
    const table = await createTable(dynamodb);
    const csv = generatedCsv(12_000, 5);
    await upload(s3, 'sharded/auto.csv', csv);
    const bytesPerShard = 1 << 20;
    const job = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/auto.csv', table, bytesPerShard }));
    expect(job).toMatchObject({ shards: Math.ceil(Buffer.byteLength(csv) / bytesPerShard), state: 'done', rowsRead: 12_000, written: 12_000 });
    expect(job.shards).toBeGreaterThanOrEqual(2);

    await upload(s3, 'sharded/small.csv', generatedCsv(100, 5));
    const small = /** @type {Record<string, any>} */ (await handler({ bucket: TEST_BUCKET, key: 'sharded/small.csv', table, bytesPerShard }));
    expect(small).toMatchObject({ shards: 1, rowsRead: 100, written: 100 });
    expect(small.note).toBeUndefined();
  });

  it('imports the same file into a second table as a job of its own: the first table\'s finished shards are not the second\'s', async () => {
    const { csv } = mixedCsv(6_000);
    await upload(s3, 'sharded/two-tables.csv', csv);
    const first = await createTable(dynamodb);
    const second = await createTable(dynamodb);
    const one = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/two-tables.csv', table: first, columnTypes: 'n:N', shards: 3 }));
    const two = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/two-tables.csv', table: second, columnTypes: 'n:N', shards: 3 }));
    expect(two.jobId).not.toBe(one.jobId);
    expect(two).toMatchObject({ started: 3, alreadyDone: 0, state: 'done', rowsRead: one.rowsRead, written: one.written });
    expect((await scanAll(dynamodb, second)).length).toBe(one.written);
  });

  it('counts an earlier unsharded run of the same file as none of a later plan\'s shards', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'sharded/then.csv', generatedCsv(3_000, 8));
    expect(summaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/then.csv', table }))).toMatchObject({ rowsRead: 3_000, balanced: true });
    // Same object version, same job id: shard 0's status object holds the whole-file run's "done".
    const job = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/then.csv', table, shards: 3 }));
    expect(job).toMatchObject({ shards: 3, started: 3, alreadyDone: 0, state: 'done', rowsRead: 3_000, written: 3_000, balanced: true });
  });

  it('splits the job maxWcu across its shards, so that together they stay under it', async () => {
    const model = await startCapacityModel({});
    onCleanup(() => model.stop());
    process.env.DYNAMODB_ENDPOINT = model.endpoint;
    await upload(s3, 'sharded/capped.csv', generatedCsv(24_000, 3));

    const maxWcu = 6_000;
    const job = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/capped.csv', table: 'capped-table', shards: 4, maxWcu }));
    expect(job).toMatchObject({ state: 'done', rowsRead: 24_000, written: 24_000, balanced: true });

    const { totals, perSecond } = model.stats();
    expect(totals.items).toBe(24_000);
    const first = perSecond.findIndex((second) => second.wcu > 0);
    const busySeconds = perSecond.slice(first);
    console.info(JSON.stringify({ figures: 'job maxWcu over 4 shards', maxWcu, perShard: maxWcu / 4, wcuPerSecond: busySeconds.map((second) => second.wcu) }));
    // By the end of each second since the first write, the shards together consumed at most the cap's
    // worth, plus what each shard's bucket holds (WCU_CAP_DEPTH_SECONDS of its share) and one call each.
    // Cumulative, because the model (in this busy process) may count a request a little late, never
    // early: up to a quarter of a second late is allowed, so writes made just before the first counted
    // second may land in it (seen once: [6950, 6000, 6000, 5050]). A split that failed (each shard at
    // the job's cap) would consume 4 x 6,000 a second, far past this.
    const allowance = 4 * ((maxWcu / 4) * WCU_CAP_DEPTH_SECONDS + 25) + maxWcu / 4;
    let consumed = 0;
    for (const [k, second] of busySeconds.entries()) {
      consumed += second.wcu;
      expect(consumed).toBeLessThanOrEqual((k + 1) * maxWcu + allowance);
    }
    // And it took at least the time the cap allows.
    expect(busySeconds.length).toBeGreaterThanOrEqual(Math.floor(totals.wcu / maxWcu));
  });

  it('holds a job-wide cap smaller than a call: each shard sends calls small enough for its share (issue 35, defect 6)', async () => {
    const model = await startCapacityModel({});
    onCleanup(() => model.stop());
    process.env.DYNAMODB_ENDPOINT = model.endpoint;
    await upload(s3, 'sharded/small-cap.csv', generatedCsv(60, 4));

    // Four shards sharing 10 WCU/s: each one's share is 2; calls of 25 sent 99 WCU in the first second.
    const maxWcu = 10;
    const job = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/small-cap.csv', table: 'small-cap-table', shards: 4, maxWcu }));
    expect(job).toMatchObject({ state: 'done', written: 60, balanced: true });
    const { totals, perSecond } = model.stats();
    expect(totals.wcu).toBe(60);
    const busy = perSecond.slice(perSecond.findIndex((second) => second.wcu > 0)).map((second) => second.wcu);
    console.info(JSON.stringify({ figures: 'job maxWcu 10 over 4 shards', wcuPerSecond: busy }));
    // Within 1.05 x the cap plus one item in every second.
    expect(Math.max(...busy)).toBeLessThanOrEqual(1.05 * maxWcu + 1);
  });

  it('never cuts a run of one key between shards: put, if-absent and update end as a sequential reading (issue 46, 2)', async () => {
    // Sorted by key, 200 rows of k0500 straddling the middle, where the planner cuts 2 shards (and every
    // cut of 4 and 8 lands in some run); a rejected row inside the run does not end it.
    /** @type {string[]} */
    const rows = [];
    for (let k = 0; k < 1_000; k++) {
      const id = `k${String(k).padStart(4, '0')}`;
      const count = k === 500 ? 200 : 1 + (k % 3);
      for (let v = 0; v < count; v++) rows.push(k === 500 && v === 100 ? `${id},x,bad` : `${id},${v},row ${v}`);
    }
    const csv = `id,v,name\n${rows.join('\n')}\n`;
    const half = csv.length / 2;
    expect(csv.indexOf('k0500') < half && csv.lastIndexOf('k0500') > half).toBe(true);
    await upload(s3, 'sharded/runs.csv', csv);
    /** The last row of each key (the first under if-absent), as a sequential reading leaves the table. @param {'last' | 'first'} which */
    const expected = (which) => {
      /** @type {Map<string, string>} */
      const held = new Map();
      for (const row of rows) {
        const [id, v] = row.split(',');
        if (v === 'x' || (which === 'first' && held.has(id))) continue;
        held.set(id, v);
      }
      return held;
    };
    for (const [writeMode, shards, which] of /** @type {Array<['put' | 'if-absent' | 'update', number, 'last' | 'first']>} */ ([['put', 2, 'last'], ['if-absent', 4, 'first'], ['update', 8, 'last']])) {
      const table = await createTable(dynamodb);
      const job = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/runs.csv', table, columnTypes: 'v:N', shards, writeMode, runId: writeMode }));
      expect(job).toMatchObject({ state: 'done', rowsRead: rows.length, rejected: 1, balanced: true });
      const items = await scanAll(dynamodb, table);
      expect(new Map(items.map((item) => [item.id.S, item.v.N])), `${writeMode} over ${shards} shards`).toEqual(expected(which));
      const status = await readJobStatus(bucketStore(s3, TEST_BUCKET), '_imports/', job.jobId);
      // No key in two shards: each shard's range starts where a new key does.
      for (const shard of status?.plan?.shards.slice(1) ?? []) {
        const before = csv.slice(0, shard.start).trimEnd().split('\n').at(-1)?.split(',')[0];
        expect(csv.slice(shard.start, shard.start + 5), `the cut at byte ${shard.start}`).not.toBe(before);
      }
    }
  });

  it('joins a shard that lies inside one run of a key to the shard before, and cuts JSON Lines between runs too', async () => {
    const table = await createTable(dynamodb);
    // One key over the second half of the file: of 3 planned shards, the third starts inside its run.
    const lines = [...Array.from({ length: 500 }, (_, i) => ({ id: `a${i}`, v: i })), ...Array.from({ length: 500 }, (_, v) => ({ id: 'z', v }))];
    await upload(s3, 'sharded/one-run.jsonl', `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const job = jobSummaryOf(await handler({ bucket: TEST_BUCKET, key: 'sharded/one-run.jsonl', table, shards: 3 }));
    expect(job).toMatchObject({ state: 'done', rowsRead: 1_000, shards: 2, balanced: true });
    const status = await readJobStatus(bucketStore(s3, TEST_BUCKET), '_imports/', job.jobId);
    expect(status?.plan?.note).toMatch(/1 of the 3 planned shards lay inside a run of one key \(or of rows the import rejects\) and were joined to the shard before/);
    const items = await scanAll(dynamodb, table);
    expect(items.find((item) => item.id.S === 'z')?.v.N).toBe('499');
    expect(items).toHaveLength(501);
  });

  it('refuses a bad header when it plans, is planned anew when a re-run changes its options before any shard has started, and refuses other options once shards have', async () => {
    const table = await createTable(dynamodb);
    const csv = mixedCsv(4_000).csv.replaceAll(',', ';');
    await upload(s3, 'sharded/semicolons.csv', csv);
    const options = { bucket: TEST_BUCKET, key: 'sharded/semicolons.csv', table, columnTypes: 'n:N', shards: 2 };
    // With the wrong delimiter the header is one column without the key: the job fails as it plans, before any shard starts.
    await expect(handler({ ...options, delimiter: ',' })).rejects.toThrow(/Invalid option "keyColumn": got "id"; .*the header has no column "id"; the first line has 1 column/);
    // A plan left by a run whose shards never started (cut into 3) gives way to the next run's options.
    await planJob(resolveConfig({ ...options, delimiter: ';', shards: 3 }, process.env), { s3, dynamodb }, bucketStore(s3, TEST_BUCKET), { cutsAtKeyRuns });
    const job = jobSummaryOf(await handler({ ...options, delimiter: ';' }));
    expect(job).toMatchObject({ state: 'done', rowsRead: 4_000, balanced: true, started: 2 });
    const status = await readJobStatus(bucketStore(s3, TEST_BUCKET), '_imports/', job.jobId);
    expect(status?.plan?.header).toEqual(['id', 'name', 'n']);
    await expect(handler({ ...options, delimiter: ';', shards: 3 })).rejects.toThrow(/Invalid option "shards": got 3; job .* was planned with shards 2 and 2 of its 2 shards have started; run it again with shards 2/);
  });
});

describe('a shard whose run was killed without a word', () => {
  it('shows as lost once its status is older than its heartbeat allows, and a re-run takes it over; a live one is left alone', async () => {
    const table = await createTable(dynamodb);
    const { csv, goodRows } = mixedCsv(3_000);
    await upload(s3, 'sharded/lost.csv', csv);
    const options = { bucket: TEST_BUCKET, key: 'sharded/lost.csv', table, columnTypes: 'n:N', shards: 2 };
    const first = jobSummaryOf(await handler(options));
    expect(first.state).toBe('done');
    const statusKey = `_imports/${first.jobId}/shard-0002.json`;
    const done = JSON.parse(await readObject(s3, statusKey));
    // As a run killed mid-way leaves it: running, last updated ten minutes ago, heartbeat one second. Its
    // runner is elsewhere (a Lambda's), so only the silence tells (a process of this host that is gone is
    // lost at once: test/integration/cli.test.js).
    const elsewhere = { logGroup: '/aws/lambda/f', logStream: '2026/11/26/[$LATEST]0123' };
    await upload(s3, statusKey, JSON.stringify({ ...done, state: 'running', runner: elsewhere, updatedAt: new Date(Date.now() - 600_000).toISOString(), heartbeatMs: 1_000 }));
    const lost = await readJobStatus(bucketStore(s3, TEST_BUCKET), '_imports/', first.jobId);
    expect(lost?.shards[1]).toMatchObject({ state: 'lost', error: expect.stringMatching(/no status update for \d+ s: the run was killed or timed out/) });
    expect(lost?.total.state).toBe('lost');
    const rerun = jobSummaryOf(await handler(options));
    expect(rerun).toMatchObject({ state: 'done', started: 1, alreadyDone: 1, balanced: true });
    expect(rerun.written + rerun.duplicatesCollapsed).toBe(goodRows);

    // A running shard that is alive (updated just now) is not started a second time.
    await upload(s3, statusKey, JSON.stringify({ ...done, state: 'running', runner: elsewhere, updatedAt: new Date().toISOString(), heartbeatMs: 1_000 }));
    await expect(handler(options)).rejects.toThrow(/1 of 2 shards did not finish \(shard 2: running\)/);
  });
});

describe('shardPayloads and shardCountFor', () => {
  const plan = /** @type {import('../../src/state/job-status.js').JobPlan} */ ({
    jobId: 'j', bucket: 'b', key: 'k', etag: 'e', bytes: 800, header: ['id'], createdAt: '',
    shards: Array.from({ length: 8 }, (_, index) => ({ index, start: 1 + index * 100, end: 101 + index * 100, line: 1 + index })),
  });

  it('gives each shard its share of the job cap, wherever the cap came from', () => {
    // The cap in the payload, or only in MAX_WCU: each shard carries 800 / 8 either way, never the whole cap.
    for (const payload of [{ bucket: 'b', key: 'k', shards: 8, maxWcu: 800 }, { bucket: 'b', key: 'k', shards: 8 }]) {
      const payloads = shardPayloads(payload, plan, 800);
      expect(payloads.map((shard) => shard.maxWcu)).toEqual(Array(8).fill(100));
      expect(payloads.every((shard) => shard.shards === undefined)).toBe(true);
    }
    expect(shardPayloads({ bucket: 'b', key: 'k', maxWcu: 800 }, plan, undefined).every((shard) => shard.maxWcu === undefined)).toBe(true);
  });

  it('caps the shards bytesPerShard asks for at MAX_SHARDS, and says so', () => {
    expect(shardCountFor({ shards: 1, bytesPerShard: 1 << 20 }, 5 * 2 ** 30)).toEqual({ wanted: MAX_SHARDS, capped: `bytesPerShard 1048576 asks for 5120 shards; a job has at most ${MAX_SHARDS}` });
    expect(shardCountFor({ shards: 1, bytesPerShard: 1 << 20 }, 3 * 2 ** 20)).toEqual({ wanted: 3 });
    expect(shardCountFor({ shards: 4, bytesPerShard: undefined }, 100)).toEqual({ wanted: 4 });
  });
});

/** @param {string} key */
async function findPlan(key) {
  const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: TEST_BUCKET, Prefix: '_imports/' }));
  for (const object of listed.Contents ?? []) {
    if (!object.Key?.endsWith('/plan.json')) continue;
    const plan = JSON.parse(await readObject(s3, object.Key));
    if (plan.key === key) return /** @type {import('../../src/state/job-status.js').JobPlan} */ (plan);
  }
  return undefined;
}

/**
 * @template T
 * @param {() => Promise<T | undefined>} probe
 * @returns {Promise<T>}
 */
async function waitFor(probe, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`waited ${timeoutMs} ms in vain`);
}

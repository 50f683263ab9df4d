/**
 * Jobs on AWS Step Functions, offline: the deployed state machine's definition run on an emulator of the
 * States language (test/support/local-state-machine.js says what it stands in for), its Plan,
 * ImportSegment and Summarize tasks bound to the project's own steps against the local servers.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { countItems } from '../../local/servers.js';
import { handler } from '../../src/handler.js';
import { planStep, segmentStep, summarizeStep } from '../../src/dispatch/step-functions/steps.js';
import { logger } from '../../src/observe/logger.js';
import { EVENTS_PER_CHILD, EVENTS_PER_SEGMENT } from '../../src/dispatch/step-functions/limits.js';
import { createLocalStateMachine, LOCAL_MAP_RUN } from '../support/local-state-machine.js';
import { writeResultsAsAws } from '../support/result-writer.js';
import { HISTORY_EVENTS, STATE_DATA_BYTES } from '../support/sfn-limits.js';
import { createTable, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const { dynamodb, s3 } = useLocalServers();

/** A CSV of `rows` rows with unique ids. @param {number} rows */
function peopleCsv(rows) {
  const lines = ['id,name,balance'];
  for (let i = 0; i < rows; i++) lines.push(`p${i},name ${i},${i % 1000}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The steps as the functions run them, with a hook before each segment (a fault to inject), and the
 * segments each shard ran.
 * @param {(shard: number, call: number) => void | Promise<void>} [beforeSegment]
 */
function stepsWith(beforeSegment = () => {}) {
  /** @type {Map<number, number>} */
  const calls = new Map();
  const running = { now: 0, most: 0 };
  const env = process.env;
  return {
    calls,
    running,
    steps: {
      // As the deployed functions run them (src/handler.js): the header by reference.
      plan: (/** @type {any} */ event) => planStep(event.job, { env, headerByRef: true }),
      async segment(/** @type {any} */ event) {
        const shard = event.shard.shard?.index ?? 0;
        const call = (calls.get(shard) ?? 0) + 1;
        calls.set(shard, call);
        running.most = Math.max(running.most, ++running.now);
        try {
          await beforeSegment(shard, call);
          return await segmentStep(event, { logger, env, context: undefined, headerByRef: true });
        } finally {
          running.now--;
        }
      },
      summarize: (/** @type {any} */ event) => summarizeStep(event, { logger, env }),
    },
  };
}

/** @param {string} key */
async function readJson(key) {
  const body = await (await s3.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: key }))).Body?.transformToString();
  return JSON.parse(body ?? 'null');
}

describe('a job on the state machine', () => {
  it('plans 4 shards, runs them 2 at a time, each in segments, and sums exact books; a throttled invocation is retried', async () => {
    const table = await createTable(dynamodb);
    const rows = 12_000;
    await upload(s3, 'sfn/people.csv', peopleCsv(rows));
    // Shard 2's first invocation is throttled by Lambda: the Retry sends it again.
    const { steps, calls, running } = stepsWith((shard, call) => {
      if (shard === 2 && call === 1) throw Object.assign(new Error('Rate exceeded'), { name: 'Lambda.TooManyRequestsException' });
    });
    const machine = createLocalStateMachine({ s3, bucket: TEST_BUCKET, steps });
    const job = { bucket: TEST_BUCKET, key: 'sfn/people.csv', table, shards: 4, shardConcurrency: 2, maxWcu: 8_000, segmentMs: 150 };

    const summary = /** @type {any} */ (await machine.run(job));

    expect(summary).toMatchObject({ state: 'done', shards: 4, rowsRead: rows, written: rows, rejected: 0, balanced: true });
    expect(await countItems(dynamodb, table)).toBe(rows);
    // Two shards at a time (the Map's MaxConcurrency), each with half the job's maxWcu.
    expect(running.most).toBe(2);
    // The shard list the Map read: one JSON object a line, each a shard's payload with its range and the job's options.
    const lines = (await (await s3.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `_imports/${summary.jobId}/shards.jsonl` }))).Body?.transformToString())?.trim().split('\n') ?? [];
    expect(lines.map((line) => JSON.parse(line).shard.index)).toEqual([0, 1, 2, 3]);
    expect(JSON.parse(lines[1])).toMatchObject({ table, bucket: TEST_BUCKET, key: 'sfn/people.csv', segmentMs: 150, maxWcu: 4_000, shard: { jobId: summary.jobId, index: 1, count: 4 } });
    // The results as the ResultWriter lays them out, and a shard that took three segments or more.
    const succeeded = await readJson(`_imports/${summary.jobId}/results/${LOCAL_MAP_RUN}/SUCCEEDED_0.json`);
    expect(succeeded).toHaveLength(4);
    expect(Math.max(...succeeded.map((/** @type {any} */ record) => JSON.parse(record.Output).segments))).toBeGreaterThanOrEqual(3);
    expect(calls.get(2)).toBeGreaterThan(JSON.parse(succeeded[2].Output).segments);
    expect(await readJson(`_imports/${summary.jobId}/summary.json`)).toMatchObject({ rowsRead: rows, written: rows, balanced: true });
  });

  it('plans a big object over many invocations of Plan, each stopping when its time is up, to the plan one invocation makes (issue 47, 3)', async () => {
    const table = await createTable(dynamodb);
    const rows = 40_000;
    await upload(s3, 'sfn/plan-loop.csv', peopleCsv(rows));
    const { steps } = stepsWith();
    // Each Plan invocation is left no time past timeMarginMs: it reads one chunk past its last boundary, keeps how far it got, and answers planning.
    let plans = 0;
    const env = process.env;
    steps.plan = (/** @type {any} */ event) => {
      plans++;
      return planStep(event.job, { env, context: { getRemainingTimeInMillis: () => 60_000, invokedFunctionArn: 'local' } });
    };
    const machine = createLocalStateMachine({ s3, bucket: TEST_BUCKET, steps });
    const job = { bucket: TEST_BUCKET, key: 'sfn/plan-loop.csv', table, shards: 4 };
    const summary = /** @type {any} */ (await machine.run(job));
    expect(summary).toMatchObject({ state: 'done', shards: 4, rowsRead: rows, written: rows, balanced: true });
    expect(await countItems(dynamodb, table)).toBe(rows);
    expect(plans).toBeGreaterThan(3);
    // The same shards as one invocation's plan of the object.
    const looped = await readJson(`_imports/${summary.jobId}/plan.json`);
    await upload(s3, 'sfn/plan-once.csv', peopleCsv(rows));
    const once = await planStep({ ...job, key: 'sfn/plan-once.csv' }, { env });
    expect('planning' in once).toBe(false);
    const oncePlan = await readJson(`_imports/${once.jobId}/plan.json`);
    expect(looped.shards.map((/** @type {any} */ shard) => [shard.start, shard.end, shard.line])).toEqual(oncePlan.shards.map((/** @type {any} */ shard) => [shard.start, shard.end, shard.line]));
  });

  it('stops planning at once when the job is stopped (Ctrl-C), keeping how far it got (review of issue 46)', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'sfn/plan-stop.csv', peopleCsv(40_000));
    const job = { bucket: TEST_BUCKET, key: 'sfn/plan-stop.csv', table, shards: 4 };
    const paused = await planStep(job, { env: process.env, stop: AbortSignal.abort() });
    expect(paused).toMatchObject({ planning: true });
    const { runJob } = await import('../../src/handler.js');
    const { resolveConfig } = await import('../../src/config/index.js');
    await expect(runJob(job, resolveConfig(job, process.env), undefined, { stop: AbortSignal.abort() })).rejects.toThrow(/stopped \(Ctrl-C\) while planning; run the same command again: the plan goes on from where it stopped/);
    // The next run goes on from the progress and finishes.
    const summary = /** @type {any} */ (await handler(job));
    expect(summary).toMatchObject({ state: 'done', rowsRead: 40_000, balanced: true });
  });

  it('fails the job with the shard that fails for good, and a redrive runs only that shard to the end', async () => {
    const table = await createTable(dynamodb);
    // Enough rows that each shard takes several segments of 100 ms on any machine (dynalite takes some
    // 10,000 rows a second): shard 1 must reach its second segment to fail there (with 4,000 rows, a fast
    // run finished it in one).
    const rows = 12_000;
    await upload(s3, 'sfn/redrive.csv', peopleCsv(rows));
    let broken = true;
    const { steps, calls } = stepsWith((shard, call) => {
      // Shard 1 fails in its second segment (a table gone, say) until it is fixed.
      if (shard === 1 && call >= 2 && broken) throw Object.assign(new Error('the table is being deleted'), { name: 'TableError' });
    });
    const machine = createLocalStateMachine({ s3, bucket: TEST_BUCKET, steps });
    const job = { bucket: TEST_BUCKET, key: 'sfn/redrive.csv', table, shards: 3, segmentMs: 100 };

    const failure = await machine.run(job).catch((/** @type {Error} */ error) => error);
    expect(String(failure)).toMatch(/1 of 3 shards failed: TableError/);
    expect(machine.failed()).toEqual([1]);
    const before = new Map(calls);

    broken = false;
    const summary = /** @type {any} */ (await machine.redrive());

    expect(summary).toMatchObject({ state: 'done', shards: 3, rowsRead: rows, written: rows, balanced: true });
    expect(await countItems(dynamodb, table)).toBe(rows);
    // Only the failed shard ran again, from the checkpoint of the segment before the failure.
    expect(calls.get(0)).toBe(before.get(0));
    expect(calls.get(2)).toBe(before.get(2));
    expect(/** @type {number} */ (calls.get(1))).toBeGreaterThan(/** @type {number} */ (before.get(1)));
  });
});

describe('what a job on the state machine refuses', () => {
  it('a dry run, in Plan and in ImportSegment: it would write the rows it was asked only to read', async () => {
    const job = { bucket: TEST_BUCKET, key: 'sfn/any.csv', table: 'People', dryRun: true };
    await expect(planStep(job, { env: process.env })).rejects.toThrow(/a dry run runs in one invocation of the import function/);
    await expect(segmentStep({ shard: job, segment: { done: false } }, { logger, env: process.env, context: undefined })).rejects.toThrow(/a dry run runs in one invocation/);
  });

  it('a sharded job in a Lambda deployed without its state machine, before anything is read', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'csv-import-test-import';
    try {
      const context = { invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:csv-import-test-import', getRemainingTimeInMillis: () => 900_000 };
      await expect(handler({ bucket: TEST_BUCKET, key: 'sfn/missing.csv', table: 'People', shards: 4 }, /** @type {any} */ (context))).rejects.toThrow(/a sharded job on AWS runs as an execution of the stack's state machine/);
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });
});

/**
 * A CSV whose header line (its LF included) is exactly `bytes` long, the widest a planner accepts at
 * 262,144, and `rows` rows with a value in every column.
 * @param {number} bytes @param {number} rows
 */
function wideCsv(bytes, rows) {
  const names = ['id'];
  let length = 'id'.length + 1;
  for (let i = 0; length + 8 <= bytes; i++) {
    names.push(`c${String(i).padStart(6, '0')}`);
    length += 8;
  }
  // The last name takes up what is left, so that the line is exactly `bytes` long.
  if (length < bytes) names[names.length - 1] += 'x'.repeat(bytes - length);
  const lines = [names.join(',')];
  for (let r = 0; r < rows; r++) lines.push([`w${r}`, ...names.slice(1).map(() => '')].join(','));
  return `${lines.join('\n')}\n`;
}

/** Steps of no I/O around a segment step of the test's: Plan and Summarize the project's. @param {(event: any) => Promise<any>} segment */
function withSegment(segment) {
  const env = process.env;
  return {
    plan: (/** @type {any} */ event) => planStep(event.job, { env, headerByRef: true }),
    segment,
    summarize: async () => ({ state: 'done' }),
  };
}

describe("Step Functions' limits, as the local machine enforces them", () => {
  it('a state past 256 KiB fails its child with States.DataLimitExceeded, not retried, and again on redrive', async () => {
    await upload(s3, 'sfn/limit.csv', peopleCsv(10));
    let calls = 0;
    const machine = createLocalStateMachine({
      s3,
      bucket: TEST_BUCKET,
      steps: withSegment(async () => {
        calls++;
        return { done: true, result: { padding: 'x'.repeat(STATE_DATA_BYTES) } };
      }),
    });
    const job = { bucket: TEST_BUCKET, key: 'sfn/limit.csv', table: 'People' };
    await expect(machine.run(job)).rejects.toThrow(/1 of 1 shards failed: States.DataLimitExceeded/);
    expect(calls).toBe(1);
    expect(machine.children().get(0)).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded', cause: expect.stringMatching(/the result of ImportSegment is 262\d{3} bytes, past Step Functions' 262144/) });
    await expect(machine.redrive()).rejects.toThrow(/1 of 1 shards failed: States.DataLimitExceeded/);
    expect(calls).toBe(2);
  });

  it(`counts a child's history as AWS does: its last segment within ${HISTORY_EVENTS} events succeeds, one more fails it for good`, async () => {
    await upload(s3, 'sfn/history.csv', peopleCsv(10));
    // 4 + 9 a segment: 2,777 segments are 24,997 events; 2,778 would be 25,006.
    const fits = Math.floor((HISTORY_EVENTS - EVENTS_PER_CHILD) / EVENTS_PER_SEGMENT);
    /** @param {number} segments */
    const loop = (segments) =>
      createLocalStateMachine({
        s3,
        bucket: TEST_BUCKET,
        steps: withSegment(async (event) => {
          const n = (event.segment.checkpoint?.n ?? 0) + 1;
          return n === segments ? { done: true, result: { segments: n } } : { done: false, checkpoint: { n } };
        }),
      });
    const job = { bucket: TEST_BUCKET, key: 'sfn/history.csv', table: 'People' };

    const within = loop(fits);
    await within.run(job);
    expect(within.children().get(0)).toMatchObject({ status: 'SUCCEEDED', events: EVENTS_PER_CHILD + EVENTS_PER_SEGMENT * fits, output: { segments: fits } });

    const past = loop(fits + 1);
    await expect(past.run(job)).rejects.toThrow(/1 of 1 shards failed: States.Runtime/);
    expect(past.children().get(0)).toMatchObject({ status: 'FAILED', redrivable: false, cause: expect.stringMatching(/history passed Step Functions' 25000 events/) });
    // AWS does not redrive an execution past its history limit: the job fails again at once.
    await expect(past.redrive()).rejects.toThrow(/1 of 1 shards failed: States.Runtime/);
  }, 120_000);

  it('a hung invocation fails its child at the Task\'s TimeoutSeconds (States.Timeout); a redrive runs it again', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'sfn/timeout.csv', peopleCsv(2_000));
    let hang = true;
    const { steps } = stepsWith(async (shard) => {
      // Shard 2's first invocation hangs past its time-out, then ends without writing (Lambda's would run on).
      if (shard === 1 && hang) {
        hang = false;
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        throw new Error('the hung invocation ended');
      }
    });
    // A second of TimeoutSeconds lasts 3 ms here: the Task's 960 s are 2.88 s.
    const machine = createLocalStateMachine({ s3, bucket: TEST_BUCKET, steps, secondMs: 3 });
    const job = { bucket: TEST_BUCKET, key: 'sfn/timeout.csv', table, shards: 2 };
    await expect(machine.run(job)).rejects.toThrow(/1 of 2 shards failed: States.Timeout/);
    expect(machine.children().get(1)).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(await machine.redrive()).toMatchObject({ state: 'done', rowsRead: 2_000, written: 2_000, balanced: true });
    expect(await countItems(dynamodb, table)).toBe(2_000);
  }, 60_000);

  it('the widest header the importer accepts (262,144 bytes) runs in shards of many segments, the header by reference', async () => {
    const table = await createTable(dynamodb);
    const rows = 160;
    await upload(s3, 'sfn/wide.csv', wideCsv(262_144, rows));
    const { steps, calls } = stepsWith();
    const machine = createLocalStateMachine({ s3, bucket: TEST_BUCKET, steps });
    const job = { bucket: TEST_BUCKET, key: 'sfn/wide.csv', table, shards: 2, segmentMs: 100 };

    const summary = /** @type {any} */ (await machine.run(job));

    expect(summary).toMatchObject({ state: 'done', shards: 2, rowsRead: rows, written: rows, rejected: 0, balanced: true });
    expect(await countItems(dynamodb, table)).toBe(rows);
    const children = [...machine.children().values()];
    // Every state of every child stays far below 256 KiB: the header (some 295 KB as JSON) is an object's key.
    const largest = Math.max(...children.map((child) => child.largest));
    expect(largest).toBeLessThan(8_192);
    expect([...calls.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(2);
    const lines = (await (await s3.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `_imports/${summary.jobId}/shards.jsonl` }))).Body?.transformToString())?.trim().split('\n') ?? [];
    expect(JSON.parse(lines[1]).shard.headerRef).toEqual({ bucket: TEST_BUCKET, key: expect.stringMatching(new RegExp(`^_imports/${summary.jobId}/header-[0-9a-f]{32}\\.json$`)) });
    process.stdout.write(`widest header: largest child state ${largest} bytes, ${[...calls.values()].join(' + ')} segments\n`);
  }, 120_000);
});

describe("Summarize on the Map's results as AWS's ResultWriter writes them", () => {
  /** A shard's summary as a child's output. @param {number} rows */
  const shardResult = (rows) => ({ state: 'done', rowsRead: rows, written: rows, deleted: 0, rejected: 0, duplicatesCollapsed: 0, skipped: 0, retries: 0, throttledItems: 0, throttledCalls: 0, transientErrors: 0, wcuConsumed: rows, calls: 1, rejectedByReason: {}, throttledCallsByReason: {}, seconds: 1, rowsPerSecond: rows, balanced: true, segments: 1, reopens: 0, rejectsObjects: [], rejectSample: [] });
  /** A child as the harness knows it. @param {number} index @param {Partial<import('../support/result-writer.js').ChildRun>} rest */
  const child = (index, rest) => ({ name: `c0ffee00-0000-4000-8000-00000000000${index}`, input: JSON.stringify({ shard: { table: 'People', shard: { index } }, segment: { done: false } }), status: 'SUCCEEDED', startDate: new Date(), stopDate: new Date(), redriveCount: 0, redrivable: true, ...rest });
  const mapRunArn = 'arn:aws:states:us-east-1:000000000000:mapRun:job/Shards:ad9b5f27-090b-3ac6-9beb-243cd77144a7';

  it('adds up children in any order, over several files, and names a failed one by its shard', async () => {
    const results = await writeResultsAsAws(s3, { bucket: TEST_BUCKET, prefix: '_imports/aws-format/results', mapRunArn, recordsPerFile: 1 }, [
      child(2, { output: shardResult(30), stopDate: new Date(1) }),
      child(0, { output: shardResult(10), stopDate: new Date(2) }),
      child(1, { status: 'FAILED', error: 'TableError', cause: JSON.stringify({ errorType: 'TableError', errorMessage: 'the table is being deleted', trace: [] }) }),
    ]);
    expect(results.ResultWriterDetails.Key).toBe('_imports/aws-format/results/ad9b5f27-090b-3ac6-9beb-243cd77144a7/manifest.json');
    const manifest = await readJson(results.ResultWriterDetails.Key);
    expect(manifest.ResultFiles).toMatchObject({ SUCCEEDED: [{ Key: expect.stringMatching(/SUCCEEDED_0\.json$/) }, { Key: expect.stringMatching(/SUCCEEDED_1\.json$/) }], FAILED: [{ Key: expect.stringMatching(/FAILED_0\.json$/) }], PENDING: [] });

    const summary = /** @type {any} */ (await summarizeStep({ jobId: 'aws-format', job: { bucket: TEST_BUCKET, key: 'sfn/any.csv', table: 'People' }, shards: 3, results }, { logger, env: process.env }));
    expect(summary).toMatchObject({ state: 'failed', rowsRead: 40, written: 40, balanced: false, failedShards: [{ shard: 1, error: 'TableError', cause: 'the table is being deleted' }] });
  });

  it('counts a succeeded child whose output the ResultWriter left out as a shard with no result, never as done', async () => {
    const results = await writeResultsAsAws(s3, { bucket: TEST_BUCKET, prefix: '_imports/aws-format-2/results', mapRunArn }, [child(0, { output: shardResult(10) }), child(1, { output: shardResult(20), outputIncluded: false })]);
    const summary = /** @type {any} */ (await summarizeStep({ jobId: 'aws-format-2', job: { bucket: TEST_BUCKET, key: 'sfn/any.csv', table: 'People' }, shards: 2, results }, { logger, env: process.env }));
    expect(summary).toMatchObject({ state: 'failed', rowsRead: 10, balanced: false, missingResults: expect.stringMatching(/^1 of the 2 planned shards have no result/) });
  });
});

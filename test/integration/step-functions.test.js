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
import { createLocalStateMachine, LOCAL_MAP_RUN } from '../support/local-state-machine.js';
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
 * @param {(shard: number, call: number) => void} [beforeSegment]
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
      plan: (/** @type {any} */ event) => planStep(event.job, { env }),
      async segment(/** @type {any} */ event) {
        const shard = event.shard.shard?.index ?? 0;
        const call = (calls.get(shard) ?? 0) + 1;
        calls.set(shard, call);
        running.most = Math.max(running.most, ++running.now);
        try {
          beforeSegment(shard, call);
          return await segmentStep(event, { logger, env, context: undefined });
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

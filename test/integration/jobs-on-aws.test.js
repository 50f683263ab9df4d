/**
 * The command line's jobs on AWS: `ddbload import --on-aws`, `status --on-aws` and `redrive`, run as a
 * person runs them, against the Step Functions API of a stack served offline (test/support/sfn-endpoint.js:
 * each execution runs the job's definition on the States-language emulator, its tasks the project's own
 * steps against the local servers), the SDK pointed there by AWS_ENDPOINT_URL_SFN.
 */
import { describe, expect, it } from 'vitest';
import { countItems } from '../../local/servers.js';
import { planStep, segmentStep, summarizeStep } from '../../src/dispatch/step-functions/steps.js';
import { logger } from '../../src/observe/logger.js';
import { startSfnEndpoint } from '../support/sfn-endpoint.js';
import { runCli } from '../support/run-cli.js';
import { createTable, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';

const { env: localEnv, dynamodb, s3 } = useLocalServers();
const cleanup = useCleanups(localEnv);
const STACK = 'csv-import-test';

/** A CSV of `rows` rows with unique ids. @param {number} rows */
function peopleCsv(rows) {
  const lines = ['id,name,balance'];
  for (let i = 0; i < rows; i++) lines.push(`p${i},name ${i},${i % 1000}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The stack's API offline, its steps the project's, with a fault to inject before a segment.
 * @param {{ failing?: Set<number> }} [faults]  shards whose next segment fails (once each)
 */
async function stackOffline(faults = {}) {
  const env = process.env;
  const endpoint = await startSfnEndpoint({
    s3,
    bucket: TEST_BUCKET,
    stack: STACK,
    steps: {
      plan: (/** @type {any} */ event) => planStep(event.job, { env }),
      async segment(/** @type {any} */ event) {
        const shard = event.shard.shard?.index ?? 0;
        if (faults.failing?.delete(shard)) throw Object.assign(new Error(`shard ${shard + 1} refused by the test`), { name: 'InjectedFault' });
        return segmentStep(event, { logger, env, context: undefined });
      },
      summarize: (/** @type {any} */ event) => summarizeStep(event, { logger, env }),
    },
  });
  cleanup(() => endpoint.stop());
  return endpoint;
}

/** @param {string[]} args @param {string} endpoint */
async function ddbload(args, endpoint) {
  const result = await runCli(args, { cwd: process.cwd(), env: { ...process.env, AWS_ENDPOINT_URL_SFN: endpoint } });
  return { ...result, json: () => JSON.parse(result.stdout.trim().split('\n').at(-1) ?? 'null') };
}

describe('a job on AWS from the command line', () => {
  it('starts once however often it is asked, shows its shards and rows, and ends with the books balanced', async () => {
    const sfn = await stackOffline();
    const table = await createTable(dynamodb);
    await upload(s3, 'aws/people.csv', peopleCsv(6_000));
    const importArgs = ['import', `s3://${TEST_BUCKET}/aws/people.csv`, '--table', table, '--shards', '3', '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'];

    const first = await ddbload(importArgs, sfn.endpoint);
    expect(first.code, first.stderr).toBe(0);
    const started = first.json();
    expect(started).toMatchObject({ jobId: expect.stringMatching(/^[0-9a-f-]{36}$/), started: true, status: 'RUNNING', executionArn: `${sfn.stateMachineArn.replace(':stateMachine:', ':execution:')}:${started.jobId}` });
    // Asked again while it runs: the same execution, not a second one.
    const again = (await ddbload(importArgs, sfn.endpoint)).json();
    expect(again).toMatchObject({ jobId: started.jobId, executionArn: started.executionArn, started: false });
    await sfn.settled();

    const status = await ddbload(['status', started.jobId, '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn.endpoint);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({
      jobId: started.jobId,
      status: 'SUCCEEDED',
      shards: { total: 3, pending: 0, running: 0, succeeded: 3, failed: 0 },
      failedShards: [],
      rows: { state: 'done', rowsRead: 6_000, written: 6_000, rejected: 0 },
      summary: { state: 'done', shards: 3, rowsRead: 6_000, written: 6_000, balanced: true },
    });
    expect(await countItems(dynamodb, table)).toBe(6_000);
    // Started again once it ended: it says so, and how to run it again.
    const later = (await ddbload(importArgs, sfn.endpoint)).json();
    expect(later).toMatchObject({ started: false, status: 'SUCCEEDED', note: expect.stringMatching(/was started before, at \S+: it ended SUCCEEDED; to import the object again, pass another runId/) });
  });

  it('shows a failed shard with its error and exits 2; `redrive` runs only it, and the job then succeeds', async () => {
    const failing = new Set([1]);
    const sfn = await stackOffline({ failing });
    const table = await createTable(dynamodb);
    await upload(s3, 'aws/failing.csv', peopleCsv(6_000));
    const started = (await ddbload(['import', `s3://${TEST_BUCKET}/aws/failing.csv`, '--table', table, '--shards', '3', '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn.endpoint)).json();
    await sfn.settled();

    const failed = await ddbload(['status', started.executionArn, '--region', 'us-east-1'], sfn.endpoint);
    expect(failed.code).toBe(2);
    expect(failed.stdout).toContain(`job ${started.jobId}  FAILED`);
    expect(failed.stdout).toMatch(/shards: 3 in all, 0 pending, 0 running, 2 succeeded, 1 failed/);
    expect(failed.stdout).toContain('shard 2 failed: InjectedFault: shard 2 refused by the test');
    expect(failed.stdout).toContain(`to re-run only its failed shards: ddbload redrive ${started.executionArn}`);
    expect(await countItems(dynamodb, table)).toBeLessThan(6_000);

    const redriven = await ddbload(['redrive', started.jobId, '--stack', STACK, '--region', 'us-east-1', '--json'], sfn.endpoint);
    expect(redriven.code, redriven.stderr).toBe(0);
    expect(redriven.json()).toMatchObject({ executionArn: started.executionArn, redriven: true });
    await sfn.settled();
    const done = await ddbload(['status', started.jobId, '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn.endpoint);
    expect(done.json()).toMatchObject({ status: 'SUCCEEDED', redriveCount: 1, shards: { succeeded: 3, failed: 0 }, summary: { rowsRead: 6_000, written: 6_000, balanced: true } });
    expect(await countItems(dynamodb, table)).toBe(6_000);
    // A job that succeeded cannot be redriven: the error says why and where to look.
    const refused = await ddbload(['redrive', started.jobId, '--stack', STACK, '--region', 'us-east-1'], sfn.endpoint);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/cannot be redriven: .*only a FAILED, TIMED_OUT or ABORTED execution/);
  });

  it('names the missing or wrong stack and a local file in the words of the flags', async () => {
    const sfn = await stackOffline();
    const noStack = await ddbload(['status', '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c', '--on-aws', '--region', 'us-east-1'], sfn.endpoint);
    expect(noStack.stderr).toMatch(/--stack/);
    const wrong = await ddbload(['redrive', '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c', '--stack', 'csv-import-nope', '--region', 'us-east-1'], sfn.endpoint);
    expect(wrong.stderr).toMatch(/no state machine csv-import-nope-job in this account and region/);
    const local = await ddbload(['import', './people.csv', '--table', 'People', '--on-aws', '--stack', STACK, '--region', 'us-east-1'], sfn.endpoint);
    expect(local.stderr).toMatch(/a job on AWS reads from S3: upload the file/);
    const unknown = await ddbload(['status', '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c', '--on-aws', '--stack', STACK, '--region', 'us-east-1'], sfn.endpoint);
    expect(unknown.stderr).toMatch(/no such job execution: .*check the job id, the stack \(--stack\) and the region \(--region\)/);
  });
});

/**
 * The command line's jobs on AWS: `ddbload import --on-aws`, `status --on-aws` and `redrive`, run as a
 * person runs them, against a stack served offline: its import function behind the Lambda Invoke API
 * (test/support/lambda-invoke-endpoint.js, the real handler with the stack's environment) and its Step
 * Functions API (test/support/sfn-endpoint.js: each execution runs the job's definition on the
 * States-language emulator, its tasks the project's own steps against the local servers), the SDK pointed
 * at them by AWS_ENDPOINT_URL_LAMBDA and AWS_ENDPOINT_URL_SFN.
 */
import { describe, expect, it } from 'vitest';
import { countItems } from '../../local/servers.js';
import { handler } from '../../src/handler.js';
import { startLambdaInvokeEndpoint } from '../support/lambda-invoke-endpoint.js';
import { projectSteps } from '../support/local-state-machine.js';
import { startSfnEndpoint } from '../support/sfn-endpoint.js';
import { runCli } from '../support/run-cli.js';
import { createTable, readObject, scanAll, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';

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
 * @param {Record<string, string>} [environment]  the stack's function's, beside its state machine and COLUMN_TYPES
 */
async function stackOffline(faults = {}, environment = {}) {
  const steps = projectSteps((shard) => {
    if (faults.failing?.delete(shard)) throw Object.assign(new Error(`shard ${shard + 1} refused by the test`), { name: 'InjectedFault' });
  });
  const endpoint = await startSfnEndpoint({ s3, bucket: TEST_BUCKET, stack: STACK, steps });
  cleanup(() => endpoint.stop());
  // The stack's import function, with the environment `sls deploy` gives it (a column type among it).
  process.env.AWS_ENDPOINT_URL_SFN = endpoint.endpoint;
  cleanup(() => void delete process.env.AWS_ENDPOINT_URL_SFN);
  const lambda = await startLambdaInvokeEndpoint({ name: `${STACK}-import`, handler, environment: { STATE_MACHINE_NAME: `${STACK}-job`, COLUMN_TYPES: 'balance:N', ...environment } });
  cleanup(() => lambda.stop());
  return { ...endpoint, lambdaEndpoint: lambda.endpoint };
}

/**
 * The command, run by a person on another machine: the stack's endpoints, and none of its function's environment.
 * @param {string[]} args @param {{ endpoint: string, lambdaEndpoint: string }} stack
 */
async function ddbload(args, stack) {
  const { AWS_LAMBDA_FUNCTION_NAME, STATE_MACHINE_NAME, COLUMN_TYPES, ...env } = process.env;
  const result = await runCli(args, { cwd: process.cwd(), env: { ...env, AWS_ENDPOINT_URL_SFN: stack.endpoint, AWS_ENDPOINT_URL_LAMBDA: stack.lambdaEndpoint } });
  return { ...result, json: () => JSON.parse(result.stdout.trim().split('\n').at(-1) ?? 'null') };
}

describe('a job on AWS from the command line', () => {
  it('starts once however often it is asked, shows its shards and rows, and ends with the books balanced', async () => {
    const sfn = await stackOffline();
    const table = await createTable(dynamodb);
    await upload(s3, 'aws/people.csv', peopleCsv(6_000));
    const importArgs = ['import', `s3://${TEST_BUCKET}/aws/people.csv`, '--table', table, '--shards', '3', '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'];

    const first = await ddbload(importArgs, sfn);
    expect(first.code, first.stderr).toBe(0);
    const started = first.json();
    expect(started).toMatchObject({ jobId: expect.stringMatching(/^[0-9a-f-]{36}$/), started: true, status: 'RUNNING', executionArn: `${sfn.stateMachineArn.replace(':stateMachine:', ':execution:')}:${started.jobId}` });
    // Asked again while it runs: the same execution, not a second one.
    const again = (await ddbload(importArgs, sfn)).json();
    expect(again).toMatchObject({ jobId: started.jobId, executionArn: started.executionArn, started: false });
    await sfn.settled();

    const status = await ddbload(['status', started.jobId, '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn);
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
    // Every call went through the IAM gate: the command line's by the documented user policy, the function's by its role.
    const byWhom = (/** @type {string} */ principal) => sfn.gate.judged.filter((call) => call.principal === principal && call.allowed).map((call) => call.action);
    expect(byWhom('cli')).toEqual(expect.arrayContaining(['states:ListStateMachines', 'states:DescribeExecution', 'states:GetExecutionHistory', 'states:ListMapRuns', 'states:DescribeMapRun']));
    expect(byWhom('function')).toEqual(expect.arrayContaining(['states:StartExecution']));
    expect(sfn.gate.denied()).toEqual([]);
    // --stage S is the stack csv-import-S.
    const byStage = await ddbload(['status', started.jobId, '--stage', 'test', '--region', 'us-east-1', '--json'], sfn);
    expect(byStage.json()).toMatchObject({ jobId: started.jobId, status: 'SUCCEEDED' });
    // The function named and planned the job with the stack's COLUMN_TYPES, which the command line did not pass.
    expect((await scanAll(dynamodb, table))[0].balance).toEqual({ N: expect.any(String) });
    // Started again once it ended: it says so, and how to run it again.
    const later = (await ddbload(importArgs, sfn)).json();
    expect(later).toMatchObject({ started: false, status: 'SUCCEEDED', note: expect.stringMatching(/was started before, at \S+: it ended SUCCEEDED; to import the object again, pass another runId/) });
  });

  it('shows a failed shard with its error and exits 2; `redrive` runs only it, and the job then succeeds', async () => {
    const failing = new Set([1]);
    const sfn = await stackOffline({ failing });
    const table = await createTable(dynamodb);
    await upload(s3, 'aws/failing.csv', peopleCsv(6_000));
    const startedRun = await ddbload(['import', `s3://${TEST_BUCKET}/aws/failing.csv`, '--table', table, '--shards', '3', '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn);
    expect(startedRun.code, startedRun.stderr).toBe(0);
    const started = startedRun.json();
    await sfn.settled();

    const failed = await ddbload(['status', started.executionArn, '--region', 'us-east-1'], sfn);
    expect(failed.code).toBe(2);
    expect(failed.stdout).toContain(`job ${started.jobId}  FAILED`);
    expect(failed.stdout).toMatch(/shards: 3 in all, 0 pending, 0 running, 2 succeeded, 1 failed/);
    expect(failed.stdout).toContain('shard 2 failed: InjectedFault: shard 2 refused by the test');
    expect(failed.stdout).toContain(`to re-run only its failed shards: ddbload redrive ${started.executionArn}`);
    expect(await countItems(dynamodb, table)).toBeLessThan(6_000);

    // A shard still written by the invocation the failed run left (as AWS leaves a Lambda task of an
    // aborted child running): a redrive now would be a second writer on it, and is refused.
    const statusKey = `_imports/${started.jobId}/shard-0003.json`;
    const shardStatus = await readObject(s3, statusKey);
    await upload(s3, statusKey, JSON.stringify({ ...JSON.parse(shardStatus), state: 'running', runner: { logGroup: '/aws/lambda/f', logStream: 'x' }, updatedAt: new Date().toISOString(), heartbeatMs: 1_000 }));
    const tooSoon = await ddbload(['redrive', started.jobId, '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect(tooSoon.code).toBe(1);
    expect(tooSoon.stderr).toMatch(/shard 3 \(status [^)]+\) of the job is still being written by the invocation the failed run left: a redrive now would run a second writer on it/);
    await upload(s3, statusKey, shardStatus);

    const redriven = await ddbload(['redrive', started.jobId, '--stack', STACK, '--region', 'us-east-1', '--json'], sfn);
    expect(redriven.code, redriven.stderr).toBe(0);
    expect(redriven.json()).toMatchObject({ executionArn: started.executionArn, redriven: true });
    await sfn.settled();
    const done = await ddbload(['status', started.jobId, '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn);
    expect(done.json()).toMatchObject({ status: 'SUCCEEDED', redriveCount: 1, shards: { succeeded: 3, failed: 0, pendingRedrive: 0, failuresNotRedrivable: 0 }, summary: { rowsRead: 6_000, written: 6_000, balanced: true } });
    // Its rate counts the time it ran, not the seconds it stood failed before the redrive.
    const { startDate, stopDate, rows } = done.json();
    const elapsed = (Date.parse(stopDate) - Date.parse(startDate)) / 1000;
    expect(rows.seconds).toBeLessThan(elapsed - 1);
    expect(rows.rowsPerSecond).toBe(Math.round(6_000 / rows.seconds));
    process.stdout.write(`redriven job: ${elapsed} s from start to end, ${rows.seconds} s running\n`);
    expect(await countItems(dynamodb, table)).toBe(6_000);
    // A job that succeeded cannot be redriven: the error says why and where to look.
    const refused = await ddbload(['redrive', started.jobId, '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/cannot be redriven: .*only a FAILED, TIMED_OUT or ABORTED execution/);
  });

  it('a job whose failed shard stayed within toleratedFailurePercentage succeeds on AWS but reads failed: exit 2, and how to run it again', async () => {
    const sfn = await stackOffline({ failing: new Set([1]) }, { TOLERATED_FAILURE_PERCENTAGE: '50' });
    const table = await createTable(dynamodb);
    await upload(s3, 'aws/tolerated.csv', peopleCsv(3_000));
    const started = (await ddbload(['import', `s3://${TEST_BUCKET}/aws/tolerated.csv`, '--table', table, '--shards', '3', '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn)).json();
    await sfn.settled();

    const status = await ddbload(['status', started.jobId, '--on-aws', '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect(status.code).toBe(2);
    expect(status.stdout).toContain(`job ${started.jobId}  SUCCEEDED`);
    expect(status.stdout).toContain('shard 2 failed: InjectedFault: shard 2 refused by the test');
    expect(status.stdout).toMatch(/the job failed: its execution SUCCEEDED within toleratedFailurePercentage, but its summary says failed/);
    expect(status.stdout).toContain(`Step Functions redrives no SUCCEEDED execution, so to import the failed shard run the job again, with the same options and a new --run-id (ddbload import s3://${TEST_BUCKET}/aws/tolerated.csv --on-aws --run-id 2 ...)`);
    const json = (await ddbload(['status', started.jobId, '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn));
    expect(json.code).toBe(2);
    expect(json.json()).toMatchObject({ status: 'SUCCEEDED', failed: true, summary: { state: 'failed', failedShards: [{ shard: 1, error: 'InjectedFault' }] } });
    // RedriveExecution refuses a SUCCEEDED execution: the command says why and what to do instead.
    const redrive = await ddbload(['redrive', started.jobId, '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect(redrive.code).not.toBe(0);
    expect(redrive.stderr).toMatch(/cannot be redriven: it SUCCEEDED, its failed shards within toleratedFailurePercentage; Step Functions redrives no SUCCEEDED execution, so to import the failed shard run the job again/);

    // Run again with a new --run-id: a job of its own, every shard, and the table has every row.
    const again = await ddbload(['import', `s3://${TEST_BUCKET}/aws/tolerated.csv`, '--table', table, '--shards', '3', '--run-id', '2', '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn);
    expect(again.json()).toMatchObject({ started: true });
    expect(again.json().jobId).not.toBe(started.jobId);
    await sfn.settled();
    const done = await ddbload(['status', again.json().jobId, '--on-aws', '--stack', STACK, '--region', 'us-east-1', '--json'], sfn);
    expect({ code: done.code, status: done.json() }).toMatchObject({ code: 0, status: { status: 'SUCCEEDED', failed: false, summary: { state: 'done', rowsRead: 3_000, written: 3_000 } } });
    expect(await countItems(dynamodb, table)).toBe(3_000);
  });

  it('names the missing or wrong stack and a local file in the words of the flags', async () => {
    const sfn = await stackOffline();
    const noStack = await ddbload(['status', '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c', '--on-aws', '--region', 'us-east-1'], sfn);
    expect(noStack.stderr).toMatch(/--stack/);
    const wrong = await ddbload(['redrive', '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c', '--stack', 'csv-import-nope', '--region', 'us-east-1'], sfn);
    expect(wrong.stderr).toMatch(/no state machine csv-import-nope-job in this account and region/);
    const local = await ddbload(['import', './people.csv', '--table', 'People', '--on-aws', '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect(local.stderr).toMatch(/a job on AWS reads from S3: upload the file/);
    // A dry run reads from this machine; as a job's execution it would write the rows.
    const dry = await ddbload(['import', `s3://${TEST_BUCKET}/aws/people.csv`, '--table', 'People', '--dry-run', '--on-aws', '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(/--dry-run.*leave --on-aws out/) });
    const noFunction = await ddbload(['import', `s3://${TEST_BUCKET}/aws/people.csv`, '--table', 'People', '--on-aws', '--stack', 'csv-import-nope', '--region', 'us-east-1'], sfn);
    // As on AWS, IAM answers before Lambda looks for the function: the documented user policy names the
    // stack's function only, so another stack's is AccessDenied, and the message names the permission.
    expect(noFunction.stderr).toMatch(/could not invoke csv-import-nope-import \(AccessDeniedException: .* lambda:InvokeFunction on resource: arn:aws:lambda:us-east-1:000000000000:function:csv-import-nope-import .*\); your credentials need lambda:InvokeFunction on it/);
    const byObject = await ddbload(['status', `s3://${TEST_BUCKET}/aws/people.csv`, '--on-aws', '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect(byObject.stderr).toMatch(/a job on AWS is named by its job id .* or its execution's ARN/);
    const unknown = await ddbload(['status', '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c', '--on-aws', '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect(unknown.stderr).toMatch(/no such job execution: .*check the job id, the stack \(--stack\) and the region \(--region\)/);
  });

  it('refuses, before its execution starts, segments so short that a shard could pass the history limit', async () => {
    const sfn = await stackOffline();
    // 16 MB in one shard at 64 KiB/s is 244 s: over 2,221 segments, 110 ms each at least.
    await upload(s3, 'aws/big.csv', `id\n${'x'.repeat(16_000_000)}\n`);
    const refused = await ddbload(['import', `s3://${TEST_BUCKET}/aws/big.csv`, '--table', 'People', '--segment-ms', '100', '--on-aws', '--stack', STACK, '--region', 'us-east-1'], sfn);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/the stack refused the job: .*at most 25000 history events, 2221 segments; a shard of 16\.0 MB .* needs segments of 110 ms: pass --segment-ms 110 or more/);
    expect(await sfn.executions()).toBe(0);
  });
});

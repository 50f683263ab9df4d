/**
 * The command line's jobs on AWS, on a deployed stack (--stack, <service>-<stage>), from any machine with
 * credentials: `import s3://... --on-aws` starts the job's execution, `status <job> --on-aws` shows it
 * (--watch redraws it in place), `redrive <job>` re-runs its failed shards. Each call goes to Step
 * Functions and the output bucket with the SDK's credentials (--profile) in --region.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { resolveConfig } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { jobIdOfJob } from '../plan/job-plan.js';
import { executionOfJob, readExecutionStatus, redriveJob, stateMachineOfStack } from '../dispatch/step-functions/execution-status.js';
import { sfnClient, startJobExecution } from '../dispatch/step-functions/start.js';
import { payloadOf, withFlagNames } from './import-flags.js';
import { createRedraw } from './redraw.js';
import { textTable } from './text-table.js';

/**
 * @typedef {object} AwsFlags
 * @property {string} [stack]
 * @property {string} [profile]
 * @property {string} [region]
 * @property {boolean} [watch]
 * @property {boolean} [json]
 */

/** How often --watch reads the execution again. */
const WATCH_MS = 2_000;

/** @param {AwsFlags} flags */
async function clientsOf(flags) {
  if (flags.profile !== undefined) process.env.AWS_PROFILE = flags.profile;
  const probe = new S3Client(flags.region === undefined ? {} : { region: flags.region });
  const region = await probe.config.region().catch(() => {
    throw new ConfigError('--region', undefined, "no AWS region is configured: pass --region (the stack's region), set AWS_REGION, or use a profile that has one (--profile)");
  });
  probe.destroy();
  const endpoint = process.env.S3_ENDPOINT;
  return { sfn: sfnClient(region, undefined), s3: new S3Client({ region, ...(endpoint ? { endpoint, forcePathStyle: true } : {}) }) };
}

/**
 * `import s3://bucket/key --on-aws --stack S`: the job's execution, started (or found, if it was), then
 * watched until it ends unless --json.
 * @param {string} source @param {Record<string, unknown> & AwsFlags} flags
 * @returns {Promise<number>} the exit code
 */
export async function importOnAwsCommand(source, flags) {
  if (flags.stack === undefined) throw new ConfigError('--stack', undefined, 'name the deployed stack to run the job on (--stack csv-import-dev: <service>-<stage>, as `sls deploy` printed it)');
  const payload = payloadOf(source, flags);
  if (payload.file !== undefined) throw new ConfigError('source', source, 'a job on AWS reads from S3: upload the file (aws s3 cp) and name it s3://bucket/key, or leave --on-aws out to import it from this machine');
  const clients = await clientsOf(flags);
  let config;
  try {
    config = resolveConfig(payload, {});
  } catch (error) {
    throw withFlagNames(error);
  }
  const stateMachineArn = await stateMachineOfStack(clients.sfn, flags.stack);
  const jobId = await jobIdOfJob(config, clients.s3);
  const started = await startJobExecution({ sfn: clients.sfn, stateMachineArn, jobId, input: payload });
  if (flags.json || !process.stdout.isTTY) {
    process.stdout.write(`${JSON.stringify(started)}\n`);
    return 0;
  }
  process.stdout.write(`${started.started ? 'started' : 'already started'}: job ${jobId}\n${started.note === undefined ? '' : `${started.note}\n`}${started.console}\n`);
  return watchExecution(clients, started.executionArn, { watch: true });
}

/**
 * `status <job> --on-aws --stack S` (or an execution ARN): the job's execution, its shards and rows.
 * @param {string} job @param {AwsFlags} flags
 * @returns {Promise<number>} the exit code: 2 when the job failed
 */
export async function awsStatusCommand(job, flags) {
  const clients = await clientsOf(flags);
  const executionArn = await executionOfJob(clients.sfn, job, flags.stack);
  return watchExecution(clients, executionArn, flags);
}

/**
 * `redrive <job> --stack S`: re-runs the failed shards of a failed job, each from where it failed.
 * @param {string} job @param {AwsFlags} flags
 * @returns {Promise<number>} the exit code
 */
export async function redriveCommand(job, flags) {
  const clients = await clientsOf(flags);
  const executionArn = await executionOfJob(clients.sfn, job, flags.stack);
  const redriven = await redriveJob(clients.sfn, executionArn);
  if (flags.json || !flags.watch) {
    process.stdout.write(flags.json ? `${JSON.stringify(redriven)}\n` : `redriven: ${executionArn}\n${redriven.console}\n`);
    return 0;
  }
  return watchExecution(clients, executionArn, flags);
}

/**
 * Prints the execution's status, again every WATCH_MS with --watch (in place on a terminal) until it ends.
 * @param {{ sfn: import('@aws-sdk/client-sfn').SFNClient, s3: S3Client }} clients @param {string} executionArn @param {AwsFlags} flags
 */
async function watchExecution(clients, executionArn, flags) {
  const redraw = createRedraw(process.stdout);
  for (;;) {
    const status = await readExecutionStatus(clients, executionArn);
    if (flags.json) process.stdout.write(`${JSON.stringify(status)}\n`);
    else redraw(formatExecutionStatus(status));
    const ended = status.status !== 'RUNNING' && status.status !== 'PENDING_REDRIVE';
    if (!flags.watch || ended) return status.status === 'SUCCEEDED' || status.status === 'RUNNING' || status.status === 'PENDING_REDRIVE' ? 0 : 2;
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
  }
}

/**
 * @param {import('../dispatch/step-functions/execution-status.js').ExecutionStatus} status
 * @returns {string}
 */
export function formatExecutionStatus(status) {
  const n = (/** @type {number | undefined} */ value) => (value ?? 0).toLocaleString('en-US');
  const lines = [`job ${status.jobId}  ${status.status}${status.redriveCount ? `  (redriven ${status.redriveCount}x)` : ''}  started ${status.startDate ?? '?'}${status.stopDate === undefined ? '' : `, ended ${status.stopDate}`}`];
  const s = status.shards;
  lines.push(s === undefined ? 'shards: not planned yet' : `shards: ${n(s.total)} in all, ${n(s.pending)} pending, ${n(s.running)} running, ${n(s.succeeded)} succeeded, ${n(s.failed + s.timedOut + s.aborted)} failed`);
  const r = status.rows;
  if (r !== undefined) lines.push(...textTable([['rows read', 'written', 'rejected', 'rows/s'], [n(r.rowsRead), n(r.written), n(r.rejected), n(r.rowsPerSecond)]], () => true));
  for (const failed of status.failedShards) lines.push(`shard ${failed.shard === undefined ? '?' : failed.shard + 1} failed: ${failed.error ?? ''}${failed.cause === undefined ? '' : `: ${failed.cause}`}`);
  if (status.error !== undefined) lines.push(`the job failed: ${status.error}${status.cause === undefined ? '' : `: ${status.cause.slice(0, 300)}`}`);
  if (status.status === 'FAILED' || status.status === 'TIMED_OUT' || status.status === 'ABORTED') lines.push(`to re-run only its failed shards: ddbload redrive ${status.executionArn}`);
  if (status.summary !== undefined) lines.push(`summary: ${String(status.summary.summary ?? '')}, books ${status.summary.balanced ? 'balanced' : 'open'}`);
  lines.push(status.console);
  return lines.join('\n');
}

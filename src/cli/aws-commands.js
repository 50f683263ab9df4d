/**
 * The command line's jobs on AWS, on a deployed stack (--stack, <service>-<stage>), from any machine with
 * credentials: `import s3://... --on-aws` asks the stack's import function to start the job (as `sls
 * invoke -f import` does), `status <job> --on-aws` shows it (--watch redraws it in place), `redrive
 * <job>` re-runs its failed shards. Each call goes to AWS with the SDK's credentials (--profile) in
 * --region.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { AwsCallError, ConfigError, JobError } from '../errors.js';
import { executionOfJob, readExecutionStatus, redriveJob, rerunAdvice } from '../dispatch/step-functions/execution-status.js';
import { sfnClient } from '../dispatch/step-functions/start.js';
import { inFlagWords, payloadOf } from './import-flags.js';
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
  return { region, sfn: sfnClient(region, undefined), s3: new S3Client({ region, ...(endpoint ? { endpoint, forcePathStyle: true } : {}) }) };
}

/**
 * `import s3://bucket/key --on-aws --stack S`: the job's execution, started (or found, if it was) by the
 * stack's import function, then watched until it ends unless --json. The function names the job: its
 * id depends on options the stack's environment may set (KEY_COLUMN, COLUMN_TYPES, ...), so that an S3
 * event's start of the same object finds this execution.
 * @param {string | undefined} source @param {Record<string, unknown> & AwsFlags} flags
 * @returns {Promise<number>} the exit code
 */
export async function importOnAwsCommand(source, flags) {
  if (flags.stack === undefined) throw new ConfigError('--stack', undefined, 'name the deployed stack to run the job on (--stack csv-import-dev: <service>-<stage>, as `sls deploy` printed it)');
  if (source === undefined) throw new ConfigError('source', undefined, 'name the s3://bucket/key to import on AWS');
  // The stack decides these: where its rejects and status go, its table's endpoint; a job on AWS is redriven, not resumed.
  for (const [flag, value] of /** @type {const} */ ([['--output', flags.output], ['--output-dir', flags.outputDir], ['--resume', flags.resume], ['--local', flags.local], ['--endpoint-url', flags.endpointUrl]])) {
    if (value !== undefined) throw new ConfigError(flag, value, 'runs here, not on the stack: leave it out with --on-aws (a failed job on AWS goes on with `ddbload redrive`)');
  }
  const payload = payloadOf(source, flags);
  if (payload.dryRun === true) throw new ConfigError('--dry-run', true, 'a dry run reads the file from this machine: leave --on-aws out (ddbload import s3://... --dry-run)');
  if (payload.file !== undefined) throw new ConfigError('source', source, 'a job on AWS reads from S3: upload the file (aws s3 cp) and name it s3://bucket/key, or leave --on-aws out to import it from this machine');
  const clients = await clientsOf(flags);
  const started = await invokeImportFunction(clients.region, `${flags.stack}-import`, payload);
  if (flags.json || !process.stdout.isTTY) {
    process.stdout.write(`${JSON.stringify(started)}\n`);
    return 0;
  }
  process.stdout.write(`${started.started ? 'started' : 'already started'}: job ${started.jobId}\n${started.note === undefined ? '' : `${started.note}\n`}${started.console}\n`);
  return watchExecution(clients, started.executionArn, { watch: true }, true);
}

/**
 * The stack's import function, invoked and waited for: it checks the job's options against the stack's
 * and answers with the execution it started (or found).
 * @param {string} region @param {string} name @param {Record<string, unknown>} payload
 * @returns {Promise<{ jobId: string, executionArn: string, started: boolean, status: string, console: string, note?: string }>}
 */
async function invokeImportFunction(region, name, payload) {
  const lambda = new LambdaClient({ region });
  let output;
  try {
    output = await lambda.send(new InvokeCommand({ FunctionName: name, InvocationType: 'RequestResponse', Payload: Buffer.from(JSON.stringify(payload)) }));
  } catch (error) {
    if (/** @type {Error} */ (error)?.name === 'ResourceNotFoundException') throw new ConfigError('--stack', name.replace(/-import$/, ''), `no function ${name} in this account and region: name the stack \`sls deploy\` made (<service>-<stage>, such as csv-import-dev), and its region with --region`);
    throw new AwsCallError(`invoke ${name}`, error, undefined, '; your credentials need lambda:InvokeFunction on it');
  } finally {
    lambda.destroy();
  }
  const answer = JSON.parse(Buffer.from(output.Payload ?? []).toString('utf8') || 'null');
  // The function refused the job (a bad option, a table it may not write): its message, in the flags' words.
  if (output.FunctionError !== undefined) throw new JobError(`the stack refused the job: ${inFlagWords(String(answer?.errorMessage ?? output.FunctionError))}`);
  if (typeof answer?.executionArn !== 'string') throw new JobError(`${name} answered without starting an execution (${JSON.stringify(answer).slice(0, 300)}): is it deployed with its state machine (STATE_MACHINE_NAME)?`);
  return answer;
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
  const redriven = await redriveJob(clients, executionArn);
  if (flags.json || !flags.watch) {
    process.stdout.write(flags.json ? `${JSON.stringify(redriven)}\n` : `redriven: ${executionArn}\n${redriven.console}\n`);
    return 0;
  }
  return watchExecution(clients, executionArn, flags);
}

/**
 * Prints the execution's status, again every WATCH_MS with --watch (in place on a terminal) until it ends.
 * @param {{ sfn: import('@aws-sdk/client-sfn').SFNClient, s3: S3Client }} clients @param {string} executionArn @param {AwsFlags} flags
 * @param {boolean} [justStarted]  this command started it: the first read waits briefly for it to be seen
 */
async function watchExecution(clients, executionArn, flags, justStarted = false) {
  const redraw = createRedraw(process.stdout);
  for (let first = true; ; first = false) {
    const status = await readExecutionStatus(clients, executionArn, { justStarted: justStarted && first });
    if (flags.json) process.stdout.write(`${JSON.stringify(status)}\n`);
    else redraw(formatExecutionStatus(status));
    const ended = status.status !== 'RUNNING' && status.status !== 'PENDING_REDRIVE';
    // A job with failed shards never reads as succeeded, even when its execution did (within its tolerance).
    if (!flags.watch || ended) return status.failed ? 2 : 0;
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
  const redrive = s === undefined ? '' : `${s.pendingRedrive > 0 ? `, ${n(s.pendingRedrive)} pending redrive` : ''}${s.failuresNotRedrivable > 0 ? `, ${n(s.failuresNotRedrivable)} not redrivable (past their history's limit: run the job again)` : ''}`;
  lines.push(s === undefined ? 'shards: not planned yet' : `shards: ${n(s.total)} in all, ${n(s.pending)} pending, ${n(s.running)} running, ${n(s.succeeded)} succeeded, ${n(s.failed + s.timedOut + s.aborted)} failed${redrive}`);
  const r = status.rows;
  if (r !== undefined) lines.push(...textTable([['rows read', 'written', 'rejected', 'rows/s'], [n(r.rowsRead), n(r.written), n(r.rejected), n(r.rowsPerSecond)]], () => true));
  for (const failed of status.failedShards) lines.push(`shard ${failed.shard === undefined ? '?' : failed.shard + 1} failed: ${failed.error ?? ''}${failed.cause === undefined ? '' : `: ${failed.cause}`}`);
  if (status.error !== undefined) lines.push(`the job failed: ${status.error}${status.cause === undefined ? '' : `: ${status.cause.slice(0, 300)}`}`);
  if (status.summary !== undefined) lines.push(`summary: ${String(status.summary.summary ?? '')}, books ${status.summary.balanced ? 'balanced' : 'open'}`);
  if (status.status === 'SUCCEEDED' && status.failed) lines.push(`the job failed: its execution SUCCEEDED within toleratedFailurePercentage, but its summary says ${String(status.summary?.state)}${status.summary?.missingResults === undefined ? '' : ` (${String(status.summary.missingResults)})`}`);
  if (status.failed) lines.push(rerunAdvice(status));
  lines.push(status.console);
  return lines.join('\n');
}

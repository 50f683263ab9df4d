/**
 * A job on AWS as a person watching it wants to see it: the execution's state, its map run's counts of
 * shards (pending, running, succeeded, failed), the failed shards' errors, and the rows so far with their
 * rate. Rows come from the shards' status objects in the output bucket: each running segment rewrites its
 * own every few seconds, so they are live, where a shard's result exists only once it ends and the
 * function's CloudWatch metrics arrive a minute or more late. Nothing here reads row contents.
 */
import {
  DescribeExecutionCommand,
  DescribeMapRunCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  ListMapRunsCommand,
  ListStateMachinesCommand,
  RedriveExecutionCommand,
} from '@aws-sdk/client-sfn';
import { ConfigError, JobError, AwsCallError } from '../../errors.js';
import { readJobStatus } from '../../state/job-status.js';
import { bucketStore } from '../../state/output-store.js';
import { causeOf, shardOfChild } from '../map-results.js';
import { consoleLinkOf, executionArnOf } from './start.js';

/** The failed shards' errors a status shows (the console and the results hold them all). */
const FAILED_SHOWN = 20;

/** @typedef {import('@aws-sdk/client-sfn').SFNClient} SFNClient */
/** @typedef {import('@aws-sdk/client-s3').S3Client} S3Client */

/**
 * @typedef {object} ExecutionStatus
 * @property {string} jobId
 * @property {string} executionArn
 * @property {string} status  RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED, PENDING_REDRIVE
 * @property {string} console  the execution in the AWS console
 * @property {string} [startDate]
 * @property {string} [stopDate]
 * @property {number} [redriveCount]
 * @property {string} [error]  the execution's, when it failed
 * @property {string} [cause]
 * @property {{ total: number, pending: number, running: number, succeeded: number, failed: number, timedOut: number, aborted: number, pendingRedrive: number, failuresNotRedrivable: number }} [shards]
 *   the map run's counts, once it started; pendingRedrive: failed shards waiting for their redrive to start
 *   them; failuresNotRedrivable: failed shards no redrive can run again (past their history's limit)
 * @property {Array<{ shard?: number, error?: string, cause?: string }>} failedShards  at most FAILED_SHOWN
 * @property {import('../../state/job-status.js').JobStatus['total']} [rows]  the shards' status objects added up
 * @property {Record<string, unknown>} [summary]  Summarize's answer, once the execution succeeded
 * @property {string} [source]  what the job imports (s3://bucket/key or s3://bucket/prefix), once planned
 * @property {boolean} failed  the job failed: its execution did, or it succeeded with shards failed within
 *   toleratedFailurePercentage (Summarize says so); never read as succeeded
 */

/**
 * The state machine of a deployed stack (`sls deploy` names it <service>-<stage>-job).
 * @param {SFNClient} sfn @param {string} stack  <service>-<stage>, as `sls deploy` printed it
 */
export async function stateMachineOfStack(sfn, stack) {
  const name = `${stack}-job`;
  /** @type {string | undefined} */
  let nextToken;
  do {
    const page = await call(() => sfn.send(new ListStateMachinesCommand({ nextToken })), 'list the state machines', 'states:ListStateMachines');
    const found = page.stateMachines?.find((machine) => machine.name === name);
    if (found?.stateMachineArn !== undefined) return found.stateMachineArn;
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  throw new ConfigError('--stack', stack, `no state machine ${name} in this account and region: name the stack \`sls deploy\` made (<service>-<stage>, such as csv-import-dev), and its region with --region`);
}

/**
 * The execution a job names: an execution ARN as it is, a job id in the stack's state machine.
 * @param {SFNClient} sfn @param {string} job  a job id or an execution ARN @param {string | undefined} stack
 */
export async function executionOfJob(sfn, job, stack) {
  if (job.startsWith('arn:') && job.includes(':execution:')) return job;
  if (!/^[0-9a-f-]{36}$/.test(job)) throw new ConfigError('job', job, 'a job on AWS is named by its job id (a UUID such as 3f2a9c1e-...) or its execution\'s ARN, as its start printed them');
  if (stack === undefined) throw new ConfigError('--stack', undefined, `name the deployed stack the job ${job} ran on (--stack csv-import-dev), or give the execution ARN the start printed`);
  return executionArnOf(await stateMachineOfStack(sfn, stack), job);
}

/**
 * How long a status read right after the command's own start waits for the execution to be seen:
 * DescribeExecution (and the calls after it) are eventually consistent, and can answer
 * ExecutionDoesNotExist for an execution started a moment ago.
 */
const SEEN_AFTER_START_MS = [250, 500, 1_000, 2_000, 4_000];

/**
 * @param {{ sfn: SFNClient, s3: S3Client }} clients @param {string} executionArn
 * @param {{ justStarted?: boolean, sleep?: (ms: number) => Promise<void> }} [options]
 *   justStarted: the command started it (or was told it was): ExecutionDoesNotExist is read again a few times
 * @returns {Promise<ExecutionStatus>}
 */
export async function readExecutionStatus(clients, executionArn, { justStarted = false, sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) } = {}) {
  for (const waitMs of justStarted ? SEEN_AFTER_START_MS : []) {
    try {
      return await readStatusOnce(clients, executionArn);
    } catch (error) {
      if (/** @type {any} */ (error)?.cause?.name !== 'ExecutionDoesNotExist') throw error;
      await sleep(waitMs);
    }
  }
  return readStatusOnce(clients, executionArn);
}

/**
 * @param {{ sfn: SFNClient, s3: S3Client }} clients @param {string} executionArn
 * @returns {Promise<ExecutionStatus>}
 */
async function readStatusOnce({ sfn, s3 }, executionArn) {
  const execution = await call(() => sfn.send(new DescribeExecutionCommand({ executionArn })), `describe the execution ${executionArn}`, 'states:DescribeExecution');
  const jobId = execution.name ?? executionArn.split(':').at(-1) ?? '';
  /** @type {Record<string, unknown> | undefined} */
  const summary = execution.status === 'SUCCEEDED' && execution.output !== undefined ? JSON.parse(execution.output) : undefined;
  const { planned, idleMs } = await historyOf(sfn, executionArn);
  const mapRunArn = await mapRunOf(sfn, executionArn);
  const [shards, failedShards, sofar] = await Promise.all([
    mapRunArn === undefined ? undefined : shardCounts(sfn, mapRunArn),
    mapRunArn === undefined ? [] : failedShardsOf(sfn, mapRunArn),
    planned === undefined ? undefined : rowsSoFar(s3, planned),
  ]);
  const rows = sofar === undefined || !execution.redriveCount || execution.startDate === undefined ? sofar : { ...sofar, ...activeRate(sofar.rowsRead, execution.startDate, execution.stopDate ?? new Date(), idleMs) };
  return {
    jobId,
    executionArn,
    status: execution.status ?? 'UNKNOWN',
    console: consoleLinkOf(executionArn),
    ...(execution.startDate === undefined ? {} : { startDate: execution.startDate.toISOString() }),
    ...(execution.stopDate === undefined ? {} : { stopDate: execution.stopDate.toISOString() }),
    ...(execution.redriveCount === undefined ? {} : { redriveCount: execution.redriveCount }),
    ...(execution.error === undefined ? {} : { error: execution.error, cause: execution.cause }),
    ...(shards === undefined ? {} : { shards }),
    failedShards,
    ...(rows === undefined ? {} : { rows }),
    ...(summary === undefined ? {} : { summary }),
    ...(planned === undefined ? {} : { source: sourceOf(planned.job) }),
    failed: ENDED_FAILED.has(execution.status ?? '') || (summary !== undefined && summary.state !== 'done'),
  };
}

/** An execution that ended so can be redriven (within 14 days). */
export const ENDED_FAILED = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

/** What a job's payload imports, as the command line names it. @param {Record<string, unknown>} job */
const sourceOf = (job) => `s3://${String(job.bucket)}/${String(job.key ?? job.prefix ?? '')}`;

/**
 * Redrives a failed job: its failed shards run again, each from the step it failed in, then Summarize.
 * Refused while a shard's segment is still writing: a Map run that fails stops its other children, but
 * not the Lambda invocations they were waiting on, which write on until they end (up to 15 minutes); a
 * redrive then would run a second writer on those shards, and an older row of a key could land last.
 * @param {{ sfn: SFNClient, s3: S3Client }} clients @param {string} executionArn
 */
export async function redriveJob({ sfn, s3 }, executionArn) {
  const { planned } = await historyOf(sfn, executionArn);
  const shards = planned === undefined ? [] : ((await jobStatusOf(s3, planned))?.shards ?? []);
  const writing = shards.filter((shard) => shard.state === 'running' && shard.handedOverAt === undefined);
  if (writing.length > 0) {
    const which = writing.map((shard) => `${shard.shard + 1} (status ${shard.updatedAt})`).join(', ');
    throw new JobError(`shard${writing.length === 1 ? '' : 's'} ${which} of the job ${writing.length === 1 ? 'is' : 'are'} still being written by the invocation the failed run left: a redrive now would run a second writer on ${writing.length === 1 ? 'it' : 'them'}; run it again once ${writing.length === 1 ? 'that status stops' : 'those statuses stop'} changing (at most 15 minutes after the job failed; ddbload status shows them)`);
  }
  try {
    const { redriveDate } = await sfn.send(new RedriveExecutionCommand({ executionArn }));
    return { executionArn, redriven: true, redriveDate: redriveDate?.toISOString(), console: consoleLinkOf(executionArn) };
  } catch (error) {
    if (/** @type {Error} */ (error)?.name === 'ExecutionNotRedrivable') {
      const status = await readExecutionStatus({ sfn, s3 }, executionArn).catch(() => undefined);
      if (status?.status === 'SUCCEEDED' && status.failed) throw new JobError(`the job's execution cannot be redriven: it SUCCEEDED, its failed shards within toleratedFailurePercentage; ${rerunAdvice(status)}`);
      throw new JobError(`the job's execution cannot be redriven: ${/** @type {Error} */ (error).message} (only a FAILED, TIMED_OUT or ABORTED execution, within 14 days of its start, is); see its state with \`ddbload status\``);
    }
    throw new AwsCallError(`redrive ${executionArn}`, error, undefined, '; your credentials need states:RedriveExecution on it');
  }
}

/**
 * From the execution's history: what Plan answered (where the shard list and results are), and the time
 * it stood failed before each redrive (from each ExecutionFailed, TimedOut or Aborted to the
 * ExecutionRedriven after it). The job's own history is short (its shards' are their children's).
 * @param {SFNClient} sfn @param {string} executionArn
 * @returns {Promise<{ planned: import('./steps.js').PlannedJob | undefined, idleMs: number }>}  planned: undefined until Plan has ended
 */
async function historyOf(sfn, executionArn) {
  /** @type {import('./steps.js').PlannedJob | undefined} */
  let planned;
  let idleMs = 0;
  /** @type {number | undefined} */
  let endedAt;
  /** @type {string | undefined} */
  let nextToken;
  do {
    const page = await call(() => sfn.send(new GetExecutionHistoryCommand({ executionArn, nextToken, maxResults: 1000, includeExecutionData: true })), `read the history of ${executionArn}`, 'states:GetExecutionHistory');
    for (const event of page.events ?? []) {
      const exited = event.stateExitedEventDetails;
      if (planned === undefined && exited?.name === 'Plan' && exited.output !== undefined) planned = JSON.parse(exited.output);
      const at = event.timestamp?.getTime();
      if (event.type === 'ExecutionFailed' || event.type === 'ExecutionTimedOut' || event.type === 'ExecutionAborted') endedAt = at;
      if (event.type === 'ExecutionRedriven' && endedAt !== undefined && at !== undefined) {
        idleMs += Math.max(0, at - endedAt);
        endedAt = undefined;
      }
    }
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return { planned, idleMs };
}

/**
 * A redriven job's time and rate: from its start to its end (or now), less the time it stood failed
 * before each redrive, when nothing ran.
 * @param {number} rowsRead @param {Date} start @param {Date} end @param {number} idleMs
 */
export function activeRate(rowsRead, start, end, idleMs) {
  const seconds = Math.max(0, (end.getTime() - start.getTime() - idleMs) / 1000);
  return { seconds, rowsPerSecond: seconds > 0 ? Math.round(rowsRead / seconds) : 0 };
}

/** @param {SFNClient} sfn @param {string} executionArn */
async function mapRunOf(sfn, executionArn) {
  const { mapRuns } = await call(() => sfn.send(new ListMapRunsCommand({ executionArn })), `list the map runs of ${executionArn}`, 'states:ListMapRuns');
  // A redrive goes on in the same map run; were there several, the latest started is the one to show
  // (ListMapRuns promises no order).
  const latest = (mapRuns ?? []).reduce((/** @type {import('@aws-sdk/client-sfn').MapRunListItem | undefined} */ best, run) => (best === undefined || (run.startDate?.getTime() ?? 0) > (best.startDate?.getTime() ?? 0) ? run : best), undefined);
  return latest?.mapRunArn;
}

/** @param {SFNClient} sfn @param {string} mapRunArn */
async function shardCounts(sfn, mapRunArn) {
  const { itemCounts: c } = await call(() => sfn.send(new DescribeMapRunCommand({ mapRunArn })), `describe the map run ${mapRunArn}`, 'states:DescribeMapRun');
  return { total: c?.total ?? 0, pending: c?.pending ?? 0, running: c?.running ?? 0, succeeded: c?.succeeded ?? 0, failed: c?.failed ?? 0, timedOut: c?.timedOut ?? 0, aborted: c?.aborted ?? 0, pendingRedrive: c?.pendingRedrive ?? 0, failuresNotRedrivable: c?.failuresNotRedrivable ?? 0 };
}

/**
 * The failed shards' errors, from their child executions: failed, timed out, or aborted (a Map run that
 * fails stops its other children).
 * @param {SFNClient} sfn @param {string} mapRunArn
 */
async function failedShardsOf(sfn, mapRunArn) {
  const listed = await Promise.all(
    /** @type {const} */ (['FAILED', 'TIMED_OUT', 'ABORTED']).map((statusFilter) =>
      call(() => sfn.send(new ListExecutionsCommand({ mapRunArn, statusFilter, maxResults: FAILED_SHOWN })), `list the ${statusFilter} shards of ${mapRunArn}`, 'states:ListExecutions'),
    ),
  );
  const children = listed.flatMap((page) => page.executions ?? []).slice(0, FAILED_SHOWN);
  return Promise.all(
    children.map(async ({ executionArn, status }) => {
      const child = await call(() => sfn.send(new DescribeExecutionCommand({ executionArn })), `describe the shard ${executionArn}`, 'states:DescribeExecution');
      return { shard: shardOfChild(child.input), error: child.error ?? status, cause: causeOf(child.cause)?.slice(0, 500) };
    }),
  );
}

/**
 * The rows so far, from the shards' status objects beside the shard list.
 * @param {S3Client} s3 @param {import('./steps.js').PlannedJob} planned
 */
async function rowsSoFar(s3, planned) {
  return (await jobStatusOf(s3, planned))?.total;
}

/** Every shard's status object, beside the shard list Plan wrote. @param {S3Client} s3 @param {import('./steps.js').PlannedJob} planned */
function jobStatusOf(s3, planned) {
  const prefix = planned.shardList.key.slice(0, planned.shardList.key.length - `${planned.jobId}/shards.jsonl`.length);
  return readJobStatus(bucketStore(s3, planned.shardList.bucket), prefix, planned.jobId);
}

/**
 * @template T
 * @param {() => Promise<T>} send @param {string} what @param {string} permission
 */
async function call(send, what, permission) {
  try {
    return await send();
  } catch (error) {
    if (/** @type {Error} */ (error)?.name === 'ExecutionDoesNotExist') throw new JobError(`no such job execution: could not ${what}; check the job id, the stack (--stack) and the region (--region)`, { cause: error });
    throw new AwsCallError(what, error, undefined, `; your credentials need ${permission}`);
  }
}

/**
 * How to run a job's failed shards again: a redrive when its execution failed (only its failed shards,
 * each from where it failed); else, an execution that SUCCEEDED with shards failed within its tolerance
 * (Step Functions redrives no SUCCEEDED execution), another run of the job, a job of its own.
 * @param {ExecutionStatus} status
 */
export function rerunAdvice(status) {
  if (ENDED_FAILED.has(status.status)) return `to re-run only its failed shards: ddbload redrive ${status.executionArn}`;
  const shards = /** @type {unknown[] | undefined} */ (status.summary?.failedShards)?.length ?? 0;
  return `Step Functions redrives no SUCCEEDED execution, so to import ${shards === 1 ? 'the failed shard' : `the ${shards} failed shards`} run the job again, with the same options and a new --run-id (ddbload import ${status.source ?? 's3://...'} --on-aws --run-id 2 ...): every shard runs again, and rows already written are written again as they are`;
}

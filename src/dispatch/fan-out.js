/**
 * A sharded job's dispatch: with its plan (plan/job-plan.js), start every shard that is not done: one
 * asynchronous invocation of this function per shard on AWS, one worker process per shard anywhere
 * else. Each shard is an ordinary import of its byte range, with its own rejects files, status object
 * and continuations; the job's maxWcu is split evenly between them.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { ConfigError, JobError } from '../errors.js';
import { writeOptionsOf } from '../state/write-options.js';
import { invokeSelf } from './continuation.js';
import { markShardFailed, readJobStatus, recordLatestJob } from '../state/job-status.js';
import { outputStoreFor } from '../state/output-store.js';
import { sourceFields, sourceId } from '../source/source-name.js';
import { exportBooks, planJob, shardPayloads } from '../plan/job-plan.js';

/** @typedef {import('../config/index.js').ImportConfig} ImportConfig */
/** @typedef {import('../state/job-status.js').JobPlan} JobPlan */

const WORKER = fileURLToPath(new URL('../worker.js', import.meta.url));

/** A worker's exit code when another run, alive, holds its shard (JobRunningError): the status is that run's. */
export const WORKER_REFUSED = 3;

/**
 * Worker processes a job over many objects runs at once off Lambda, unless shardConcurrency says (a job
 * cut into `shards` runs them all: their number is the user's). maxWcu is divided between those at once.
 */
const LOCAL_WORKERS_AT_ONCE = 4;

/**
 * @typedef {object} FanOutDeps
 * @property {import('../clients.js').Clients} clients
 * @property {import('../types.js').Logger} logger
 * @property {string | undefined} functionArn  this invocation's ARN; needed on AWS
 */

/**
 * Runs a sharded job. On AWS it starts the shards and returns at once; locally it waits for them and
 * returns the job's status. Undefined when the job turns out to need no sharding.
 * @param {Record<string, unknown>} payload
 * @param {Readonly<ImportConfig>} config
 * @param {FanOutDeps} deps
 */
export async function runShardedJob(payload, config, { clients, logger, functionArn }) {
  const store = outputStoreFor(config, clients.s3);
  const plan = await planJob(config, clients.s3, store);
  if (plan === undefined) return undefined;
  const status = await readJobStatus(store, config.statusPrefix, plan.jobId, plan);
  await recordLatestJob(store, config.statusPrefix, { source: sourceId(config), etag: plan.etag, table: config.table, jobId: plan.jobId, options: writeOptionsOf(config) });
  // (At least one: a file of a header and no rows is planned with no shard.)
  const atOnce = Math.max(1, Math.min(plan.shards.length, config.shardConcurrency ?? (config.continuation !== 'invoke' && plan.objects !== undefined ? LOCAL_WORKERS_AT_ONCE : plan.shards.length)));
  const payloads = shardPayloads(payload, plan, config.maxWcu, atOnce);
  // Shards done, and shards alive and running (their status updated within their heartbeat), are left alone.
  const todo = payloads.filter((_, index) => status?.shards[index]?.state !== 'done' && status?.shards[index]?.state !== 'running');
  const skipped = status?.shards.filter((shard) => shard.state === 'done').length ?? 0;
  const alive = status?.shards.filter((shard) => shard.state === 'running').length ?? 0;
  // A run with nothing left to do says so: the totals it shows are the earlier runs'.
  const nothingLeft = todo.length === 0 && alive === 0 ? `every shard of job ${plan.jobId} was done by an earlier run with these options: nothing was read or written now, and the totals are that run's. To import it again, delete ${store.where(`${config.statusPrefix}${plan.jobId}/`)} (or pass another runId)` : undefined;
  const note = [plan.note, nothingLeft].filter((part) => part !== undefined).join('; ') || undefined;
  logger.info('job planned', { jobId: plan.jobId, ...sourceFields(config), shards: plan.shards.length, starting: todo.length, alreadyDone: skipped, stillRunning: alive, note });

  if (config.continuation === 'invoke') {
    if (functionArn === undefined) throw new ConfigError('continuation', 'invoke', 'a sharded job starts its shards as invocations, which needs the Lambda context (invokedFunctionArn); off Lambda, use "in-process"');
    // Each shard is a separate asynchronous invocation, with Lambda's own retries and on-failure queue.
    const limit = pLimit(16);
    await Promise.all(todo.map((shardPayload) => limit(() => invokeSelf(config, functionArn, shardPayload))));
    return { jobId: plan.jobId, shards: plan.shards.length, started: todo.length, alreadyDone: skipped, statusPrefix: store.where(`${config.statusPrefix}${plan.jobId}/`), note };
  }

  const limit = pLimit(atOnce);
  const results = await Promise.all(todo.map((shardPayload) => limit(async () => (await startLocalWorkers([shardPayload]).done)[0])));
  for (const [i, result] of results.entries()) {
    if (result.code === 0 || result.code === WORKER_REFUSED) continue;
    // A worker that died without saying so (killed, out of memory): record it, so that the job shows it failed.
    const index = /** @type {{ shard: { index: number } }} */ (todo[i]).shard.index;
    await markShardFailed(store, config.statusPrefix, plan.jobId, index, `worker process exited with ${result.signal ?? `code ${result.code}`}`);
  }
  const final = await readJobStatus(store, config.statusPrefix, plan.jobId, plan);
  if (final === undefined) throw new JobError(`job ${plan.jobId} left no status in ${store.where(config.statusPrefix)}`);
  const summary = { jobId: plan.jobId, ...sourceFields(config), table: config.table, ...(plan.objects === undefined ? {} : { objects: plan.objects }), shards: plan.shards.length, started: todo.length, alreadyDone: skipped, ...final.total, ...(note === undefined ? {} : { note }), ...exportBooks(plan, final.total) };
  logger.info('job summary', summary);
  if (final.total.state !== 'done') {
    const failed = final.shards.filter((s) => s.state !== 'done').map((s) => `shard ${s.shard + 1}: ${s.error ?? s.state}`);
    throw new JobError(`job ${plan.jobId}: ${failed.length} of ${plan.shards.length} shards did not finish (${failed.join('; ')}); run the job again to re-run only those`);
  }
  return summary;
}

/**
 * One worker process per payload (a shard, or a whole job), all at once, with this process's
 * environment. `done` gives each worker's exit, in the order of the payloads.
 * @param {Array<Record<string, unknown>>} payloads
 * @param {{ output?: (index: number) => number }} [options]  a file descriptor for each worker's logs; default: this process's
 * @returns {{ children: import('node:child_process').ChildProcess[], done: Promise<Array<{ code: number | null, signal: NodeJS.Signals | null }>> }}
 */
export function startLocalWorkers(payloads, { output } = {}) {
  // This process has already shown the SDK's warning about the Node version, if it applies; N copies say no more.
  const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const children = payloads.map((payload, i) => {
    const out = output?.(i) ?? 'inherit';
    // The IPC channel closes when this process dies, however (a SIGKILL too): the worker then stops.
    return spawn(process.execPath, [WORKER], { env: { ...env, SHARD_PAYLOAD: JSON.stringify(payload) }, stdio: ['ignore', out, out, 'ipc'] });
  });
  const done = Promise.all(
    children.map(
      (child) =>
        /** @type {Promise<{ code: number | null, signal: NodeJS.Signals | null }>} */ (
          new Promise((resolve) => {
            child.once('error', () => resolve({ code: -1, signal: null }));
            child.once('exit', (code, signal) => resolve({ code, signal }));
          })
        ),
    ),
  );
  return { children, done };
}

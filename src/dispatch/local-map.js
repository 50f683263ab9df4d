/**
 * A sharded job off AWS: the state machine's path (deploy/state-machine.cjs) run in this process, with
 * the same Plan, ImportSegment and Summarize steps; a worker process stands in for each child execution.
 * Plan writes the shard list; the map reads it back, runs each shard not done yet (at most
 * maxConcurrency at once, each worker looping ImportSegment until its shard is done), writes the
 * children's results as a ResultWriter lays them out, and Summarize adds them up. A re-run of the job
 * works as a redrive: a shard whose status says done keeps its result, a shard alive in another run is
 * left alone, and the others run again from their start (their rows written again change nothing).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { JobError } from '../errors.js';
import { writeOptionsOf } from '../state/write-options.js';
import { markShardFailed, markShardStopped, readJobStatus, recordLatestJob } from '../state/job-status.js';
import { outputStoreFor } from '../state/output-store.js';
import { newRunName, planKey } from '../state/object-keys.js';
import { sourceFields, sourceId } from '../source/source-name.js';
import { writeMapResults } from './map-results.js';
import { planStep, summarizeJob } from './step-functions/steps.js';

/** @typedef {import('../config/index.js').ImportConfig} ImportConfig */
/** @typedef {import('./map-results.js').ChildResult} ChildResult */

const WORKER = fileURLToPath(new URL('../worker.js', import.meta.url));

/** A worker's exit code when another run, alive, holds its shard (JobRunningError): the status is that run's. */
export const WORKER_REFUSED = 3;

/**
 * Worker processes a job over many objects runs at once off Lambda, unless shardConcurrency says (a job
 * cut into `shards` runs them all: their number is the user's). maxWcu is divided between those at once.
 */
const LOCAL_WORKERS_AT_ONCE = 4;

/**
 * What a worker tells the map before it exits: its shard's summary, or why it failed.
 * @typedef {{ output: unknown } | { error: { name: string, message: string } }} WorkerAnswer
 */

/**
 * Runs a sharded job and returns its summary; undefined when the job turns out to need no sharding (it
 * then runs in this process, as before).
 * @param {Record<string, unknown>} payload
 * @param {Readonly<ImportConfig>} config
 * @param {{ clients: import('../clients.js').Clients, logger: import('../types.js').Logger, env: Record<string, string | undefined>, stop?: AbortSignal }} deps
 *   stop: a person stopped the job (Ctrl-C, SIGINT to the command): the workers are stopped, no other starts, and their shards are stopped, not failed
 */
export async function runLocalJob(payload, config, { clients, logger, env, stop }) {
  const store = outputStoreFor(config, clients.s3);
  let planning = await planStep(payload, { env, objectsAtOnce: LOCAL_WORKERS_AT_ONCE, stop });
  // Plan paused (segmentMs): it goes on, as the state machine runs it again; stopped, it keeps how far it got.
  while ('planning' in planning) {
    if (stop?.aborted) throw new JobError(`job ${planning.jobId}: stopped (Ctrl-C) while planning; run the same command again: the plan goes on from where it stopped`);
    logger.info('job planning', { jobId: planning.jobId, byte: planning.byte, bytes: planning.bytes });
    planning = await planStep(payload, { env, objectsAtOnce: LOCAL_WORKERS_AT_ONCE, stop });
  }
  const planned = planning;
  const items = await readShardList(store, planned.shardList.key);
  if (items.length === 1 && items[0]?.shard === undefined) return undefined;
  /** @type {import('../state/job-status.js').JobPlan} */
  const plan = await store.getJson(planKey(config.statusPrefix, planned.jobId));
  const status = await readJobStatus(store, config.statusPrefix, planned.jobId, plan);
  await recordLatestJob(store, config.statusPrefix, { source: sourceId(config), etag: plan.etag, table: config.table, jobId: planned.jobId, options: writeOptionsOf(config) });
  const stateOf = (/** @type {number} */ index) => status?.shards[index]?.state;
  const todo = items.map((_, index) => index).filter((index) => stateOf(index) !== 'done' && stateOf(index) !== 'running');
  const alreadyDone = items.filter((_, index) => stateOf(index) === 'done').length;
  const running = items.map((_, index) => index).filter((index) => stateOf(index) === 'running');
  const nothingLeft = todo.length === 0 && running.length === 0 ? `every shard of job ${planned.jobId} was done by an earlier run with these options: nothing was read or written now, and the totals are that run's. To import it again, delete ${store.where(`${config.statusPrefix}${planned.jobId}/`)} (or pass another runId)` : undefined;
  const note = [plan.note, nothingLeft].filter((part) => part !== undefined).join('; ') || undefined;
  logger.info('job planned', { jobId: planned.jobId, ...sourceFields(config), shards: items.length, starting: todo.length, alreadyDone, stillRunning: running.length, note });

  /** @type {Array<ChildResult | undefined>} */
  const results = items.map((item, index) => (stateOf(index) === 'done' ? childResult(item, index, { output: status?.shards[index] }) : undefined));
  const limit = pLimit(planned.maxConcurrency);
  await Promise.all(todo.map((index) => limit(async () => (results[index] = await runChild(store, config, planned.jobId, items[index], index, stop)))));
  if (stop?.aborted) {
    const stopped = todo.filter((index) => results[index]?.Status !== 'SUCCEEDED').length;
    throw new JobError(`job ${planned.jobId}: stopped (Ctrl-C) with ${stopped} of ${items.length} shards not done; run the same command again: shards that finished are skipped, the others run again from their start (rows written are written again, which changes nothing)`);
  }
  // A shard another run took meanwhile has no result here: the job is that run's to finish and add up.
  const refused = todo.filter((index) => results[index] === undefined);
  if (running.length + refused.length > 0) {
    const failed = results.flatMap((result, index) => (result?.Status === 'FAILED' ? [`shard ${index + 1}: ${result.Cause ?? result.Error}`] : []));
    const elsewhere = [...running, ...refused].sort((a, b) => a - b).map((index) => `shard ${index + 1}: running`);
    throw didNotFinish(planned.jobId, items.length, [...failed, ...elsewhere], ' (a running shard is left to its run: ddbload status shows it)');
  }

  const mapRunArn = `arn:aws:states:local:000000000000:mapRun:${planned.jobId}/Shards:local-${newRunName()}`;
  const details = await writeMapResults(store, { bucket: planned.results.bucket, prefix: planned.results.prefix, mapRunArn }, results.flatMap((result) => (result === undefined ? [] : [result])));
  // The job's time: from its plan, which an earlier run of it may have made.
  const startedAt = plan.createdAt;
  const summary = await summarizeJob({ jobId: planned.jobId, job: payload, shards: items.length, startedAt, results: details }, { logger, env, resultsStore: store });
  const job = { ...summary, ...sourceFields(config), started: todo.length, alreadyDone, ...(note === undefined ? {} : { note }) };
  if (job.state !== 'done') {
    const failed = (summary.failedShards ?? []).map((shard) => `shard ${(shard.shard ?? 0) + 1}: ${shard.cause ?? shard.error}`);
    throw didNotFinish(planned.jobId, items.length, failed);
  }
  return job;
}

/**
 * @param {string} jobId @param {number} shards @param {string[]} unfinished  "shard N: why", each
 * @param {string} [more]  after the advice
 */
function didNotFinish(jobId, shards, unfinished, more = '') {
  return new JobError(`job ${jobId}: ${unfinished.length} of ${shards} shards did not finish (${unfinished.join('; ')}); run the job again to re-run only those${more}`);
}

/** The Map's ItemReader: one shard's payload a line. @param {import('../state/output-store.js').OutputStore} store @param {string} key */
async function readShardList(store, key) {
  const text = await store.getText(key);
  if (text === undefined) throw new JobError(`the shard list ${store.where(key)} that Plan wrote is not there`);
  return text.split('\n').filter((line) => line !== '').map((line) => /** @type {Record<string, any>} */ (JSON.parse(line)));
}

/**
 * A child execution: a worker process that loops ImportSegment over its shard until it is done.
 * @param {import('../state/output-store.js').OutputStore} store @param {Readonly<ImportConfig>} config
 * @param {string} jobId @param {Record<string, unknown>} item @param {number} index @param {AbortSignal | undefined} stop
 * @returns {Promise<ChildResult | undefined>}  undefined: another run, alive, holds the shard
 */
async function runChild(store, config, jobId, item, index, stop) {
  const stoppedNote = 'stopped (Ctrl-C) before it was done; run the job again to run it';
  // A shard not yet started when the job was stopped is left pending.
  if (stop?.aborted) return childResult(item, index, { error: { name: 'Stopped', message: stoppedNote } });
  const worker = startLocalWorkers([item]);
  /** @type {WorkerAnswer | undefined} */
  let answer;
  worker.children[0]?.on('message', (message) => (answer = /** @type {WorkerAnswer} */ (message)));
  // A SIGINT to this process alone (kill -INT) reaches no worker: each is told here. A Ctrl-C on a
  // terminal reached them already, as this process's group; a second SIGINT changes nothing.
  const tell = () => worker.children[0]?.kill('SIGINT');
  stop?.addEventListener('abort', tell, { once: true });
  const [exit] = await worker.done;
  stop?.removeEventListener('abort', tell);
  if ((stop?.aborted || exit?.signal === 'SIGINT') && exit?.code !== 0 && exit?.code !== WORKER_REFUSED) {
    const status = (await readJobStatus(store, config.statusPrefix, jobId))?.shards[index];
    if (status?.state === 'done') return childResult(item, index, { output: status });
    await markShardStopped(store, config.statusPrefix, jobId, index, stoppedNote);
    return childResult(item, index, { error: { name: 'Stopped', message: stoppedNote } });
  }
  if (exit?.code === WORKER_REFUSED) return undefined;
  if (answer !== undefined && (exit?.code === 0 || 'error' in answer)) return childResult(item, index, answer);
  // Killed after its shard was done, before it said so: the shard's status is its result.
  /** @type {import('../state/job-status.js').ShardStatus | undefined} */
  const status = (await readJobStatus(store, config.statusPrefix, jobId))?.shards[index];
  if (status?.state === 'done') return childResult(item, index, { output: status });
  // A worker that died without saying so (killed, out of memory): its status says so, for `ddbload status`.
  const cause = `worker process exited with ${exit?.signal ?? `code ${exit?.code}`}`;
  await markShardFailed(store, config.statusPrefix, jobId, index, cause);
  return childResult(item, index, { error: { name: 'WorkerExited', message: cause } });
}

/** @param {Record<string, unknown>} item @param {number} index @param {WorkerAnswer} answer @returns {ChildResult} */
function childResult(item, index, answer) {
  const common = { Name: `shard-${index + 1}`, Input: JSON.stringify({ shard: item, segment: { done: false } }) };
  if ('output' in answer) return { ...common, Status: 'SUCCEEDED', Output: JSON.stringify(answer.output) };
  return { ...common, Status: 'FAILED', Error: answer.error.name, Cause: answer.error.message };
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
  // Under a test runner, a worker's lines go through this process's console, which the runner shows only
  // for a test that fails (written to the inherited descriptors, they would bury its results).
  const throughConsole = process.env.DDBLOAD_LOGS_TO_CONSOLE === 'true';
  const children = payloads.map((payload, i) => {
    const out = output?.(i) ?? (throughConsole ? 'pipe' : 'inherit');
    // The IPC channel closes when this process dies, however (a SIGKILL too): the worker then stops.
    const child = spawn(process.execPath, [WORKER], { env: { ...env, SHARD_PAYLOAD: JSON.stringify(payload) }, stdio: ['ignore', out, out, 'ipc'] });
    if (out === 'pipe') {
      child.stdout?.setEncoding('utf8').on('data', (text) => console.log(String(text).trimEnd()));
      child.stderr?.setEncoding('utf8').on('data', (text) => console.error(String(text).trimEnd()));
    }
    return child;
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

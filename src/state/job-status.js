/**
 * Job status in the output store (the output bucket, or the directory of a local file), under `<statusPrefix><job id>/`:
 *   plan.json             the job: object, version, header and shard ranges (written before any shard starts)
 *   shard-0001.json ...   each shard's running, then final summary: state, counters, rows/s, rejects objects
 * Anyone who can read the bucket can follow a job; a re-run of a sharded job reads them to start only the
 * shards that are not done.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { sumSummaries } from '../observe/counters.js';
import { etagOf } from '../source/s3-object.js';
import { latestJobKey, planKey, shardStatusKey } from './object-keys.js';
import { jobIdOf } from './checkpoint.js';
import { JobRunningError } from '../errors.js';

/**
 * A shard's state. `lost` is never written: it is how a reader sees a `running` shard whose status has not
 * been updated for longer than its heartbeat allows (a killed worker, a Lambda timed out or out of
 * memory); a re-run starts it again, and leaves alone a running shard that is alive.
 * @typedef {'pending' | 'running' | 'done' | 'failed' | 'lost' | 'stopped'} ShardState
 */

/**
 * How long a running shard may go without a status update before it is taken for lost: ten of its
 * throughput intervals (a minute at least); a shard that handed over to its next invocation, 15 minutes.
 * @param {{ heartbeatMs?: number, handedOverAt?: unknown }} status
 */
const silenceAllowedMs = (status) => (status.handedOverAt !== undefined ? 15 * 60_000 : Math.max(60_000, 10 * (status.heartbeatMs ?? 1_000)));

/**
 * @typedef {object} JobPlan
 * @property {string} jobId
 * @property {string} [bucket]  an S3 source's
 * @property {string} [key]
 * @property {string} [file]  a local source's
 * @property {string} [prefix]  a job over every object under it
 * @property {number} [objects]  a job over many objects: how many
 * @property {{ exportArn?: string, exportType?: string, itemCount: number }} [export]  a job over a DynamoDB export: its manifest's figures
 * @property {import('../config/index.js').Format} [format]  a cut JSON object's (absent: CSV, or decided per object)
 * @property {string} etag  the object's version; in a job over many, a digest of their versions (an export's: its manifest's)
 * @property {number} bytes
 * @property {string[]} header
 * @property {import('../records/csv/text-encoding.js').Encoding} [encoding]  the file's (absent in a plan from before it was kept)
 * @property {Array<import('../plan/shard-plan.js').ShardRange>} shards
 * @property {{ delimiter: string, encoding: string, shards: number, bytesPerShard: number | null }} [options]  the options it was cut by
 * @property {string} createdAt
 * @property {string} [note]
 */

/**
 * @typedef {Partial<import('../segment/import-segment.js').ImportSummary> & {
 *   jobId: string, shard: number, shards: number, state: ShardState, updatedAt: string,
 *   rowsRead: number, written: number, rejected: number, error?: string, runner?: ReturnType<typeof runnerOf>,
 *   handedOverAt?: { byte: number, line: number }, heartbeatMs?: number
 * }} ShardStatus
 */

/**
 * Who is running a shard, so that its logs can be found: the Lambda log stream, or the local process (its
 * pid is one only within its pid namespace: containers may share a host name and not their pids).
 * @returns {{ logGroup?: string, logStream: string } | { pid: number, host: string, pids?: string }}
 */
export function runnerOf() {
  const logStream = process.env.AWS_LAMBDA_LOG_STREAM_NAME;
  if (logStream !== undefined) return { logGroup: process.env.AWS_LAMBDA_LOG_GROUP_NAME, logStream };
  return { pid: process.pid, host: hostname(), ...(PID_NAMESPACE === undefined ? {} : { pids: PID_NAMESPACE }) };
}

/** This process's pid namespace (Linux), e.g. pid:[4026531836]; undefined elsewhere. */
const PID_NAMESPACE = (() => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
})();

/**
 * Whether a runner's pid means a process this one can see: same host, and the same pid namespace where
 * both are known.
 * @param {{ pid: number, host: string, pids?: string }} runner
 */
const seenFromHere = (runner) => runner.host === hostname() && (runner.pids === undefined || PID_NAMESPACE === undefined || runner.pids === PID_NAMESPACE);

/**
 * Records that a job of this source version into this table started, for `status` by the source's name.
 * @param {import('./output-store.js').OutputStore} store @param {string} statusPrefix
 * @param {{ source: string, etag: string, table: string, jobId: string, options: import('./write-options.js').WriteOptions }} job
 */
export async function recordLatestJob(store, statusPrefix, { source, etag, table, jobId, options }) {
  await store.putJson(latestJobKey(statusPrefix, source, etag, table), { jobId, options, startedAt: new Date().toISOString() });
}

/**
 * The job last started of this source version into this table, if any.
 * @param {import('./output-store.js').OutputStore} store @param {string} statusPrefix
 * @param {string} source @param {string} etag @param {string} table
 * @returns {Promise<{ jobId: string, options: import('./write-options.js').WriteOptions, startedAt: string } | undefined>}
 */
export const latestJob = (store, statusPrefix, source, etag, table) => store.getJson(latestJobKey(statusPrefix, source, etag, table));

/**
 * The job id of an import of the object's current version (from its ETag), as the import names its job.
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {Parameters<typeof jobIdOf>[0] & { bucket: string, key: string }} config
 */
export async function jobIdOfObject(s3, config) {
  const head = await s3.send(new HeadObjectCommand({ Bucket: config.bucket, Key: config.key }));
  return jobIdOf(config, etagOf(head));
}

/**
 * Marks a shard failed, unless its status says it ended already: for failures its own segment could not
 * record (a worker killed, a hand-over that could not be made).
 * @param {import('./output-store.js').OutputStore} store
 * @param {string} statusPrefix
 * @param {string} jobId @param {number} index @param {string} error
 */
export async function markShardFailed(store, statusPrefix, jobId, index, error) {
  await markShardEnded(store, statusPrefix, jobId, index, 'failed', error);
}

/**
 * A shard a person stopped (Ctrl-C, or SIGINT to the command) before it was done: stopped, not failed; a
 * run of the job again runs it.
 * @param {import('./output-store.js').OutputStore} store @param {string} statusPrefix @param {string} jobId @param {number} index @param {string} note
 */
export async function markShardStopped(store, statusPrefix, jobId, index, note) {
  await markShardEnded(store, statusPrefix, jobId, index, 'stopped', note);
}

/**
 * @param {import('./output-store.js').OutputStore} store @param {string} statusPrefix @param {string} jobId @param {number} index
 * @param {'failed' | 'stopped'} state @param {string} error
 */
async function markShardEnded(store, statusPrefix, jobId, index, state, error) {
  const key = shardStatusKey(statusPrefix, jobId, index);
  const current = await store.getJson(key);
  if (current?.state === 'done' || current?.state === 'failed') return;
  await store.putJson(key, { ...(current ?? { jobId, shard: index, rowsRead: 0, written: 0, rejected: 0 }), state, error, updatedAt: new Date().toISOString() });
}

/**
 * Writes a shard's status every `update`, at most one PUT at a time (a newer status replaces one waiting
 * to be sent), and its final status on `finish`. Status is for people watching: a failed running update
 * is logged by the caller, not fatal; a failed final update is.
 * @param {object} options
 * @param {import('./output-store.js').OutputStore} options.store
 * @param {string} options.key
 * @param {(error: unknown) => void} options.onError
 */
export function createStatusWriter({ store, key, onError }) {
  /** @type {ShardStatus | undefined} */
  let waiting;
  /** @type {Promise<void> | undefined} */
  let sending;

  function sendNext() {
    if (waiting === undefined || sending !== undefined) return;
    const status = waiting;
    waiting = undefined;
    sending = store.putJson(key, status)
      .catch(onError)
      .finally(() => {
        sending = undefined;
        sendNext();
      });
  }

  return {
    /** @param {ShardStatus} status */
    update(status) {
      waiting = status;
      sendNext();
    },
    /** @param {ShardStatus} status */
    async finish(status) {
      waiting = undefined;
      while (sending !== undefined) await sending;
      await store.putJson(key, status);
    },
  };
}

/**
 * Refuses to start a segment while another process is running the same shard of the same job: two runs
 * at once would each write their rows, and the slower could leave an older row of a key after the newer
 * one. A status that handed over (a Lambda continuation, a Ctrl-C'd command) ended its run; a runner on
 * this host whose process is gone, or one silent past its heartbeat, is lost. Two Lambda invocations are
 * not refused here (a retried invocation must not be): on AWS a shard's segments are one Step Functions
 * child's, which retries only errors that mean the invocation did not run.
 * @param {import('./output-store.js').OutputStore} store
 * @param {string} prefix @param {string} jobId @param {number} shard
 * @param {number} [now]
 */
export async function checkNotRunningElsewhere(store, prefix, jobId, shard, now = Date.now()) {
  /** @type {ShardStatus | undefined} */
  const status = await store.getJson(shardStatusKey(prefix, jobId, shard));
  if (status?.state !== 'running' || status.handedOverAt !== undefined || status.runner === undefined) return;
  if (now - (Date.parse(status.updatedAt) || 0) > silenceAllowedMs(status)) return;
  const other = status.runner;
  const self = runnerOf();
  if ('logStream' in other && 'logStream' in self) return;
  if ('pid' in other && seenFromHere(other) && (other.pid === process.pid || !processAlive(other.pid))) return;
  const who = 'pid' in other ? `process ${other.pid} on ${other.host}` : `Lambda log stream ${other.logStream}`;
  throw new JobRunningError(`job ${jobId}${shard > 0 ? ` shard ${shard + 1}` : ''} is being run by ${who} (last status ${status.updatedAt}): two runs at once could leave older rows of a key after newer ones; wait for it to end (ddbload status shows it), or stop it and resume from its checkpoint`);
}

/**
 * A running shard whose runner is a process on this host that is gone (not one that handed over): lost at
 * once, not after its heartbeat's silence.
 * @param {ShardStatus} status
 */
function runnerGone(status) {
  const runner = status.runner;
  return status.handedOverAt === undefined && runner !== undefined && 'pid' in runner && seenFromHere(runner) && runner.pid !== process.pid && !processAlive(runner.pid);
}

/** @param {number} pid */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === 'EPERM';
  }
}

/**
 * @typedef {object} JobStatus
 * @property {string} jobId
 * @property {JobPlan | undefined} plan
 * @property {ShardStatus[]} shards   one per planned shard (state "pending" if it has written nothing yet)
 * @property {import('../observe/counters.js').Summary & { state: ShardState, rejectsObjects: string[] }} total
 */

/**
 * Reads a job's plan and every shard's status. A job without a plan (a plain, unsharded import) has one shard.
 * @param {import('./output-store.js').OutputStore} store
 * @param {string} prefix @param {string} jobId
 * @param {JobPlan} [knownPlan]  the plan, when the caller has it already
 * @param {number} [now]  milliseconds since the epoch, to tell a lost shard
 * @returns {Promise<JobStatus | undefined>}  undefined if the bucket holds nothing for this job
 */
export async function readJobStatus(store, prefix, jobId, knownPlan, now = Date.now()) {
  /** @type {JobPlan | undefined} */
  const plan = knownPlan ?? (await store.getJson(planKey(prefix, jobId)));
  const count = plan === undefined ? 1 : plan.shards.length;
  const found = await Promise.all(Array.from({ length: count }, (_, index) => store.getJson(shardStatusKey(prefix, jobId, index))));
  if (plan === undefined && found[0] === undefined) return undefined;
  /** @type {ShardStatus[]} */
  const shards = found.map((status, index) => {
    // A status of another cut of the job (an unsharded run's, before this plan) is not this shard's.
    if (status === undefined || (status.shards !== undefined && status.shards !== count)) return { jobId, shard: index, shards: count, state: 'pending', updatedAt: '', rowsRead: 0, written: 0, rejected: 0 };
    if (status.state !== 'running') return status;
    if (runnerGone(status)) return { ...status, state: 'lost', error: `its process ${/** @type {{ pid: number }} */ (status.runner).pid} on this host ended without finishing it (killed); run the job again to re-run it` };
    const silentMs = now - (Date.parse(status.updatedAt) || 0);
    return silentMs > silenceAllowedMs(status) ? { ...status, state: 'lost', error: `no status update for ${Math.round(silentMs / 1000)} s: the run was killed or timed out; run the job again to re-run it` } : status;
  });
  return { jobId, plan, shards, total: totalOf(shards, plan) };
}

/**
 * @param {ShardStatus[]} shards
 * @param {JobPlan | undefined} plan
 * @returns {JobStatus['total']}
 */
export function totalOf(shards, plan) {
  /** @type {ShardState} */
  const state = shards.some((s) => s.state === 'failed')
    ? 'failed'
    : shards.some((s) => s.state === 'lost')
      ? 'lost'
    : shards.some((s) => s.state === 'stopped') && !shards.some((s) => s.state === 'running')
      ? 'stopped'
    : shards.every((s) => s.state === 'done')
      ? 'done'
      : shards.every((s) => s.state === 'pending')
        ? 'pending'
        : 'running';
  // The job's time: from the plan (or the first shard's start) to the last update.
  const started = Date.parse(plan?.createdAt ?? '') || Math.min(...shards.map((s) => Date.parse(s.startedAt ?? '') || Infinity));
  const last = Math.max(...shards.map((s) => Date.parse(s.updatedAt) || 0));
  const seconds = Number.isFinite(started) && last > started ? (last - started) / 1000 : 0;
  const total = sumSummaries(shards, seconds);
  return { state, ...total, rowsPerSecond: seconds > 0 ? total.rowsPerSecond : 0, rejectsObjects: shards.flatMap((s) => s.rejectsObjects ?? []) };
}

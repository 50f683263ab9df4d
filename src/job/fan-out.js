/**
 * A sharded job: plan the shards once (or read the plan a first run left), then start every shard that
 * is not done: one asynchronous invocation of this function per shard on AWS, one worker process per
 * shard anywhere else. Each shard is an ordinary import of its byte range, with its own rejects files,
 * status object and continuations; the job's maxWcu is split evenly between them. A job over many objects
 * (a prefix, an export) has one shard per object, or more for a large uncompressed one (bytesPerShard).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { isCollection, MAX_SHARDS } from '../config.js';
import { ConfigError, JobError } from '../errors.js';
import { jobIdOf } from './checkpoint.js';
import { writeOptionsOf } from './write-options.js';
import { invokeSelf } from './continuation.js';
import { markShardFailed, readJobStatus, recordLatestJob } from './job-status.js';
import { planKey } from './object-keys.js';
import { outputStoreFor } from './output-store.js';
import { openRawSource } from '../source/open-bytes.js';
import { sourceFields, sourceId, sourceWhere } from '../source/source-name.js';
import { planLineShards, planShards } from './shard-plan.js';
import { checkHeader } from '../items/header.js';
import { decideFormat } from '../records/format.js';
import { compressionOf, peek } from '../source/compression.js';
import { objectsOfJob } from '../source/job-objects.js';
import { sourceHeaderOf } from '../records/rejects-file.js';

/** @typedef {import('../config.js').ImportConfig} ImportConfig */
/** @typedef {import('./job-status.js').JobPlan} JobPlan */
/** @typedef {import('./shard-plan.js').ShardRange} ShardRange */

const WORKER = fileURLToPath(new URL('../worker.js', import.meta.url));

/** A worker's exit code when another run, alive, holds its shard (JobRunningError): the status is that run's. */
export const WORKER_REFUSED = 3;

/** Options of the job that do not pass on to its shards. */
const JOB_ONLY = ['shards', 'bytesPerShard', 'checkpoint', 'shard', 'maxWcu', 'prefix', 'suffix', 'maxObjects'];

/**
 * Worker processes a job over many objects runs at once off Lambda (a job cut into `shards` runs them
 * all: their number is the user's); on Lambda every shard is an invocation, and the function's
 * reserved concurrency bounds them.
 */
const LOCAL_WORKERS_AT_ONCE = 4;

/**
 * True when the job asks to be sharded (a single object may still turn out to be one shard, see planJob).
 * @param {Readonly<ImportConfig>} config
 */
export function wantsShards(config) {
  return config.shard === undefined && config.checkpoint === undefined && (isCollection(config) || config.shards > 1 || config.bytesPerShard !== undefined);
}

/**
 * The job's plan: the one in the bucket if a run of this object version (or these objects) made one, else
 * a new one. Undefined when a single file is small enough for one shard (bytesPerShard) or compressed,
 * and no plan exists.
 * @param {Readonly<ImportConfig>} config
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {import('./output-store.js').OutputStore} store
 * @returns {Promise<JobPlan | undefined>}
 */
export async function planJob(config, s3, store) {
  if (isCollection(config)) return planCollection(config, s3, store);
  const where = sourceWhere(config);
  const source = await openRawSource(s3, config, { etag: config.etag });
  const jobId = jobIdOf(config, source.etag);
  const existing = await planToKeep(config, store, jobId);
  const { wanted, capped } = shardCountFor(config, source.contentLength);
  if (existing !== undefined || wanted <= 1) {
    source.body.destroy();
    return existing;
  }
  // A compressed file cannot be cut: the job runs as one import, whose summary says so.
  const cut = await cutObject(source.body, { config, key: config.key ?? config.file ?? '', bytes: source.contentLength, shards: wanted, where });
  if (cut === undefined) return undefined;
  const note = [capped, cut.note].filter((part) => part !== undefined).join('; ');
  /** @type {JobPlan} */
  const plan = {
    jobId,
    ...sourceFields(config),
    etag: source.etag,
    bytes: source.contentLength,
    header: cut.header ?? [],
    encoding: cut.encoding,
    ...(cut.format === 'csv' ? {} : { format: cut.format }),
    shards: cut.shards,
    options: planOptionsOf(config),
    createdAt: new Date().toISOString(),
    ...(note === '' ? {} : { note }),
  };
  await store.putJson(planKey(config.statusPrefix, jobId), plan);
  return plan;
}

/**
 * The plan a run of this job left, if this run goes on with it (keepPlan).
 * @param {Readonly<ImportConfig>} config @param {import('./output-store.js').OutputStore} store @param {string} jobId
 * @returns {Promise<JobPlan | undefined>}
 */
async function planToKeep(config, store, jobId) {
  /** @type {JobPlan | undefined} */
  const existing = await store.getJson(planKey(config.statusPrefix, jobId));
  return existing !== undefined && (await keepPlan(existing, config, store)) ? existing : undefined;
}

/**
 * Cuts one object into ranges on record boundaries: a CSV object after its header (checked here, as a
 * segment checks it: a file of a header and no rows has no shard to do so), a JSON one after any LF.
 * Undefined for a compressed object, which cannot be entered mid-way.
 * @param {import('node:stream').Readable} raw  the object as stored, from byte 0
 * @param {{ config: Readonly<ImportConfig>, key: string, bytes: number, shards: number, where: string }} options
 * @returns {Promise<{ format: import('../config.js').Format, shards: ShardRange[], header?: string[], encoding?: import('../records/csv/text-encoding.js').Encoding, note?: string } | undefined>}
 */
async function cutObject(raw, { config, key, bytes, shards, where }) {
  const { first, body } = await peek(raw, 4);
  if (compressionOf(first) !== undefined) {
    body.destroy();
    return undefined;
  }
  const format = decideFormat(config.format, key, first);
  if (format !== 'csv' && !config.fromRejects) return { format, ...(await planLineShards(body, { bytes, shards, where })) };
  const planned = await planShards(body, { bytes, shards, delimiter: config.delimiter, encoding: config.encoding, where });
  // A rejects file's shards carry its source's header, as its segments read it (records/rejects-file.js).
  const header = config.fromRejects ? sourceHeaderOf(planned.header.map((name) => name.trim()), where) : planned.header;
  if (format === 'csv') checkHeader(header.map((name) => name.trim()), config);
  return { format, shards: planned.shards, header, encoding: planned.encoding, ...(planned.note === undefined ? {} : { note: planned.note }) };
}

/**
 * The plan of a job over many objects: one shard per object, from its start (it reads its own header and
 * decides its own format and compression), or more for an uncompressed object past bytesPerShard.
 * @param {Readonly<ImportConfig>} config
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {import('./output-store.js').OutputStore} store
 * @returns {Promise<JobPlan>}
 */
async function planCollection(config, s3, store) {
  const found = await objectsOfJob(s3, config);
  const jobId = jobIdOf(config, found.version);
  const existing = await planToKeep(config, store, jobId);
  if (existing !== undefined) return existing;
  /** @type {ShardRange[]} */
  const shards = [];
  const notes = [...found.notes];
  for (const object of found.objects) {
    const wanted = config.bytesPerShard === undefined ? 1 : Math.ceil(object.bytes / config.bytesPerShard);
    // An export's data files are DynamoDB JSON, whatever their names say and however little they hold.
    const whole = { key: object.key, etag: object.etag, start: 0, end: object.bytes, line: 0, ...(found.export !== undefined && config.format === 'auto' ? { format: /** @type {const} */ ('dynamodb-json') } : {}) };
    if (wanted <= 1) {
      shards.push({ index: shards.length, ...whole });
      continue;
    }
    const ofObject = { ...config, key: object.key, versionId: undefined };
    const source = await openRawSource(s3, ofObject, { etag: object.etag });
    const cut = await cutObject(source.body, { config, key: object.key, bytes: object.bytes, shards: wanted, where: sourceWhere(ofObject) });
    if (cut === undefined) {
      shards.push({ index: shards.length, ...whole });
      continue;
    }
    for (const range of cut.shards) {
      // A range after the object's start carries what its start says: a CSV object's header and encoding (a JSON one's header is empty).
      const after = range.start === 0 ? {} : { header: cut.header ?? [], ...(cut.encoding === undefined ? {} : { encoding: cut.encoding }) };
      shards.push({ ...range, index: shards.length, key: object.key, etag: object.etag, format: cut.format, ...after });
    }
  }
  if (shards.length > MAX_SHARDS) {
    throw new ConfigError('bytesPerShard', config.bytesPerShard, `cuts the job's ${found.objects.length} objects into ${shards.length} shards; a job has at most ${MAX_SHARDS}: raise bytesPerShard`);
  }
  /** @type {JobPlan} */
  const plan = {
    jobId,
    ...sourceFields(config),
    etag: found.version,
    bytes: found.objects.reduce((sum, object) => sum + object.bytes, 0),
    header: [],
    objects: found.objects.length,
    ...(found.export === undefined ? {} : { export: found.export }),
    shards,
    options: planOptionsOf(config),
    createdAt: new Date().toISOString(),
    ...(notes.length === 0 ? {} : { note: notes.join('; ') }),
  };
  await store.putJson(planKey(config.statusPrefix, jobId), plan);
  return plan;
}

/**
 * How many shards a job of this size gets: `shards`, or one per `bytesPerShard`, at most MAX_SHARDS (each
 * shard is a concurrent invocation: bytesPerShard on a huge file must not ask for tens of thousands).
 * @param {Pick<ImportConfig, 'shards' | 'bytesPerShard'>} config @param {number} bytes
 * @returns {{ wanted: number, capped?: string }}
 */
export function shardCountFor(config, bytes) {
  const asked = config.shards > 1 ? config.shards : Math.ceil(bytes / (config.bytesPerShard ?? Infinity));
  if (asked <= MAX_SHARDS) return { wanted: asked };
  return { wanted: MAX_SHARDS, capped: `bytesPerShard ${config.bytesPerShard} asks for ${asked} shards; a job has at most ${MAX_SHARDS}` };
}

/** The options a plan is cut by: a run that asks for others needs another plan. @param {Readonly<ImportConfig>} config */
const planOptionsOf = (config) => ({ delimiter: config.delimiter, encoding: config.encoding, shards: config.shards, bytesPerShard: config.bytesPerShard ?? null });

/**
 * Whether a run goes on with the plan an earlier run of this job left: yes when it asks for the same
 * options; when it asks for others, the job is planned anew if none of its shards has started (a plan
 * cut with a wrong delimiter fails every shard before its first write), and refused otherwise.
 * @param {JobPlan} plan @param {Readonly<ImportConfig>} config @param {import('./output-store.js').OutputStore} store
 */
async function keepPlan(plan, config, store) {
  const wanted = planOptionsOf(config);
  const changed = plan.options === undefined ? [] : /** @type {Array<keyof typeof wanted>} */ (Object.keys(wanted)).filter((name) => plan.options?.[name] !== wanted[name]);
  if (changed.length === 0) return true;
  const status = await readJobStatus(store, config.statusPrefix, plan.jobId, plan);
  const started = status?.shards.filter((shard) => shard.state === 'done' || shard.state === 'running' || (shard.written ?? 0) > 0).length ?? 0;
  if (started === 0) return false;
  const option = changed[0];
  throw new ConfigError(
    option,
    wanted[option],
    `job ${plan.jobId} was planned with ${option} ${JSON.stringify(plan.options?.[option])} and ${started} of its ${plan.shards.length} shards have started; run it again with ${option} ${JSON.stringify(plan.options?.[option])}, or delete ${store.where(planKey(config.statusPrefix, plan.jobId))} to plan it anew (rows already written are written again)`,
  );
}

/**
 * The payload of each shard, from the job's payload: the job's WCU cap (from the payload or MAX_WCU) is
 * shared between the shards, and each shard carries its share, so that none reads the whole cap from
 * the environment.
 * @param {Record<string, unknown>} payload
 * @param {JobPlan} plan
 * @param {number | undefined} maxWcu  the job's cap
 * @param {number} [atOnce]  shards that run at the same time (default: all)
 * @returns {Array<Record<string, unknown>>}
 */
export function shardPayloads(payload, plan, maxWcu, atOnce = plan.shards.length) {
  const common = Object.fromEntries(Object.entries(payload).filter(([name]) => !JOB_ONLY.includes(name)));
  const count = plan.shards.length;
  const share = maxWcu === undefined ? undefined : Math.max(1, Math.floor(maxWcu / Math.min(count, atOnce)));
  return plan.shards.map((range) => {
    // A range after its object's start carries the header read there (its own, in a job over many objects);
    // a range from the start reads its own. A shard of a job over many names its object.
    const header = range.start > 0 ? (range.header ?? plan.header) : undefined;
    const encoding = range.encoding ?? plan.encoding;
    const format = range.format ?? plan.format;
    return {
      ...common,
      ...(range.key === undefined ? {} : { key: range.key }),
      ...(share === undefined ? {} : { maxWcu: share }),
      shard: {
        jobId: plan.jobId, etag: range.etag ?? plan.etag, index: range.index, count, start: range.start, end: range.end, line: range.line,
        ...(header === undefined ? {} : { header }),
        ...(encoding === undefined ? {} : { encoding }),
        ...(format === undefined ? {} : { format }),
      },
    };
  });
}

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
  const atOnce = config.continuation !== 'invoke' && plan.objects !== undefined ? LOCAL_WORKERS_AT_ONCE : Math.max(1, plan.shards.length);
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
 * An export's books: its manifest counts the items (or, in an incremental export, the changes) in its data
 * files, and the job must have read exactly as many rows. Fewer or more means a data file was cut, changed
 * or added: the job is not balanced, and says so.
 * @param {JobPlan} plan @param {{ rowsRead: number, balanced: boolean }} total
 */
function exportBooks(plan, total) {
  if (plan.export === undefined) return {};
  const expected = plan.export.itemCount;
  if (total.rowsRead === expected) return { exportItemCount: expected };
  return { exportItemCount: expected, balanced: false, exportMismatch: `the export's manifest lists ${expected} items and the job read ${total.rowsRead} rows: a data file was cut, changed or added since the export; compare the data folder with manifest-files.json` };
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

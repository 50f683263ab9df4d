/**
 * The three Lambda steps of a job on AWS Step Functions (deploy/state-machine.cjs): Plan writes the
 * job's shard list, the Distributed Map runs one child per shard that loops ImportSegment until the
 * shard is done, and Summarize adds up what the Map's ResultWriter wrote. Their inputs and outputs carry
 * options, byte ranges, checkpoints and counts, never row contents (an execution's history keeps them).
 */
import { clientsFor } from '../../clients.js';
import { resolveConfig } from '../../config/index.js';
import { ConfigError, JobError } from '../../errors.js';
import { sumSummaries } from '../../observe/counters.js';
import { exportBooks, jobIdOfJob, planJob, shardPayloads, wantsShards } from '../../plan/job-plan.js';
import { runSegment } from '../../segment/run-segment.js';
import { cutsAtKeyRuns } from '../../segment/key-runs.js';
import { causeOf, shardOfChild } from '../map-results.js';
import { headerOf, headerStash, isHeaderRef } from './header-ref.js';
import { planKey, resultsPrefix, shardListKey, summaryKey } from '../../state/object-keys.js';
import { bucketStore, outputStoreFor } from '../../state/output-store.js';

/** @typedef {import('../../types.js').Logger} Logger */
/** @typedef {import('../../segment/segment-report.js').ImportSummary} ImportSummary */

/**
 * What Plan hands the Map: where the shard list is, how many run at once, and where results go.
 * @typedef {object} PlannedJob
 * @property {string} jobId
 * @property {Record<string, unknown>} job  the job's payload, as it was asked for
 * @property {{ bucket: string, key: string }} shardList  a JSON Lines object, one shard's payload a line
 * @property {number} shards
 * @property {number} maxConcurrency  shards running at once (what maxWcu is divided by)
 * @property {number} toleratedFailurePercentage
 * @property {{ bucket: string, prefix: string }} results  where the Map's ResultWriter writes
 */

/**
/**
 * What Plan answers when its invocation's time ran out before the last cut: the state machine runs Plan
 * again with the job, and it goes on from the progress it kept in the output store.
 * @typedef {{ planning: true, jobId: string, job: Record<string, unknown>, byte: number, bytes: number }} PlanningJob
 */

/**
 * Plan: the job's shards (one for an object that is not cut), each a payload with its range and its
 * share of maxWcu, written as a JSON Lines object for the Map's ItemReader. Cutting a big object reads
 * it up to its last cut: past segmentMs, or when the invocation's time falls to timeMarginMs, Plan keeps
 * how far it got and answers PlanningJob, and the next Plan goes on (as segments do).
 * @param {Record<string, unknown>} job  the job's payload
 * @param {{ env: Record<string, string | undefined>, objectsAtOnce?: number, headerByRef?: boolean, context?: import('../../segment/run-segment.js').InvocationContext, stop?: AbortSignal }} deps
 *   stop: a person stopped the job (off Lambda): Plan pauses as at its time's end
 *   objectsAtOnce: shards of a job over many objects that run at once when shardConcurrency does not say (default: all);
 *   headerByRef: the shards carry their CSV header by reference (header-ref.js), as in Step Functions' states
 * @returns {Promise<PlannedJob | PlanningJob>}
 */
export async function planStep(job, { env, objectsAtOnce, headerByRef = false, context, stop }) {
  const config = notDryRun(resolveConfig(job, env));
  const clients = clientsFor(config);
  const store = outputStoreFor(config, clients.s3);
  const now = performance.now();
  const remaining = context?.getRemainingTimeInMillis?.();
  const stopBy = Math.min(config.segmentMs === undefined ? Infinity : now + config.segmentMs, remaining === undefined ? Infinity : now + remaining - config.timeMarginMs);
  const pause = () => stop?.aborted === true || performance.now() > stopBy;
  // A payload that resumes (a checkpoint) or runs one shard is one item as it is, as is an object too
  // small to cut or compressed (no plan). The job id is the one its execution was named by.
  const planned = wantsShards(config) ? await planJob(config, clients, store, { pause, cutsAtKeyRuns }) : undefined;
  if (planned !== undefined && 'planning' in planned) return { ...planned, job };
  const plan = planned;
  const jobId = plan?.jobId ?? config.checkpoint?.jobId ?? config.shard?.jobId ?? (await jobIdOfJob(config, clients.s3));
  const count = plan?.shards.length ?? 1;
  const atOnce = config.shardConcurrency ?? (plan?.objects !== undefined ? (objectsAtOnce ?? count) : count);
  const maxConcurrency = Math.max(1, Math.min(count, atOnce));
  const bucket = /** @type {string} */ (config.outputBucket);
  const stash = headerStash(store, bucket, `${config.statusPrefix}${jobId}/`);
  const payloads = plan === undefined ? [job] : shardPayloads(job, plan, config.maxWcu, maxConcurrency);
  const items = headerByRef ? await Promise.all(payloads.map((item) => withHeaderRef(item, stash))) : payloads;
  const key = shardListKey(config.statusPrefix, jobId);
  const upload = store.upload(key, 'application/x-ndjson', 'the shard list');
  for (const item of items) upload.stream.write(`${JSON.stringify(item)}\n`);
  upload.stream.end();
  await upload.done;
  return { jobId, job, shardList: { bucket, key }, shards: items.length, maxConcurrency, toleratedFailurePercentage: config.toleratedFailurePercentage, results: { bucket, prefix: resultsPrefix(config.statusPrefix, jobId) } };
}

/**
 * What a child's loop carries from one ImportSegment to the next: nothing yet, a checkpoint, or the
 * shard's summary once it is done. A checkpoint's CSV header is carried by reference (`headerRef`, see
 * header-ref.js), as is a shard's: a state holds at most 256 KiB.
 * @typedef {{ done: false, checkpoint?: import('../../state/checkpoint.js').Checkpoint } | { done: true, result: ImportSummary }} SegmentState
 */

/**
 * ImportSegment: one segment of one shard, from its checkpoint; it stops before the invocation's time
 * runs out and hands the next one its checkpoint.
 * @param {{ shard: Record<string, unknown>, segment: SegmentState }} input
 * @param {{ logger: Logger, env: Record<string, string | undefined>, context: import('../../segment/run-segment.js').InvocationContext | undefined, headerByRef?: boolean }} deps
 *   headerByRef: the checkpoint carries its CSV header by reference, as in Step Functions' states (a
 *   segment that started from a reference always answers one)
 * @returns {Promise<SegmentState>}
 */
export async function segmentStep({ shard, segment }, { logger, env, context, headerByRef = false }) {
  const checkpoint = segment.done ? undefined : segment.checkpoint;
  const refs = { shard: /** @type {any} */ (shard.shard)?.headerRef, checkpoint: /** @type {any} */ (checkpoint)?.headerRef };
  const payload = checkpoint === undefined ? shard : { ...shard, checkpoint };
  // The options are resolved once the headers are in place (a shard after the header must carry it).
  const clients = clientsFor(resolveConfig(withHeaders(payload, [], []), env));
  const read = async (/** @type {unknown} */ ref) => (isHeaderRef(ref) ? headerOf(bucketStore(clients.s3, ref.bucket), ref) : undefined);
  const config = notDryRun(resolveConfig(withHeaders(payload, await read(refs.shard), await read(refs.checkpoint)), env));
  const outcome = await runSegment(config, { clients: clientsFor(config), logger, context });
  if (outcome.done) return { done: true, result: outcome.summary };
  const { header, ...rest } = outcome.checkpoint;
  const known = refs.checkpoint ?? refs.shard;
  if (header.length === 0 || !(headerByRef || isHeaderRef(known))) return { done: false, checkpoint: outcome.checkpoint };
  // The header the segment started with keeps its reference; one it read (the object's start) is written once.
  const store = outputStoreFor(config, clients.s3);
  const headerRef = isHeaderRef(known) ? known : await headerStash(store, /** @type {string} */ (config.outputBucket), `${config.statusPrefix}${rest.jobId}/`).stow(header);
  return { done: false, checkpoint: /** @type {any} */ ({ ...rest, headerRef }) };
}

/**
 * A payload with its shard's and checkpoint's headers in place of their references (undefined: as it is).
 * @param {Record<string, any>} payload @param {string[] | undefined} shardHeader @param {string[] | undefined} checkpointHeader
 */
function withHeaders(payload, shardHeader, checkpointHeader) {
  const put = (/** @type {Record<string, any> | undefined} */ part, /** @type {string[] | undefined} */ header) => {
    if (part === undefined || part.headerRef === undefined || header === undefined) return part;
    const { headerRef: _ref, ...rest } = part;
    return { ...rest, header };
  };
  return { ...payload, ...(payload.shard === undefined ? {} : { shard: put(payload.shard, shardHeader) }), ...(payload.checkpoint === undefined ? {} : { checkpoint: put(payload.checkpoint, checkpointHeader) }) };
}

/**
 * A shard's payload with its header (when it has one) by reference.
 * @param {Record<string, any>} item @param {ReturnType<typeof headerStash>} stash
 */
async function withHeaderRef(item, stash) {
  const header = item.shard?.header;
  if (!Array.isArray(header) || header.length === 0) return item;
  const { header: _header, ...shard } = item.shard;
  return { ...item, shard: { ...shard, headerRef: await stash.stow(header) } };
}

/** @typedef {import('../map-results.js').ChildResult} ChildResult */

/** The most of a list the state's output carries (its limit is 256 KB); summary.json holds them all. */
const LISTED_AT_MOST = 20;

/**
 * @typedef {{ jobId: string, job: Record<string, unknown>, shards: number, startedAt?: string, results: { ResultWriterDetails: { Bucket: string, Key: string } } }} SummarizeInput
 */

/**
 * Summarize: the job's summary from the shards' results, written in full beside them, and returned with
 * its lists cut short (an execution's output is at most 256 KB).
 * @param {SummarizeInput} input
 * @param {{ logger: Logger, env: Record<string, string | undefined> }} deps
 */
export async function summarizeStep(input, deps) {
  const summary = await summarizeJob(input, deps);
  return {
    ...summary,
    rejectsObjects: summary.rejectsObjects.slice(0, LISTED_AT_MOST),
    ...(summary.failedShards === undefined ? {} : { failedShards: summary.failedShards.slice(0, LISTED_AT_MOST).map((shard) => ({ ...shard, cause: shard.cause?.slice(0, 500) })) }),
  };
}

/**
 * The job's summary from the shards' results (the Map's manifest.json and the files it lists), written
 * beside them. Books balance when every planned shard's result is there and balances, and an export
 * read exactly the items its manifest counts.
 * @param {SummarizeInput} input
 * @param {{ logger: Logger, env: Record<string, string | undefined>, resultsStore?: import('../../state/output-store.js').OutputStore }} deps
 *   resultsStore: where the results are, off AWS (default: the bucket the ResultWriter names)
 */
export async function summarizeJob({ jobId, job, shards, startedAt, results }, { logger, env, resultsStore }) {
  const config = resolveConfig(job, env);
  const clients = clientsFor(config);
  const store = outputStoreFor(config, clients.s3);
  const { Bucket, Key } = results.ResultWriterDetails;
  const children = lastOfEach(await readChildResults(resultsStore ?? bucketStore(clients.s3, Bucket), Key));
  const done = children.flatMap((child) => (child.Status === 'SUCCEEDED' && child.Output !== undefined ? [/** @type {ImportSummary} */ (JSON.parse(child.Output))] : []));
  // A succeeded child whose output the ResultWriter left out (OutputDetails.Included false) has no result to add up.
  const withoutOutput = children.filter((child) => child.Status === 'SUCCEEDED' && child.Output === undefined).length;
  const failed = children.filter((child) => child.Status !== 'SUCCEEDED').map((child) => ({ shard: shardOfChild(child.Input) ?? 0, error: child.Error ?? child.Status, cause: causeOf(child.Cause) }));
  // The job's time: from the execution's start (shards run in waves) to now.
  const seconds = startedAt === undefined ? Math.max(0, ...done.map((part) => part.seconds ?? 0)) : Math.max(0, (Date.now() - Date.parse(startedAt)) / 1000);
  const total = sumSummaries(done, seconds);
  /** @type {import('../../state/job-status.js').JobPlan | undefined} */
  const plan = await store.getJson(planKey(config.statusPrefix, jobId));
  const missing = shards - children.length + withoutOutput;
  const books = plan === undefined ? {} : exportBooks(plan, total);
  const summary = {
    jobId,
    table: config.table,
    shards,
    ...(plan?.objects === undefined ? {} : { objects: plan.objects }),
    state: failed.length === 0 && missing === 0 ? 'done' : 'failed',
    ...total,
    balanced: failed.length === 0 && missing === 0 && done.every((part) => part.balanced !== false) && total.balanced,
    ...books,
    // Every shard's rows count a filled TTL column from the plan's time: any shard's says it.
    ...(done[0]?.ttlFrom === undefined ? {} : { ttlFrom: done[0].ttlFrom }),
    ...(plan?.note === undefined ? {} : { note: plan.note }),
    ...(missing === 0 ? {} : { missingResults: `${missing} of the ${shards} planned shards have no result in ${Key}` }),
    rejectsObjects: done.flatMap((part) => part.rejectsObjects ?? []),
    ...(failed.length === 0 ? {} : { failedShards: failed }),
  };
  await store.putJson(summaryKey(config.statusPrefix, jobId), summary);
  logger.info('job summary', { ...summary, rejectsObjects: summary.rejectsObjects.length });
  return { ...summary, summary: store.where(summaryKey(config.statusPrefix, jobId)) };
}

/**
 * Every child's result, from the manifest and the files it lists (SUCCEEDED, FAILED and PENDING).
 * @param {import('../../state/output-store.js').OutputStore} store @param {string} manifestKey
 * @returns {Promise<ChildResult[]>}
 */
async function readChildResults(store, manifestKey) {
  /** @type {{ ResultFiles?: Record<string, Array<{ Key: string }>> } | undefined} */
  const manifest = await store.getJson(manifestKey);
  if (manifest?.ResultFiles === undefined) throw new JobError(`${store.where(manifestKey)} is not a Distributed Map's manifest of results: the job's shards cannot be added up`);
  const files = Object.values(manifest.ResultFiles).flat();
  const parts = await Promise.all(files.map(async (file) => /** @type {ChildResult[] | undefined} */ (await store.getJson(file.Key)) ?? []));
  return parts.flat();
}

/**
 * Each child once (by its execution's name, unique in a map run), its succeeded record over another: the
 * files list a child by its status, and a redriven child's earlier failure may be listed beside it.
 * @param {ChildResult[]} children
 */
function lastOfEach(children) {
  /** @type {Map<string, ChildResult>} */
  const byName = new Map();
  const unnamed = [];
  for (const child of children) {
    if (child.Name === undefined) unnamed.push(child);
    else if (byName.get(child.Name)?.Status !== 'SUCCEEDED') byName.set(child.Name, child);
  }
  return [...byName.values(), ...unnamed];
}

/**
 * A dry run is one invocation's (the function runs it instead of starting an execution): a step never
 * takes one, which would write the rows it was asked only to read.
 * @template {{ dryRun: boolean }} C @param {C} config @returns {C}
 */
function notDryRun(config) {
  if (config.dryRun) throw new ConfigError('dryRun', true, 'a dry run runs in one invocation of the import function (sls invoke -f import), or with ddbload import --dry-run, not as a job\'s execution');
  return config;
}


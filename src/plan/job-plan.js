/**
 * A job's plan: its objects and the shards they are cut into (on record boundaries), made once and kept
 * in the output store, so that a run of the same job goes on with the shards an earlier run planned.
 * A job over many objects (a prefix, an export) has one shard per object, or more for a large
 * uncompressed one (bytesPerShard). Each shard's payload carries its range and its share of maxWcu.
 */
import { isCollection, MAX_SHARDS } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { jobIdOf } from '../state/checkpoint.js';
import { jobIdOfObject, readJobStatus } from '../state/job-status.js';
import { planKey, planProgressKey } from '../state/object-keys.js';
import { openRawSource } from '../source/open-bytes.js';
import { sourceFields, sourceWhere } from '../source/source-name.js';
import { planLineShards, planShards } from './shard-plan.js';
import { shapeHeader } from '../items/header.js';
import { decideFormat } from '../records/format.js';
import { compressionOf, peek } from '../source/compression.js';
import { objectsOfJob } from '../source/job-objects.js';
import { sourceHeaderOf } from '../records/rejects-file.js';
import { checkTable, tableKeysOf } from '../write/table-check.js';

/** @typedef {import('../config/index.js').ImportConfig} ImportConfig */
/** @typedef {import('../state/job-status.js').JobPlan} JobPlan */
/** @typedef {import('./shard-plan.js').ShardRange} ShardRange */

/** Options of the job that do not pass on to its shards. */
const JOB_ONLY = ['shards', 'bytesPerShard', 'checkpoint', 'shard', 'maxWcu', 'prefix', 'suffix', 'maxObjects'];

/**
 * True when the job asks to be sharded (a single object may still turn out to be one shard, see planJob).
 * @param {Readonly<ImportConfig>} config
 */
export function wantsShards(config) {
  return config.shard === undefined && config.checkpoint === undefined && (isCollection(config) || config.shards > 1 || config.bytesPerShard !== undefined);
}

/**
 * Plan paused before it was done (the invocation's time): how far it got is in the output store, and the
 * next invocation of Plan goes on from there.
 * @typedef {{ planning: true, jobId: string, byte: number, bytes: number }} PlanPaused
 */

/**
 * How far a paused plan got, kept between Plan's invocations; a plan asked for with other options, or of
 * another version of the object, starts anew.
 * @typedef {object} StoredProgress
 * @property {ReturnType<typeof planOptionsOf>} options
 * @property {string} etag   the object's version (a job over many: their listing's)
 * @property {number} [object]  a job over many objects: the object being cut, by its place in the listing
 * @property {ShardRange[]} [shards]  a job over many objects: the shards of the objects before it
 * @property {string[]} [notes]  a job over many objects: what their planning said
 * @property {CutProgress} [cut]  the object being cut: where its scan goes on
 */

/**
 * @typedef {import('./shard-plan.js').PlanProgress & { format: import('../config/index.js').Format }} CutProgress
 */

/**
 * The job's plan: the one in the bucket if a run of this object version (or these objects) made one, else
 * a new one. Undefined when a single file is small enough for one shard (bytesPerShard) or compressed,
 * and no plan exists. Cutting reads the object up to its last cut: when `pause` says the invocation's time
 * is up, Plan keeps how far it got and answers PlanPaused, and the next Plan goes on from there.
 * @param {Readonly<ImportConfig>} config
 * @param {Pick<import('../clients.js').Clients, 's3' | 'dynamodb'>} clients  dynamodb: the table's keys, which cuts are placed by
 * @param {import('../state/output-store.js').OutputStore} store
 * @param {{ cutsAtKeyRuns: import('../segment/key-runs.js').CutsAtKeyRuns, pause?: () => boolean }} options
 *   cutsAtKeyRuns: moves an object's cuts off runs of one key (reading records is the segment's: it is handed in)
 * @returns {Promise<JobPlan | PlanPaused | undefined>}
 */
export async function planJob(config, clients, store, { cutsAtKeyRuns, pause = () => false }) {
  const { s3 } = clients;
  const keysOf = onceTableKeys(clients.dynamodb, config);
  if (isCollection(config)) return planCollection(config, s3, store, { keysOf, pause, cutsAtKeyRuns });
  const where = sourceWhere(config);
  const head = await openRawSource(s3, config, { etag: config.etag });
  const jobId = jobIdOf(config, head.etag);
  const existing = await planToKeep(config, store, jobId);
  const { wanted, capped } = shardCountFor(config, head.contentLength);
  if (existing !== undefined || wanted <= 1) {
    head.body.destroy();
    return existing;
  }
  // The table is checked before the object is read: a wrong key is said at once, not after the scan.
  if (!config.generateKey) await keysOf();
  const progress = await progressToKeep(config, store, jobId, head.etag);
  // A plan from its start reads the object as first opened; one going on opens it at its progress.
  if (progress?.cut !== undefined) head.body.destroy();
  const source = progress?.cut === undefined ? head : await openRawSource(s3, config, { start: progress.cut.byte, etag: head.etag });
  const reopen = async (/** @type {number} */ byte) => (await openRawSource(s3, config, { start: byte, etag: head.etag })).body;
  // A compressed file cannot be cut: the job runs as one import, whose summary says so.
  const cut = await cutObject(source.body, { config, key: config.key ?? config.file ?? '', bytes: head.contentLength, shards: wanted, where, etag: head.etag, keysOf, reopen, resume: progress?.cut, pause, cutsAtKeyRuns });
  if (cut === undefined) return undefined;
  if ('paused' in cut) return pausePlan(store, config, jobId, { options: planOptionsOf(config), etag: head.etag, cut: cut.paused }, head.contentLength);
  const note = [capped, cut.note].filter((part) => part !== undefined).join('; ');
  /** @type {JobPlan} */
  const plan = {
    jobId,
    ...sourceFields(config),
    etag: head.etag,
    bytes: head.contentLength,
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
 * @param {Readonly<ImportConfig>} config @param {import('../state/output-store.js').OutputStore} store @param {string} jobId
 * @returns {Promise<JobPlan | undefined>}
 */
async function planToKeep(config, store, jobId) {
  /** @type {JobPlan | undefined} */
  const existing = await store.getJson(planKey(config.statusPrefix, jobId));
  return existing !== undefined && (await keepPlan(existing, config, store)) ? existing : undefined;
}

/**
 * How far an earlier invocation's plan of this job got, if it was of these options and this version.
 * @param {Readonly<ImportConfig>} config @param {import('../state/output-store.js').OutputStore} store @param {string} jobId @param {string} etag
 * @returns {Promise<StoredProgress | undefined>}
 */
async function progressToKeep(config, store, jobId, etag) {
  /** @type {StoredProgress | undefined} */
  const progress = await store.getJson(planProgressKey(config.statusPrefix, jobId));
  if (progress === undefined || progress.etag !== etag || JSON.stringify(progress.options) !== JSON.stringify(planOptionsOf(config))) return undefined;
  return progress;
}

/**
 * Keeps how far the plan got, for the next invocation of Plan.
 * @param {import('../state/output-store.js').OutputStore} store @param {Readonly<ImportConfig>} config @param {string} jobId
 * @param {StoredProgress} progress @param {number} bytes  of the object being cut (of all, in a job over many)
 * @returns {Promise<PlanPaused>}
 */
async function pausePlan(store, config, jobId, progress, bytes) {
  await store.putJson(planProgressKey(config.statusPrefix, jobId), progress);
  return { planning: true, jobId, byte: progress.cut?.byte ?? 0, bytes };
}

/**
 * Cuts one object into ranges on record boundaries: a CSV object after its header (checked here, as a
 * segment checks it: a file of a header and no rows has no shard to do so), a JSON one after any LF;
 * then each cut moved past the run of one key it would split (key-runs.js). Undefined for a compressed
 * object, which cannot be entered mid-way; `paused` when `pause` said so before the last cut.
 * @param {import('node:stream').Readable} raw  the object as stored, from byte 0 (from resume.byte when resuming)
 * @param {{ config: Readonly<ImportConfig>, key: string, bytes: number, shards: number, where: string, etag: string,
 *   keysOf: () => Promise<import('../write/table-check.js').TableKeys>, reopen: (byte: number) => Promise<import('node:stream').Readable>,
 *   resume?: CutProgress, pause: () => boolean, cutsAtKeyRuns: import('../segment/key-runs.js').CutsAtKeyRuns }} options
 *   reopen: the object as stored from a byte to its end; cutsAtKeyRuns: moves the cuts off runs of one key
 * @returns {Promise<{ format: import('../config/index.js').Format, shards: ShardRange[], header?: string[], encoding?: import('../records/csv/text-encoding.js').Encoding, note?: string } | { paused: CutProgress } | undefined>}
 */
async function cutObject(raw, { config, key, bytes, shards, where, etag, keysOf, reopen, resume, pause, cutsAtKeyRuns }) {
  let body = raw;
  let format = resume?.format;
  if (format === undefined) {
    const peeked = await peek(raw, 4);
    body = peeked.body;
    if (compressionOf(peeked.first) !== undefined) {
      body.destroy();
      return undefined;
    }
    format = decideFormat(config.format, key, peeked.first);
  }
  /** @type {{ shards: ShardRange[], note?: string, header?: string[], encoding?: import('../records/csv/text-encoding.js').Encoding }} */
  let planned;
  if (format !== 'csv' && !config.fromRejects) {
    const lines = await planLineShards(body, { bytes, shards, where, resume, pause });
    if ('paused' in lines) return { paused: { ...lines.paused, header: [], encoding: 'utf-8', format } };
    planned = { ...lines, header: [], encoding: undefined };
  } else {
    const csv = await planShards(body, { bytes, shards, delimiter: config.delimiter, encoding: config.encoding, where, resume, pause });
    if ('paused' in csv) return { paused: { ...csv.paused, format } };
    // A rejects file's shards carry its source's header, as its segments read it (records/rejects-file.js).
    const header = config.fromRejects ? sourceHeaderOf(csv.header.map((name) => name.trim()), where) : csv.header;
    if (format === 'csv') shapeHeader(header, config);
    planned = { shards: csv.shards, header, encoding: csv.encoding, ...(csv.note === undefined ? {} : { note: csv.note }) };
  }
  const runs = await cutsAtKeyRuns(planned.shards, { config, format, header: planned.header ?? [], encoding: planned.encoding, etag, bytes, keysOf, reopen });
  const merged = runs.shards.length < planned.shards.length ? `${planned.shards.length - runs.shards.length} of the ${planned.shards.length} planned shards lay inside a run of one key (or of rows the import rejects) and were joined to the shard before` : undefined;
  const note = [planned.note, merged].filter((part) => part !== undefined).join('; ');
  return { format, shards: runs.shards, header: format === 'csv' || config.fromRejects ? planned.header : undefined, encoding: planned.encoding, ...(note === '' ? {} : { note }) };
}

/**
 * The table's keys, asked of DynamoDB once and only if a cut needs them (a JSON record's key is read by them).
 * @param {import('@aws-sdk/client-dynamodb').DynamoDBClient} dynamodb @param {Readonly<ImportConfig>} config
 */
function onceTableKeys(dynamodb, config) {
  /** @type {Promise<import('../write/table-check.js').TableKeys> | undefined} */
  let keys;
  return () => (keys ??= checkTable(dynamodb, config).then(tableKeysOf));
}

/**
 * The plan of a job over many objects: one shard per object, from its start (it reads its own header and
 * decides its own format and compression), or more for an uncompressed object past bytesPerShard.
 * @param {Readonly<ImportConfig>} config
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {import('../state/output-store.js').OutputStore} store
 * @param {{ keysOf: () => Promise<import('../write/table-check.js').TableKeys>, pause: () => boolean, cutsAtKeyRuns: import('../segment/key-runs.js').CutsAtKeyRuns }} how
 * @returns {Promise<JobPlan | PlanPaused>}
 */
async function planCollection(config, s3, store, { keysOf, pause, cutsAtKeyRuns }) {
  const found = await objectsOfJob(s3, config);
  const jobId = jobIdOf(config, found.version);
  const existing = await planToKeep(config, store, jobId);
  if (existing !== undefined) return existing;
  const progress = await progressToKeep(config, store, jobId, found.version);
  /** @type {ShardRange[]} */
  const shards = progress?.shards ?? [];
  const notes = progress?.notes ?? [...found.notes];
  const total = found.objects.reduce((sum, object) => sum + object.bytes, 0);
  for (let at = progress?.object ?? 0; at < found.objects.length; at++) {
    const object = found.objects[at];
    const wanted = config.bytesPerShard === undefined ? 1 : Math.ceil(object.bytes / config.bytesPerShard);
    // An export's data files are DynamoDB JSON, whatever their names say and however little they hold.
    const whole = { key: object.key, etag: object.etag, start: 0, end: object.bytes, line: 0, ...(found.export !== undefined && config.format === 'auto' ? { format: /** @type {const} */ ('dynamodb-json') } : {}) };
    if (wanted <= 1) {
      shards.push({ index: shards.length, ...whole });
      continue;
    }
    const resume = progress?.object === at ? progress.cut : undefined;
    // An object to cut is begun only with time to read some of it; else the next Plan begins it.
    if (resume === undefined && pause()) return pausePlan(store, config, jobId, { options: planOptionsOf(config), etag: found.version, object: at, shards, notes }, total);
    const ofObject = { ...config, key: object.key, versionId: undefined };
    const source = await openRawSource(s3, ofObject, { start: resume?.byte ?? 0, etag: object.etag });
    const reopen = async (/** @type {number} */ byte) => (await openRawSource(s3, ofObject, { start: byte, etag: object.etag })).body;
    const cut = await cutObject(source.body, { config: ofObject, key: object.key, bytes: object.bytes, shards: wanted, where: sourceWhere(ofObject), etag: object.etag, keysOf, reopen, resume, pause, cutsAtKeyRuns });
    if (cut !== undefined && 'paused' in cut) return pausePlan(store, config, jobId, { options: planOptionsOf(config), etag: found.version, object: at, shards, notes, cut: cut.paused }, total);
    if (cut === undefined) {
      shards.push({ index: shards.length, ...whole });
      continue;
    }
    if (cut.note !== undefined) notes.push(`${object.key}: ${cut.note}`);
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
    bytes: total,
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
 * @param {JobPlan} plan @param {Readonly<ImportConfig>} config @param {import('../state/output-store.js').OutputStore} store
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
        // Shards start at other times (shardConcurrency, re-runs): the job's time is its plan's.
        importTime: plan.createdAt,
      },
    };
  });
}


/**
 * The job's id before anything is planned or read: from the listing of a job over many objects, else from
 * the object's version (the ETag an event names, or the object's current one).
 * @param {Readonly<ImportConfig>} config @param {import('@aws-sdk/client-s3').S3Client} s3
 */
export async function jobIdOfJob(config, s3) {
  if (isCollection(config)) return jobIdOf(config, (await objectsOfJob(s3, config)).version);
  if (config.etag !== undefined) return jobIdOf(config, config.etag);
  return jobIdOfObject(s3, /** @type {Readonly<ImportConfig> & { bucket: string, key: string }} */ (config));
}

/**
 * An export's books: its manifest counts the items (or, in an incremental export, the changes) in its data
 * files, and the job must have read exactly as many rows. Fewer or more means a data file was cut, changed
 * or added: the job is not balanced, and says so.
 * @param {JobPlan} plan @param {{ rowsRead: number, balanced: boolean }} total
 */
export function exportBooks(plan, total) {
  if (plan.export === undefined) return {};
  const expected = plan.export.itemCount;
  if (total.rowsRead === expected) return { exportItemCount: expected };
  return { exportItemCount: expected, balanced: false, exportMismatch: `the export's manifest lists ${expected} items and the job read ${total.rowsRead} rows: a data file was cut, changed or added since the export; compare the data folder with manifest-files.json` };
}

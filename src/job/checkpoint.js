/**
 * A job and where it stands. A job is one import of one object version into one table with one set of
 * write options (write-options.js); its id is derived from them, so it is the same every time that
 * version is imported there so, and another for other options. A checkpoint is taken
 * at a record boundary after every write before it has ended, and carries what the next segment needs
 * to go on as if it had never stopped.
 */
import { v5 as uuidv5 } from 'uuid';
import { ConfigError } from '../errors.js';
import { TOTALS } from '../observe/counters.js';
import { ENCODINGS } from '../records/csv/text-encoding.js';
import { KEY_ID_FORM } from '../items/key-id.js';
import { sourceId } from '../source/source-name.js';
import { writeOptionsOf } from './write-options.js';

const JOB_NAMESPACE = 'a6a3c0f4-1f0e-4c55-9d6b-0c3f1a7e2b91';

/**
 * A job is one version of one source into one table with one set of write options: the same file into
 * two tables, or into one table with another mode or other types, is two jobs, with their own plans and
 * status (one's finished shards are not the other's). A runId makes a run of its own.
 * @param {string} source  the source as sourceId names it (`bucket/key` for an S3 object)
 * @param {string} etag
 * @param {string} table
 * @param {import('./write-options.js').WriteOptions} options
 * @param {string} [runId]
 */
export function jobIdFor(source, etag, table, options, runId) {
  return uuidv5(JSON.stringify([source, etag, table, options, runId ?? null]), JOB_NAMESPACE);
}

/**
 * The id of the job an import with this config names, of this version of its source.
 * @param {Pick<import('../config.js').ImportConfig, 'bucket' | 'key' | 'prefix' | 'file' | 'table' | 'runId' | import('./write-options.js').WriteOptionName>} config
 * @param {string} etag  the source's version (an object's ETag, a prefix's digest of its objects)
 */
export const jobIdOf = (config, etag) => jobIdFor(sourceId(config), etag, config.table, writeOptionsOf(config), config.runId);

/** @typedef {import('../observe/counters.js').Totals} Totals */
/** @typedef {import('../records/csv/text-encoding.js').Encoding} Encoding */

/**
 * @typedef {object} Checkpoint
 * @property {string} jobId
 * @property {string} etag       the object version being imported
 * @property {number} byte       first byte not yet read
 * @property {number} line       lines of the file before that byte
 * @property {string[]} header   the CSV header, read by the first segment (empty for a JSON format)
 * @property {import('../config.js').Format} [format]  the file's, decided by the first segment (absent: CSV, from before formats)
 * @property {number} segments   segments finished so far
 * @property {number} seconds    time spent by those segments
 * @property {number} reopens    S3 re-opens so far
 * @property {Totals} totals
 * @property {string[]} rejectsObjects  keys of the rejects objects written so far
 * @property {Array<{ line: number, reason: string }>} rejectSample
 * @property {string} [startedAt]  when the job's (or shard's) first segment started, ISO 8601
 * @property {boolean} [gzip]  the object is compressed (gzip, or zstd: the name is from before zstd): `byte` counts decompressed bytes
 * @property {Encoding} [encoding]  the file's, decided by the first segment (absent: from before it was carried)
 * @property {Replay} [replay]  rows read before `byte` whose writes the segment gave up when its time ran out
 * @property {Spread} [spread]  the ranges `spread` reads, each with its cursor (then `byte` and `line` are the first unfinished range's)
 * @property {import('./write-options.js').WriteOptions} [options]  the job's write options (absent: from before they were carried)
 */

/**
 * @typedef {object} Spread
 * @property {import('./read-spread.js').SpreadRange[]} ranges
 * @property {string} [keyIds]  the form of the ranges' key spans (key-id.js KEY_ID_FORM); absent: from before it
 */

/**
 * Rows a segment read but could not see written before its time ran out, saved as JSON for the next
 * segment to write before it reads on: they are counted as read already, not as written.
 * @typedef {object} Replay
 * @property {string} key   the object holding them (beside the job's status)
 * @property {number} rows
 */

/**
 * One shard of a sharded job: a byte range of the object that starts and ends on record boundaries.
 * The planner sends it in the shard's payload; the shard's continuations carry it on.
 * @typedef {object} ShardSpec
 * @property {string} jobId    the job the shard belongs to
 * @property {string} etag     the object version the plan was made from
 * @property {number} index    0-based
 * @property {number} count    shards in the job
 * @property {number} start    first byte (0: the object's start, in a job over many or a JSON file)
 * @property {number} end      one past the last byte
 * @property {number} line     lines of the file before `start`
 * @property {string[]} [header] the file's header; absent in a shard from the object's start, which reads its own
 * @property {Encoding} [encoding]  the file's, decided by the planner
 * @property {import('../config.js').Format} [format]  the file's, decided by the planner (absent: CSV)
 */

/**
 * @param {unknown} raw
 * @param {string} name
 * @returns {ShardSpec}
 */
export function parseShardSpec(raw, name) {
  const s = /** @type {Record<string, any>} */ (raw);
  const ok =
    s !== null &&
    typeof s === 'object' &&
    typeof s.jobId === 'string' &&
    typeof s.etag === 'string' &&
    Number.isInteger(s.count) && s.count > 0 &&
    Number.isInteger(s.index) && s.index >= 0 && s.index < s.count &&
    Number.isInteger(s.start) && s.start >= 0 &&
    Number.isInteger(s.end) && s.end > s.start &&
    Number.isInteger(s.line) && s.line >= 0 &&
    // A range after a CSV header carries it; one from the object's start reads its own (or has none: JSON).
    (s.header === undefined ? s.start === 0 : isHeader(s.header)) &&
    (s.encoding === undefined || ENCODINGS.has(s.encoding)) &&
    (s.format === undefined || FORMATS.has(s.format));
  if (!ok) throw new ConfigError(name, '(a malformed shard)', 'the planner sets "shard" for the shards it starts; to shard a file, pass "shards" instead');
  return /** @type {ShardSpec} */ (s);
}

/** Ranges as a checkpoint carries them: cursors within each range's bounds, spans of keys. @param {any} spread */
function isSpread(spread) {
  const isByte = (/** @type {unknown} */ v) => Number.isInteger(v) && /** @type {number} */ (v) >= 0;
  return (
    spread !== null &&
    typeof spread === 'object' &&
    Array.isArray(spread.ranges) &&
    spread.ranges.length > 0 &&
    spread.ranges.every(
      (/** @type {any} */ r) =>
        r !== null && typeof r === 'object' && isByte(r.byte) && isByte(r.end) && isByte(r.line) && isByte(r.stop) && r.byte <= r.stop &&
        (r.min === undefined || typeof r.min === 'string') && (r.max === undefined || typeof r.max === 'string'),
    )
  );
}

/** A header as a checkpoint or shard carries it: a list of names (empty for a JSON format). @param {unknown} value */
function isHeader(value) {
  return Array.isArray(value) && value.every((name) => typeof name === 'string');
}

const FORMATS = new Set(['csv', 'jsonl', 'dynamodb-json']);
/** Counters added after checkpoints were first written: a checkpoint from before may lack them. */
const LATER_TOTALS = new Set(['deleted']);

/**
 * Checks a checkpoint that came in a payload (from the function itself, or from a user resuming a job).
 * @param {unknown} raw
 * @param {string} name
 * @returns {Checkpoint}
 */
export function parseCheckpoint(raw, name) {
  const fix = 'pass the checkpoint exactly as the function logged or sent it, or leave it out to start from the beginning';
  const c = /** @type {Record<string, any>} */ (raw);
  const isCount = (/** @type {unknown} */ v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const ok =
    c !== null &&
    typeof c === 'object' &&
    typeof c.jobId === 'string' &&
    typeof c.etag === 'string' &&
    Number.isInteger(c.byte) && c.byte > 0 &&
    Number.isInteger(c.line) && c.line > 0 &&
    isHeader(c.header) &&
    Number.isInteger(c.segments) && c.segments > 0 &&
    isCount(c.seconds) &&
    isCount(c.reopens) &&
    c.totals !== null && typeof c.totals === 'object' &&
    TOTALS.every((total) => isCount(c.totals[total]) || (LATER_TOTALS.has(total) && c.totals[total] === undefined)) &&
    (c.format === undefined || FORMATS.has(c.format)) &&
    c.totals.rejectedByReason !== null && typeof c.totals.rejectedByReason === 'object' &&
    Object.values(c.totals.rejectedByReason).every(isCount) &&
    (c.totals.throttledCallsByReason === undefined || (c.totals.throttledCallsByReason !== null && typeof c.totals.throttledCallsByReason === 'object' && Object.values(c.totals.throttledCallsByReason).every(isCount))) &&
    Array.isArray(c.rejectsObjects) && c.rejectsObjects.every((/** @type {unknown} */ k) => typeof k === 'string') &&
    Array.isArray(c.rejectSample) &&
    (c.gzip === undefined || typeof c.gzip === 'boolean') &&
    (c.encoding === undefined || ENCODINGS.has(c.encoding)) &&
    (c.replay === undefined || (typeof c.replay?.key === 'string' && Number.isInteger(c.replay?.rows) && c.replay.rows > 0)) &&
    (c.spread === undefined || isSpread(c.spread)) &&
    (c.options === undefined || (c.options !== null && typeof c.options === 'object' && !Array.isArray(c.options)));
  if (!ok) throw new ConfigError(name, '(a malformed checkpoint)', fix);
  return /** @type {Checkpoint} */ (c);
}

/**
 * Where one segment starts: at the start of the object (or of its shard), or where a checkpoint left off,
 * with what the job's earlier segments hand on.
 * @typedef {object} SegmentStart
 * @property {number} segment      this segment's number in its job (or shard), 1-based
 * @property {number} byte         first byte to read: of the object, or of the decompressed stream (gzip)
 * @property {number | undefined} end  one past the last byte to read (a shard's end)
 * @property {number} line         lines of the file before `byte`
 * @property {string[] | undefined} header  undefined when this segment reads it (the first of a job)
 * @property {string | undefined} jobId  undefined when this segment names the job (from the ETag it reads)
 * @property {string | undefined} etag   the object version to read; undefined: the current one
 * @property {boolean} gzip        the object is compressed (gzip or zstd): `byte` counts decompressed bytes
 * @property {Encoding | undefined} encoding  the job's, when an earlier reader decided it (undefined at the file's start)
 * @property {import('../config.js').Format | undefined} format  the file's, when an earlier reader or the planner decided it
 * @property {Replay | undefined} replay  rows the previous segment left to write, first
 * @property {Spread | undefined} spread  the ranges the previous segments of a spread read, with their cursors
 * @property {number} shard        0-based
 * @property {number} shards
 * @property {string} startedAt    when the job's (or shard's) first segment started
 * @property {number} seconds      time spent by earlier segments
 * @property {number} reopens      S3 re-opens by earlier segments
 * @property {Totals | undefined} totals
 * @property {string[]} rejectsObjects
 * @property {Array<{ line: number, reason: string }>} rejectSample
 */

/**
 * @param {Pick<import('../config.js').ImportConfig, 'checkpoint' | 'shard' | 'etag'>} config
 * @returns {SegmentStart}
 */
export function segmentStart({ checkpoint, shard, etag }) {
  return {
    segment: (checkpoint?.segments ?? 0) + 1,
    byte: checkpoint?.byte ?? shard?.start ?? 0,
    end: shard?.end,
    line: checkpoint?.line ?? shard?.line ?? 0,
    header: checkpoint?.header ?? shard?.header,
    jobId: checkpoint?.jobId ?? shard?.jobId,
    etag: checkpoint?.etag ?? shard?.etag ?? etag,
    gzip: checkpoint?.gzip === true,
    encoding: checkpoint?.encoding ?? shard?.encoding,
    // Absent from a checkpoint or a cut range made before formats: CSV. A shard from the object's start decides.
    format: checkpoint?.format ?? shard?.format ?? (checkpoint !== undefined || (shard !== undefined && shard.start > 0) ? 'csv' : undefined),
    replay: checkpoint?.replay,
    spread: checkpoint?.spread === undefined ? undefined : spreadWithKnownSpans(checkpoint.spread),
    shard: shard?.index ?? 0,
    shards: shard?.count ?? 1,
    startedAt: checkpoint?.startedAt ?? new Date().toISOString(),
    seconds: checkpoint?.seconds ?? 0,
    reopens: checkpoint?.reopens ?? 0,
    totals: checkpoint?.totals,
    rejectsObjects: [...(checkpoint?.rejectsObjects ?? [])],
    rejectSample: [...(checkpoint?.rejectSample ?? [])],
  };
}

/**
 * A spread as saved, less key spans saved in a form of keyIds from before the current one (composite keys
 * were joined otherwise): the ranges learn them again from the rows they read next.
 * @param {Spread} spread
 * @returns {Spread}
 */
function spreadWithKnownSpans(spread) {
  if (spread.keyIds === KEY_ID_FORM) return spread;
  return { keyIds: KEY_ID_FORM, ranges: spread.ranges.map(({ min: _min, max: _max, ...range }) => range) };
}

/**
 * The checkpoint the next segment starts from, taken at a record boundary once every write before it
 * has ended.
 * @param {SegmentStart} start  where this segment started
 * @param {Omit<Checkpoint, 'segments' | 'startedAt' | 'gzip'> & { gzip: boolean }} progress  where it stopped
 * @returns {Checkpoint}
 */
export function checkpointAfter(start, { gzip, ...progress }) {
  return { ...progress, segments: start.segment, startedAt: start.startedAt, ...(gzip ? { gzip: true } : {}) };
}

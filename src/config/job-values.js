/**
 * The job's own values a payload may carry: the checkpoint of a job to resume and the shard a planner
 * started. They come from the function itself or from a user resuming a job, and are checked like any
 * other option before anything is read or written.
 */
import { ConfigError } from '../errors.js';
import { TOTALS } from '../observe/counters.js';
import { ENCODINGS, FORMATS } from './values.js';

/** @typedef {import('./values.js').Encoding} Encoding */
/** @typedef {import('../observe/counters.js').Totals} Totals */

/**
 * @typedef {object} Checkpoint
 * @property {string} jobId
 * @property {string} etag       the object version being imported
 * @property {number} byte       first byte not yet read
 * @property {number} line       lines of the file before that byte
 * @property {string[]} header   the CSV header, read by the first segment (empty for a JSON format)
 * @property {import('./values.js').Format} [format]  the file's, decided by the first segment (absent: CSV, from before formats)
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
 * @property {import('../state/write-options.js').WriteOptions} [options]  the job's write options (absent: from before they were carried)
 */

/**
 * @typedef {object} Spread
 * @property {import('../plan/spread-plan.js').SpreadRange[]} ranges
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
 * @property {import('./values.js').Format} [format]  the file's, decided by the planner (absent: CSV)
 * @property {string} [importTime]  the job's time, when its plan was made (ISO 8601), the same for every shard
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
    (s.format === undefined || FORMATS.has(s.format)) &&
    (s.importTime === undefined || isTime(s.importTime));
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

/** A time as the function writes it: ISO 8601 text of an instant. @param {unknown} value */
const isTime = (value) => typeof value === 'string' && Number.isFinite(Date.parse(value));

/** A header as a checkpoint or shard carries it: a list of names (empty for a JSON format). @param {unknown} value */
function isHeader(value) {
  return Array.isArray(value) && value.every((name) => typeof name === 'string');
}

/** Counters added after checkpoints were first written: a checkpoint from before may lack them. */
const LATER_TOTALS = new Set(['deleted', 'skipped']);

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
    (c.totals.skippedByReason === undefined || (c.totals.skippedByReason !== null && typeof c.totals.skippedByReason === 'object' && Object.values(c.totals.skippedByReason).every(isCount))) &&
    (c.totals.skippedLines === undefined || (Array.isArray(c.totals.skippedLines) && c.totals.skippedLines.every((/** @type {unknown} */ n) => Number.isInteger(n)))) &&
    (c.totals.throttledCallsByReason === undefined || (c.totals.throttledCallsByReason !== null && typeof c.totals.throttledCallsByReason === 'object' && Object.values(c.totals.throttledCallsByReason).every(isCount))) &&
    Array.isArray(c.rejectsObjects) && c.rejectsObjects.every((/** @type {unknown} */ k) => typeof k === 'string') &&
    Array.isArray(c.rejectSample) &&
    (c.startedAt === undefined || isTime(c.startedAt)) &&
    (c.gzip === undefined || typeof c.gzip === 'boolean') &&
    (c.encoding === undefined || ENCODINGS.has(c.encoding)) &&
    (c.replay === undefined || (typeof c.replay?.key === 'string' && Number.isInteger(c.replay?.rows) && c.replay.rows > 0)) &&
    (c.spread === undefined || isSpread(c.spread)) &&
    (c.options === undefined || (c.options !== null && typeof c.options === 'object' && !Array.isArray(c.options)));
  if (!ok) throw new ConfigError(name, '(a malformed checkpoint)', fix);
  return /** @type {Checkpoint} */ (c);
}


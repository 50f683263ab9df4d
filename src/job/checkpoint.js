/**
 * A job and where it stands. A job is one import of one object version; its id is derived from the
 * bucket, key and ETag, so it is the same every time that version is imported. A checkpoint is taken
 * at a record boundary after every write before it has ended, and carries what the next segment needs
 * to go on as if it had never stopped.
 */
import { v5 as uuidv5 } from 'uuid';
import { ConfigError } from '../config.js';

const JOB_NAMESPACE = 'a6a3c0f4-1f0e-4c55-9d6b-0c3f1a7e2b91';

/** @param {string} bucket @param {string} key @param {string} etag */
export function jobIdFor(bucket, key, etag) {
  return uuidv5(`${bucket}/${key}#${etag}`, JOB_NAMESPACE);
}

/**
 * The counters a segment hands on (see throughput.js Stats).
 * @typedef {Pick<import('../observe/counters.js').Stats, 'rowsRead' | 'written' | 'rejected' | 'rejectedByReason' | 'duplicatesCollapsed' | 'retries' | 'throttledItems' | 'throttledCalls' | 'transientErrors' | 'wcu' | 'calls'>} Totals
 */

/**
 * @typedef {object} Checkpoint
 * @property {string} jobId
 * @property {string} etag       the object version being imported
 * @property {number} byte       first byte not yet read
 * @property {number} line       lines of the file before that byte
 * @property {string[]} header   the CSV header, read by the first segment
 * @property {number} segments   segments finished so far
 * @property {number} seconds    time spent by those segments
 * @property {number} reopens    S3 re-opens so far
 * @property {Totals} totals
 * @property {string[]} rejectsObjects  keys of the rejects objects written so far
 * @property {Array<{ line: number, reason: string }>} rejectSample
 * @property {string} [startedAt]  when the job's (or shard's) first segment started, ISO 8601
 * @property {boolean} [gzip]  the object is gzip-compressed: `byte` counts decompressed bytes
 */

/**
 * One shard of a sharded job: a byte range of the object that starts and ends on record boundaries.
 * The planner sends it in the shard's payload; the shard's continuations carry it on.
 * @typedef {object} ShardSpec
 * @property {string} jobId    the job the shard belongs to
 * @property {string} etag     the object version the plan was made from
 * @property {number} index    0-based
 * @property {number} count    shards in the job
 * @property {number} start    first byte
 * @property {number} end      one past the last byte
 * @property {number} line     lines of the file before `start`
 * @property {string[]} header the file's header
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
    Number.isInteger(s.start) && s.start > 0 &&
    Number.isInteger(s.end) && s.end > s.start &&
    Number.isInteger(s.line) && s.line > 0 &&
    isHeader(s.header);
  if (!ok) throw new ConfigError(name, '(a malformed shard)', 'the planner sets "shard" for the shards it starts; to shard a file, pass "shards" instead');
  return /** @type {ShardSpec} */ (s);
}

/** A CSV header as a checkpoint or shard carries it: a non-empty list of names. @param {unknown} value */
function isHeader(value) {
  return Array.isArray(value) && value.length > 0 && value.every((name) => typeof name === 'string');
}

const TOTAL_NAMES = /** @type {const} */ (['rowsRead', 'written', 'rejected', 'duplicatesCollapsed', 'retries', 'throttledItems', 'throttledCalls', 'transientErrors', 'wcu', 'calls']);

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
    TOTAL_NAMES.every((total) => isCount(c.totals[total])) &&
    c.totals.rejectedByReason !== null && typeof c.totals.rejectedByReason === 'object' &&
    Object.values(c.totals.rejectedByReason).every(isCount) &&
    Array.isArray(c.rejectsObjects) && c.rejectsObjects.every((/** @type {unknown} */ k) => typeof k === 'string') &&
    Array.isArray(c.rejectSample) &&
    (c.gzip === undefined || typeof c.gzip === 'boolean');
  if (!ok) throw new ConfigError(name, '(a malformed checkpoint)', fix);
  return /** @type {Checkpoint} */ (c);
}

/**
 * A job and where it stands. A job is one import of one object version into one table with one set of
 * write options (write-options.js); its id is derived from them, so it is the same every time that
 * version is imported there so, and another for other options. A checkpoint is taken
 * at a record boundary after every write before it has ended, and carries what the next segment needs
 * to go on as if it had never stopped.
 */
import { v5 as uuidv5 } from 'uuid';
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
 * @param {Pick<import('../config/index.js').ImportConfig, 'bucket' | 'key' | 'prefix' | 'file' | 'table' | 'runId' | import('./write-options.js').WriteOptionName>} config
 * @param {string} etag  the source's version (an object's ETag, a prefix's digest of its objects)
 */
export const jobIdOf = (config, etag) => jobIdFor(sourceId(config), etag, config.table, writeOptionsOf(config), config.runId);

/** @typedef {import('../observe/counters.js').Totals} Totals */
/** @typedef {import('../config/job-values.js').Checkpoint} Checkpoint */
/** @typedef {import('../config/job-values.js').ShardSpec} ShardSpec */
/** @typedef {import('../config/job-values.js').Spread} Spread */
/** @typedef {import('../config/job-values.js').Replay} Replay */
/** @typedef {import('../config/values.js').Encoding} Encoding */

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
 * @property {import('../config/index.js').Format | undefined} format  the file's, when an earlier reader or the planner decided it
 * @property {Replay | undefined} replay  rows the previous segment left to write, first
 * @property {Spread | undefined} spread  the ranges the previous segments of a spread read, with their cursors
 * @property {number} shard        0-based
 * @property {number} shards
 * @property {string} startedAt    when the job's (or shard's) first segment started
 * @property {string} importTime   the import's time, the same in every segment, resume and shard of a job:
 *   a sharded job's plan's, else its first segment's start (ISO 8601); a filled TTL column counts from it
 * @property {number} seconds      time spent by earlier segments
 * @property {number} reopens      S3 re-opens by earlier segments
 * @property {Totals | undefined} totals
 * @property {string[]} rejectsObjects
 * @property {Array<{ line: number, reason: string }>} rejectSample
 */

/**
 * @param {Pick<import('../config/index.js').ImportConfig, 'checkpoint' | 'shard' | 'etag'>} config
 * @returns {SegmentStart}
 */
export function segmentStart({ checkpoint, shard, etag }) {
  const startedAt = checkpoint?.startedAt ?? new Date().toISOString();
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
    startedAt,
    // A shard's is its plan's (shards start at other times); a job's, its first segment's start, carried on.
    importTime: shard?.importTime ?? startedAt,
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

/**
 * The names of every object a job writes, in one place:
 *   <statusPrefix><job id>/plan.json                                 the plan of a sharded job
 *   <statusPrefix><job id>/shard-0001.json                           each shard's status
 *   <statusPrefix><job id>/replay-shard-0001-segment-0001-<run>.json  rows a segment out of time left to write
 *   <statusPrefix>latest/<digest of source, version and table>.json  the job last started of that source into that table
 *   <rejectsPrefix><source key>/<job id>/segment-0001-<run>.csv            a segment's rejects
 *   <rejectsPrefix><source key>/<job id>/shard-0001/segment-0001-<run>.csv a segment's rejects, in a sharded job
 * <run> is a random name each segment's run draws, so that two runs of one segment (a retried task, a re-run
 * of a job) never write the same object.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A 1-based number as the four digits object names use (they then sort in order). @param {number} n */
export const fourDigits = (n) => String(n).padStart(4, '0');

/** @param {string} prefix @param {string} jobId */
export const planKey = (prefix, jobId) => `${prefix}${jobId}/plan.json`;

/** How far a plan that paused got (Plan's progress between invocations). @param {string} prefix @param {string} jobId */
export const planProgressKey = (prefix, jobId) => `${prefix}${jobId}/plan-progress.json`;

/** The job's shard list, one shard's payload a line: a Distributed Map reads it. @param {string} prefix @param {string} jobId */
export const shardListKey = (prefix, jobId) => `${prefix}${jobId}/shards.jsonl`;

/** Where a Distributed Map writes its children's results (manifest.json and the files it lists). @param {string} prefix @param {string} jobId */
export const resultsPrefix = (prefix, jobId) => `${prefix}${jobId}/results`;

/** The job's summary, beside its results. @param {string} prefix @param {string} jobId */
export const summaryKey = (prefix, jobId) => `${prefix}${jobId}/summary.json`;

/** @param {string} prefix @param {string} jobId @param {number} index 0-based */
export const shardStatusKey = (prefix, jobId, index) => `${prefix}${jobId}/shard-${fourDigits(index + 1)}.json`;

/**
 * The pointer to the job last started of one source version into one table (its write options decide which
 * job: status by a file's name reads this).
 * @param {string} prefix @param {string} source  as sourceId names it @param {string} etag @param {string} table
 */
export const latestJobKey = (prefix, source, etag, table) => `${prefix}latest/${createHash('sha256').update(JSON.stringify([source, etag, table])).digest('hex').slice(0, 32)}.json`;

/** A name for one run of a segment: 8 hex digits. */
export const newRunName = () => randomBytes(4).toString('hex');

/**
 * @param {string} prefix @param {string} sourceKey @param {string} jobId @param {number} segment  1-based
 * @param {number | undefined} shard  0-based; only for a shard of a sharded job
 * @param {string} run  this run of the segment (newRunName)
 */
export function rejectsKey(prefix, sourceKey, jobId, segment, shard, run) {
  const shardPart = shard === undefined ? '' : `shard-${fourDigits(shard + 1)}/`;
  return `${prefix}${sourceKey}/${jobId}/${shardPart}segment-${fourDigits(segment)}-${run}.csv`;
}

/**
 * @param {string} prefix @param {string} jobId @param {number} shard 0-based @param {number} segment 1-based
 * @param {string} run  this run of the segment (newRunName)
 */
export const replayKey = (prefix, jobId, shard, segment, run) => `${prefix}${jobId}/replay-shard-${fourDigits(shard + 1)}-segment-${fourDigits(segment)}-${run}.json`;

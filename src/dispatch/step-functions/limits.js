/**
 * What a job must fit in on AWS Step Functions, checked by the start function before the execution
 * starts (so a job that cannot fit is refused with the option to change, not failed hours later, on every
 * redrive too):
 * - an execution's history holds at most 25,000 events, and a shard's child execution writes 9 a
 *   segment: ImportSegment, a Lambda task (TaskStateEntered, TaskScheduled, TaskStarted, TaskSucceeded,
 *   TaskStateExited), CarryOn (Pass: entered, exited) and ShardDone? (Choice: entered, exited); its start,
 *   its end and ShardDone (Pass) add 4. test/support/sfn-limits.js counts them so, and its test runs a
 *   child to the last segment that fits;
 * - a state's input or output holds at most 256 KiB: a shard's payload is the job's options with its
 *   range, and a child's state holds it beside two checkpoints (the CSV header is by reference,
 *   header-ref.js).
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { isCollection } from '../../config/index.js';
import { ConfigError } from '../../errors.js';

/** An execution's history, at most (AWS's quota: events). */
export const HISTORY_EVENTS = 25_000;
/** A segment's events in its child's history. */
export const EVENTS_PER_SEGMENT = 9;
/** A child's events besides its segments. */
export const EVENTS_PER_CHILD = 4;
/**
 * Events kept for what a plan cannot foresee: retried invocations (3 events each: TaskScheduled,
 * TaskStarted, TaskFailed; Lambda's throttles are retried up to 20 times a segment) and redrives.
 */
export const EVENTS_KEPT = 5_000;
/** Segments a shard may take: 2,221. */
export const SEGMENTS_PER_SHARD = Math.floor((HISTORY_EVENTS - EVENTS_KEPT - EVENTS_PER_CHILD) / EVENTS_PER_SEGMENT);
/**
 * The slowest a shard is planned to read, to bound its time: 64 KiB/s, some 64 rows of 1 KB a second (a
 * table throttled to a few hundred WCU shared by several shards). Slower, a shard of the size checked could
 * still run out of history; faster, it has room to spare.
 */
export const SLOWEST_BYTES_PER_SECOND = 64 * 1024;
/** A job's payload, at most: a child's state holds it beside two checkpoints, within 256 KiB. */
export const PAYLOAD_BYTES = 64 * 1024;

/**
 * Refuses a job whose shards could not fit in an execution: a payload too large, or segments so short
 * (segmentMs) that a shard read at the slowest planned rate would pass the history limit. Without
 * segmentMs a segment runs to the function's time limit (some 14 minutes): 2,221 of them are 21 days.
 * @param {Record<string, unknown>} payload
 * @param {Pick<import('../../config/index.js').ImportConfig, 'segmentMs' | 'shards' | 'bytesPerShard'>} config
 * @param {number | undefined} bytes  the object's size (undefined: a job over many objects, each its own shard)
 */
export function checkFitsOnAws(payload, config, bytes) {
  const payloadBytes = Buffer.byteLength(JSON.stringify(payload), 'utf8');
  if (payloadBytes > PAYLOAD_BYTES) {
    throw new ConfigError('payload', `${payloadBytes} bytes`, `a job on AWS carries its options in every state of its execution (Step Functions holds at most 256 KiB a state): keep them under ${PAYLOAD_BYTES} bytes`);
  }
  if (config.segmentMs === undefined || bytes === undefined) return;
  const shardBytes = Math.min(config.bytesPerShard ?? bytes, Math.ceil(bytes / config.shards));
  const neededMs = Math.ceil((shardBytes / SLOWEST_BYTES_PER_SECOND) * 1000 / SEGMENTS_PER_SHARD);
  if (config.segmentMs >= neededMs) return;
  const mb = (shardBytes / 1e6).toFixed(1);
  const fix = neededMs <= 900_000 ? `set segmentMs to ${neededMs} or more, or leave it out (a segment then runs to the function's time limit)` : `leave segmentMs out and set shards to ${Math.ceil(config.shards * neededMs / 900_000)} or more`;
  throw new ConfigError('segmentMs', config.segmentMs, `on AWS a shard's execution holds at most ${HISTORY_EVENTS} history events, ${SEGMENTS_PER_SHARD} segments; a shard of ${mb} MB read at ${SLOWEST_BYTES_PER_SECOND / 1024} KiB/s (the slowest planned for) needs segments of ${neededMs} ms: ${fix}`);
}

/**
 * The object's size when checkFitsOnAws needs it (segmentMs set, one object), else undefined.
 * @param {import('../../config/index.js').ImportConfig} config @param {import('@aws-sdk/client-s3').S3Client} s3
 */
export async function bytesToCheck(config, s3) {
  if (config.segmentMs === undefined || isCollection(config) || config.bucket === undefined || config.key === undefined) return undefined;
  return (await s3.send(new HeadObjectCommand({ Bucket: config.bucket, Key: config.key, ...(config.versionId === undefined ? {} : { VersionId: config.versionId }) }))).ContentLength;
}

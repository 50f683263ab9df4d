/**
 * Where `spread` reads a segment's bytes: K ranges on record boundaries (the shard planner's cuts, by the
 * quote-aware scanner for CSV, after any line break for JSON Lines), each with the lines before it.
 * Made once, by the first segment of a job (or shard); its continuations carry the ranges on.
 */
import { planLineShards, planRecordRanges, planShards } from './shard-plan.js';

/**
 * @param {AsyncIterable<Buffer>} body  the segment's bytes, from `from` to `end`
 * @param {object} options
 * @param {import('../config.js').Format} options.format
 * @param {number} options.from  first byte (0, or a shard's start)
 * @param {number} options.line  lines before it
 * @param {number} options.end   one past the last byte
 * @param {number} options.ranges  how many
 * @param {string} options.delimiter
 * @param {import('../records/csv/text-encoding.js').EncodingOption} options.encoding  the job's, once decided
 * @param {string[] | undefined} options.header  the CSV header, when the segment starts after it
 * @param {string} options.where
 * @returns {Promise<{ header: string[] | undefined, encoding: import('../records/csv/text-encoding.js').Encoding | undefined, ranges: import('./read-spread.js').SpreadRange[] }>}
 */
export async function planSpread(body, { format, from, line, end, ranges, delimiter, encoding, header, where }) {
  const toSpread = (/** @type {Array<{ start: number, end: number, line: number }>} */ cuts) => cuts.filter((cut) => cut.end > cut.start).map((cut) => ({ byte: cut.start, end: cut.end, line: cut.line, stop: undefined }));
  if (format !== 'csv') {
    const plan = await planLineShards(body, { bytes: end, shards: ranges, where, from, line });
    return { header: [], encoding: 'utf-8', ranges: toSpread(plan.shards) };
  }
  if (header === undefined) {
    const plan = await planShards(body, { bytes: end, shards: ranges, delimiter, encoding, where });
    return { header: plan.header, encoding: plan.encoding, ranges: toSpread(plan.shards) };
  }
  const decided = /** @type {import('../records/csv/text-encoding.js').Encoding} */ (encoding === 'auto' ? 'utf-8' : encoding);
  return { header, encoding: decided, ranges: toSpread(await planRecordRanges(body, { from, line, bytes: end, ranges, delimiter, encoding: decided, where })) };
}

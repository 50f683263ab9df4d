/**
 * Where `spread` reads a segment's bytes: K ranges on record boundaries (the shard planner's cuts, by the
 * quote-aware scanner for CSV, after any line break for JSON Lines), each with the lines before it, then
 * where each range stops. Made once, by the first segment of a job (or shard); its continuations carry
 * the ranges on in their checkpoints.
 */
import { planLineShards, planRecordRanges, planShards, unpaused } from './shard-plan.js';

/**
 * A range as a checkpoint carries it; the reader moves it on in place as it reads.
 * @typedef {object} SpreadRange
 * @property {number} byte   first byte not yet read
 * @property {number | undefined} stop  where the range ends; undefined until the first segment has found where
 *   the run of a key at the next range's start ends
 * @property {number} end    the planned end (the next range's planned start)
 * @property {number} line   lines of the file before `byte`
 * @property {string} [min]  smallest key handed on so far (a keyId)
 * @property {string} [max]  largest
 */

/**
 * @param {AsyncIterable<Buffer>} body  the segment's bytes, from `from` to `end`
 * @param {object} options
 * @param {import('../config/index.js').Format} options.format
 * @param {number} options.from  first byte (0, or a shard's start)
 * @param {number} options.line  lines before it
 * @param {number} options.end   one past the last byte
 * @param {number} options.ranges  how many
 * @param {string} options.delimiter
 * @param {import('../records/csv/text-encoding.js').EncodingOption} options.encoding  the job's, once decided
 * @param {string[] | undefined} options.header  the CSV header, when the segment starts after it
 * @param {string} options.where
 * @returns {Promise<{ header: string[] | undefined, encoding: import('../records/csv/text-encoding.js').Encoding | undefined, ranges: SpreadRange[] }>}
 */
export async function planSpread(body, { format, from, line, end, ranges, delimiter, encoding, header, where }) {
  const toSpread = (/** @type {Array<{ start: number, end: number, line: number }>} */ cuts) => cuts.filter((cut) => cut.end > cut.start).map((cut) => ({ byte: cut.start, end: cut.end, line: cut.line, stop: undefined }));
  if (format !== 'csv') {
    const plan = unpaused(await planLineShards(body, { bytes: end, shards: ranges, where, from, line }));
    return { header: [], encoding: 'utf-8', ranges: toSpread(plan.shards) };
  }
  if (header === undefined) {
    const plan = unpaused(await planShards(body, { bytes: end, shards: ranges, delimiter, encoding, where }));
    return { header: plan.header, encoding: plan.encoding, ranges: toSpread(plan.shards) };
  }
  const decided = /** @type {import('../records/csv/text-encoding.js').Encoding} */ (encoding === 'auto' ? 'utf-8' : encoding);
  return { header, encoding: decided, ranges: toSpread(await planRecordRanges(body, { from, line, bytes: end, ranges, delimiter, encoding: decided, where })) };
}

/**
 * Where each range stops, for the ranges that do not know yet (a job's first segment). A run of one key is
 * never cut: range j (j >= 1) first skips the records at its start that share its first key
 * (`skipFirstRun`), and range j - 1 reads on through them to the next non-empty range's start.
 * The searches run at once, each on its own connection: one after another, an import on S3 would wait
 * out K first-byte latencies before its first row. Every search ends before an error is thrown, so that
 * no reader is opened after the readers are closed. Then the stops, last range first (each needs the
 * later ranges' starts).
 * @param {SpreadRange[]} ranges  changed in place
 * @param {number} end  one past the segment's last byte
 * @param {(j: number) => Promise<void>} skipFirstRun  moves range j's `byte` past the run of its first key
 */
export async function placeStops(ranges, end, skipFirstRun) {
  const searches = await Promise.allSettled(ranges.map((range, j) => (range.stop === undefined && j > 0 ? skipFirstRun(j) : undefined)));
  const failed = searches.find((search) => search.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  for (let j = ranges.length - 1; j >= 0; j--) {
    if (ranges[j].stop === undefined) ranges[j].stop = j === ranges.length - 1 ? end : nextStart(ranges, j, end);
  }
}

/**
 * The start of the range after j that is not empty (its first run skipped), or the segment's end.
 * @param {SpreadRange[]} ranges @param {number} j @param {number} end
 */
function nextStart(ranges, j, end) {
  for (let k = j + 1; k < ranges.length; k++) if (ranges[k].byte < ranges[k].end) return ranges[k].byte;
  return end;
}

/** Whether a range has bytes left to read (its stop placed). @param {SpreadRange} range */
export const hasBytesLeft = (range) => range.byte < /** @type {number} */ (range.stop);

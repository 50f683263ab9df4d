/**
 * The counters of an import, listed once. The running stats, the totals a checkpoint carries to the next
 * segment, the summary and a sharded job's totals are all built from this list, and the books balance
 * by one rule: every row read is written (put or deleted), rejected, collapsed into a later row with its
 * key, or skipped (a conditional write mode's condition failed: the table's item stays).
 */

/** Lines of skipped rows a summary names, the first ones. */
export const SKIPPED_LINES_KEPT = 10;

/** Counters that add up across segments and shards, in the order the summary shows them. */
export const TOTALS = /** @type {const} */ ([
  'rowsRead', //            data records the parser produced or skipped as malformed
  'written', //             items DynamoDB accepted (puts)
  'deleted', //             items DynamoDB deleted (a row of a delete, or a delete of an incremental export)
  'rejected', //            rows that will never be written, each with a reason
  'duplicatesCollapsed', // rows replaced by a later row with the same key in one batch
  'skipped', //             rows whose write mode's condition failed (the item exists, or is not older)
  'retries', //             BatchWriteItem calls that re-sent items
  'throttledItems', //      items refused for capacity (unprocessed or in a throttled call)
  'throttledCalls', //      whole calls refused for capacity
  'transientErrors', //     calls that failed with a 5xx, reset or time-out
  'wcu', //                 consumed write capacity units
  'calls', //               BatchWriteItem calls sent
]);

/** How a total is named in a summary, where it differs. @type {Partial<Record<TotalName, string>>} */
const SUMMARY_NAMES = { wcu: 'wcuConsumed' };

/** @typedef {(typeof TOTALS)[number]} TotalName */
/**
 * @typedef {{ [name in TotalName]: number } & { rejectedByReason: Record<string, number>, throttledCallsByReason: Record<string, number>,
 *   skippedByReason?: Record<string, number>, skippedLines?: number[] }} Totals
 *   throttledCallsByReason: calls refused for capacity, by each of the ThrottlingReasons DynamoDB gave;
 *   skippedByReason and skippedLines (the lowest SKIPPED_LINES_KEPT, sorted): rows skipped, once any is
 */
/**
 * Totals plus what only the running segment has: calls under way now, the current window, and the byte
 * of the source (decompressed, for gzip) after the last record read.
 * @typedef {Totals & { inFlight: number, window: number, byte: number }} Stats
 */

/**
 * @param {Totals} [totals]  where an earlier segment of the job left off
 * @returns {Stats}
 */
export function createStats(totals) {
  const stats = /** @type {Stats} */ ({ rejectedByReason: Object.create(null), throttledCallsByReason: Object.create(null), inFlight: 0, window: 0, byte: 0 });
  // (`?? 0`: a checkpoint from before a counter was added has none.)
  for (const name of TOTALS) stats[name] = totals?.[name] ?? 0;
  if (totals !== undefined) Object.assign(stats.rejectedByReason, totals.rejectedByReason);
  if (totals?.throttledCallsByReason !== undefined) Object.assign(stats.throttledCallsByReason, totals.throttledCallsByReason);
  if (totals?.skippedByReason !== undefined) stats.skippedByReason = { ...totals.skippedByReason };
  if (totals?.skippedLines !== undefined) stats.skippedLines = [...totals.skippedLines];
  return stats;
}

/**
 * The counters a continuation carries on with.
 * @param {Stats} stats
 * @returns {Totals}
 */
export function totalsOf(stats) {
  const totals = /** @type {Totals} */ ({ rejectedByReason: { ...stats.rejectedByReason }, throttledCallsByReason: { ...stats.throttledCallsByReason } });
  for (const name of TOTALS) totals[name] = stats[name];
  if (stats.skippedByReason !== undefined) totals.skippedByReason = { ...stats.skippedByReason };
  if (stats.skippedLines !== undefined) totals.skippedLines = [...stats.skippedLines];
  return totals;
}

/**
 * Counts one rejected row under its reason.
 * @param {Stats} stats
 * @param {string} reason
 */
export function countRejection(stats, reason) {
  stats.rejected++;
  stats.rejectedByReason[reason] = (stats.rejectedByReason[reason] ?? 0) + 1;
}

/**
 * Counts one skipped row under its reason, and its line among the lowest ones.
 * @param {Totals} stats @param {string} reason @param {number} line
 */
export function countSkip(stats, reason, line) {
  stats.skipped++;
  const byReason = (stats.skippedByReason ??= Object.create(null));
  byReason[reason] = (byReason[reason] ?? 0) + 1;
  // The lowest lines, whatever order the answers came in: sorted, the highest let go past the count kept.
  const lines = (stats.skippedLines ??= []);
  if (lines.length === SKIPPED_LINES_KEPT && line > lines[lines.length - 1]) return;
  let at = lines.length;
  while (at > 0 && lines[at - 1] > line) at--;
  lines.splice(at, 0, line);
  if (lines.length > SKIPPED_LINES_KEPT) lines.pop();
}

/**
 * Rows read that are neither written, rejected, collapsed nor skipped: zero when the books balance.
 * @param {{ rowsRead: number, written: number, deleted?: number, rejected: number, duplicatesCollapsed?: number, skipped?: number }} counts
 */
export function unwrittenOf(counts) {
  return counts.rowsRead - counts.written - (counts.deleted ?? 0) - counts.rejected - (counts.duplicatesCollapsed ?? 0) - (counts.skipped ?? 0);
}

/**
 * The summary's figures: every total (rejections by reason beside them), the time, the rate and
 * whether the books balance.
 * @param {Totals} totals
 * @param {number} seconds
 */
export function summarize(totals, seconds) {
  /** @type {Record<string, number>} */
  const figures = {};
  for (const name of TOTALS) figures[SUMMARY_NAMES[name] ?? name] = name === 'wcu' ? round(totals.wcu, 1) : totals[name];
  return {
    .../** @type {SummaryFigures} */ (figures),
    rejectedByReason: { ...totals.rejectedByReason },
    throttledCallsByReason: { ...totals.throttledCallsByReason },
    ...(totals.skippedByReason === undefined ? {} : { skippedByReason: { ...totals.skippedByReason }, skippedLines: [...(totals.skippedLines ?? [])] }),
    seconds: round(seconds, 3),
    rowsPerSecond: Math.round((totals.written + totals.deleted) / Math.max(seconds, 1e-3)),
    balanced: unwrittenOf(totals) === 0,
  };
}

/** @typedef {{ [name in Exclude<TotalName, 'wcu'>]: number } & { wcuConsumed: number }} SummaryFigures */
/** @typedef {ReturnType<typeof summarize>} Summary */

/**
 * The job's figures from its shards' summaries: each counter added up, and the rate over the job's time.
 * @param {Array<Partial<Summary>>} parts
 * @param {number} seconds  the job's time, from its start to the last update
 * @returns {Summary}
 */
export function sumSummaries(parts, seconds) {
  const totals = /** @type {Totals} */ ({ rejectedByReason: Object.create(null), throttledCallsByReason: Object.create(null) });
  for (const name of TOTALS) {
    const field = /** @type {keyof Summary} */ (SUMMARY_NAMES[name] ?? name);
    totals[name] = parts.reduce((sum, part) => sum + (/** @type {number | undefined} */ (part[field]) ?? 0), 0);
  }
  /** Each object's skipped lines, in a job over many: line numbers are an object's own. @type {Map<string, number[]>} */
  const linesOf = new Map();
  for (const part of parts) {
    for (const [reason, n] of Object.entries(part.rejectedByReason ?? {})) totals.rejectedByReason[reason] = (totals.rejectedByReason[reason] ?? 0) + n;
    for (const [reason, n] of Object.entries(part.throttledCallsByReason ?? {})) totals.throttledCallsByReason[reason] = (totals.throttledCallsByReason[reason] ?? 0) + n;
    for (const [reason, n] of Object.entries(part.skippedByReason ?? {})) (totals.skippedByReason ??= {})[reason] = (totals.skippedByReason[reason] ?? 0) + n;
    // A shard's lines are its file's: the job's first ones are the first of all its shards'.
    if (part.skippedLines !== undefined) {
      totals.skippedLines = [...(totals.skippedLines ?? []), ...part.skippedLines];
      const source = /** @type {{ key?: string, file?: string }} */ (part).key ?? /** @type {{ file?: string }} */ (part).file ?? '';
      linesOf.set(source, [...(linesOf.get(source) ?? []), ...part.skippedLines]);
    }
  }
  const firstLines = (/** @type {number[]} */ lines) => lines.sort((a, b) => a - b).slice(0, SKIPPED_LINES_KEPT);
  if (totals.skippedLines !== undefined) totals.skippedLines = firstLines(totals.skippedLines);
  const summary = summarize(totals, seconds);
  if (linesOf.size <= 1) return summary;
  // Lines of several objects mixed would name no row: each object's first ones, under its key.
  const { skippedLines: _mixed, ...rest } = summary;
  return /** @type {Summary} */ ({ ...rest, skippedLinesByObject: Object.fromEntries([...linesOf].map(([source, lines]) => [source, firstLines(lines)])) });
}

/** @param {number} value @param {number} digits */
export function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

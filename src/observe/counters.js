/**
 * Counters of one import, the per-second throughput line, and the final summary.
 */

/**
 * @typedef {object} Stats
 * @property {number} rowsRead             data records the parser produced or skipped as malformed
 * @property {number} written              items DynamoDB accepted
 * @property {number} rejected             rows that will never be written, each with a reason
 * @property {Record<string, number>} rejectedByReason
 * @property {number} duplicatesCollapsed  rows replaced by a later row with the same key in one batch
 * @property {number} retries              BatchWriteItem calls that re-sent items
 * @property {number} throttledItems       items refused for capacity (unprocessed or in a throttled call)
 * @property {number} throttledCalls       whole calls refused for capacity
 * @property {number} transientErrors      calls that failed with a 5xx, reset or time-out
 * @property {number} wcu                  consumed write capacity units
 * @property {number} calls                BatchWriteItem calls sent
 * @property {number} inFlight             calls under way now
 * @property {number} window               current limit on calls in flight
 */

/**
 * @param {import('../job/checkpoint.js').Totals} [totals]  where an earlier segment of the job left off
 * @returns {Stats}
 */
export function createStats(totals) {
  /** @type {Stats} */
  const stats = {
    rowsRead: 0,
    written: 0,
    rejected: 0,
    rejectedByReason: {},
    duplicatesCollapsed: 0,
    retries: 0,
    throttledItems: 0,
    throttledCalls: 0,
    transientErrors: 0,
    wcu: 0,
    calls: 0,
    inFlight: 0,
    window: 0,
  };
  if (totals !== undefined) Object.assign(stats, totals, { rejectedByReason: { ...totals.rejectedByReason } });
  return stats;
}

/**
 * The counters a continuation carries on with.
 * @param {Stats} stats
 * @returns {import('../job/checkpoint.js').Totals}
 */
export function totalsOf(stats) {
  const { inFlight: _inFlight, window: _window, ...totals } = stats;
  return { ...totals, rejectedByReason: { ...stats.rejectedByReason } };
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
 * One interval's figures: what the log line, the metrics and the chart show.
 * @typedef {object} ThroughputLine
 * @property {number} elapsedSeconds
 * @property {number} rowsRead
 * @property {number} written
 * @property {number} rejected
 * @property {number} rowsPerSecond         written in this interval, per second
 * @property {number} averageRowsPerSecond  since the segment started
 * @property {number} wcuPerSecond
 * @property {number} throttledItems        in this interval
 * @property {number} retries
 * @property {number} inFlight
 * @property {number} window
 */

/**
 * Logs one line every interval until stopped, and the last partial interval on stop.
 * @param {Stats} stats
 * @param {(fields: ThroughputLine) => void} log
 * @param {number} intervalMs
 * @param {() => number} [now]  milliseconds clock
 * @returns {{ stop: () => void, seconds: () => number }}
 */
export function startThroughputLog(stats, log, intervalMs, now = () => performance.now()) {
  const startedAt = now();
  const writtenBefore = stats.written;
  let last = { at: startedAt, written: stats.written, wcu: stats.wcu, throttled: stats.throttledItems };

  function emit() {
    const at = now();
    const intervalSeconds = (at - last.at) / 1000;
    if (intervalSeconds <= 0) return;
    const elapsed = (at - startedAt) / 1000;
    log({
      elapsedSeconds: round(elapsed, 3),
      rowsRead: stats.rowsRead,
      written: stats.written,
      rejected: stats.rejected,
      rowsPerSecond: Math.round((stats.written - last.written) / intervalSeconds),
      averageRowsPerSecond: Math.round((stats.written - writtenBefore) / Math.max(elapsed, 1e-3)),
      wcuPerSecond: Math.round((stats.wcu - last.wcu) / intervalSeconds),
      throttledItems: stats.throttledItems - last.throttled,
      retries: stats.retries,
      inFlight: stats.inFlight,
      window: stats.window,
    });
    last = { at, written: stats.written, wcu: stats.wcu, throttled: stats.throttledItems };
  }

  const timer = setInterval(emit, intervalMs);
  timer.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      emit();
    },
    seconds: () => (now() - startedAt) / 1000,
  };
}

/**
 * @param {Stats} stats
 * @param {number} seconds
 */
export function summarize(stats, seconds) {
  return {
    rowsRead: stats.rowsRead,
    written: stats.written,
    rejected: stats.rejected,
    rejectedByReason: { ...stats.rejectedByReason },
    duplicatesCollapsed: stats.duplicatesCollapsed,
    retries: stats.retries,
    throttledItems: stats.throttledItems,
    throttledCalls: stats.throttledCalls,
    transientErrors: stats.transientErrors,
    wcuConsumed: round(stats.wcu, 1),
    calls: stats.calls,
    seconds: round(seconds, 3),
    rowsPerSecond: Math.round(stats.written / Math.max(seconds, 1e-3)),
    balanced: stats.rowsRead === stats.written + stats.rejected + stats.duplicatesCollapsed,
  };
}

/** @param {number} value @param {number} digits */
function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * The throughput line: every interval, what was written, consumed and throttled in it, and the averages
 * since the segment started. The log, the metrics, the job status and the chart are all fed from it.
 */
import { round } from './counters.js';

/**
 * One interval's figures: what the log line, the metrics and the chart show.
 * @typedef {object} ThroughputLine
 * @property {number} elapsedSeconds
 * @property {number} rowsRead
 * @property {number} written
 * @property {number} rejected
 * @property {Record<string, number>} rejectedByReason  since the job started
 * @property {number} skipped               rows a conditional write mode's condition kept out, since the job started
 * @property {number} byte                  of the source, after the last record read (decompressed, for gzip)
 * @property {number} rowsPerSecond         written in this interval, per second
 * @property {number} averageRowsPerSecond  since the segment started
 * @property {number} wcuPerSecond
 * @property {number} wcuConsumed           since the job started
 * @property {number} averageWcuPerSecond   since the segment started
 * @property {number} throttledItems        in this interval
 * @property {Record<string, number>} throttledCallsByReason  calls refused for capacity, by DynamoDB's ThrottlingReasons, since the job started
 * @property {number} retries
 * @property {number} inFlight
 * @property {number} window
 */

/**
 * Logs one line every interval until stopped, and the last partial interval on stop.
 * @param {import('./counters.js').Stats} stats
 * @param {(fields: ThroughputLine) => void} log
 * @param {number} intervalMs
 * @param {() => number} [now]  milliseconds clock
 * @returns {{ stop: () => void, seconds: () => number }}
 */
export function startThroughputLog(stats, log, intervalMs, now = () => performance.now()) {
  const startedAt = now();
  const writtenBefore = stats.written;
  const wcuBefore = stats.wcu;
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
      rejectedByReason: { ...stats.rejectedByReason },
      skipped: stats.skipped,
      byte: stats.byte,
      rowsPerSecond: Math.round((stats.written - last.written) / intervalSeconds),
      averageRowsPerSecond: Math.round((stats.written - writtenBefore) / Math.max(elapsed, 1e-3)),
      wcuPerSecond: Math.round((stats.wcu - last.wcu) / intervalSeconds),
      wcuConsumed: round(stats.wcu, 1),
      averageWcuPerSecond: Math.round((stats.wcu - wcuBefore) / Math.max(elapsed, 1e-3)),
      throttledItems: stats.throttledItems - last.throttled,
      throttledCallsByReason: { ...stats.throttledCallsByReason },
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

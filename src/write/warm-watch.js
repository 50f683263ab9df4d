/**
 * An on-demand table grows when pushed, and DynamoDB raises its warm throughput as it does: what
 * DescribeTable's WarmThroughput says the table takes at once. Read again every few seconds while an
 * import writes, it tells the pace of a step the table made without waiting for the pace to probe for it.
 * DynamoDB asks clients not to poll its control plane hard: one call per interval, never two at once,
 * and a call that fails is only skipped (the pace probes anyway).
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';

/** How often the warm throughput is read again. */
export const WARM_WATCH_MS = 2_000;

/**
 * @param {object} options
 * @param {Pick<import('@aws-sdk/client-dynamodb').DynamoDBClient, 'send'>} options.dynamodb
 * @param {string} options.table
 * @param {(writesPerSecond: number) => void} options.onWarm  the table's warm write throughput, each time it rises
 * @param {number} [options.everyMs]
 * @param {number} [options.from]  the warm throughput already known: only a rise above it is told
 * @returns {{ stop: () => void }}
 */
export function watchWarmThroughput({ dynamodb, table, onWarm, everyMs = WARM_WATCH_MS, from = 0 }) {
  let known = from;
  let reading = false;
  const stopping = new AbortController();
  const timer = setInterval(async () => {
    if (reading) return;
    reading = true;
    try {
      const output = await dynamodb.send(new DescribeTableCommand({ TableName: table }), { abortSignal: stopping.signal });
      const { WriteUnitsPerSecond: warm, Status: status } = output.Table?.WarmThroughput ?? {};
      // While it is UPDATING (a pre-warm asked for), the figure may be one the table does not have yet.
      if (warm !== undefined && warm > known && status !== 'UPDATING' && !stopping.signal.aborted) {
        known = warm;
        onWarm(warm);
      }
    } catch {
      // Throttled, denied, or stopped: the next interval tries again; the pace does not depend on it.
    } finally {
      reading = false;
    }
  }, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      stopping.abort();
    },
  };
}

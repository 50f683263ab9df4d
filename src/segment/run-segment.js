/**
 * One segment in an invocation: it stops reading after segmentMs, or when the Lambda's remaining time
 * falls to timeMarginMs (time to drain the writes in flight and hand over), whichever comes first.
 */
import { runImport } from './import-segment.js';

/**
 * @typedef {Pick<import('aws-lambda').Context, 'getRemainingTimeInMillis' | 'invokedFunctionArn'>} InvocationContext
 */

/**
 * @param {Readonly<import('../config/index.js').ImportConfig>} config
 * @param {{ clients: import('../clients.js').Clients, logger: import('../types.js').Logger, context: InvocationContext | undefined, stop?: AbortSignal, abandon?: AbortSignal }} deps
 * @returns {Promise<import('./segment-report.js').SegmentOutcome>}
 */
export function runSegment(config, { clients, logger, context, stop, abandon }) {
  const now = performance.now();
  const remaining = context?.getRemainingTimeInMillis?.();
  const deadline = remaining === undefined ? Infinity : now + remaining;
  const bySegment = config.segmentMs === undefined ? Infinity : now + config.segmentMs;
  const byLambda = deadline - config.timeMarginMs;
  return runImport(config, { clients, logger, stopBy: Math.min(bySegment, byLambda), deadline, stop, abandon });
}

/**
 * A shard's child execution as the state machine runs it on AWS (deploy/state-machine.cjs: ImportSegment,
 * then CarryOn and ShardDone? until the shard is done), without the emulator: the function's `segment`
 * handler invoked again with each segment's answer, each invocation with a context whose remaining time
 * starts at `timeoutMs`, as Lambda gives it. test/integration/step-functions.test.js runs the same loop
 * through the definition; this one times each invocation.
 */
import { segment } from '../../src/handler.js';

/**
 * @typedef {object} Invocation
 * @property {{ shard: Record<string, unknown>, segment: any }} payload
 * @property {any} [result]
 * @property {number} [ms]  how long the handler ran
 */

/**
 * Runs the loop to its end and answers every invocation; rejects with the first invocation's error.
 * @param {Record<string, unknown>} shard  the Map item: a shard's payload, or a whole job's
 * @param {{ timeoutMs: number, functionArn?: string }} options  timeoutMs: the function's timeout, each invocation's time budget
 * @returns {Promise<Invocation[]>}
 */
export async function runSegmentLoop(shard, { timeoutMs, functionArn = 'arn:aws:lambda:us-east-1:123456789012:function:csv-import-test-segment' }) {
  /** @type {Invocation[]} */
  const invocations = [];
  /** @type {any} */
  let state = { done: false };
  while (!state.done) {
    const started = performance.now();
    const context = { invokedFunctionArn: functionArn, getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (performance.now() - started)) };
    /** @type {Invocation} */
    const invocation = { payload: { shard, segment: state } };
    invocations.push(invocation);
    state = await segment(/** @type {any} */ (invocation.payload), /** @type {any} */ (context));
    invocation.result = state;
    invocation.ms = performance.now() - started;
  }
  return invocations;
}

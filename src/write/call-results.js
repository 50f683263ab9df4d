/**
 * What a write call's outcome does to the books, the window and the pace, alike for a batch of 25 rows
 * (send-batch.js) and a conditional call of one (send-item.js).
 */
import { describeError } from '../errors.js';
import { backoffDelay } from './retry.js';

/** @typedef {import('../types.js').Entry} Entry */
/**
 * What these functions read of a sender.
 * @typedef {object} CallResults
 * @property {import('../observe/counters.js').Stats} stats
 * @property {{ succeeded: () => void, throttled: () => void }} window
 * @property {ReturnType<typeof import('./pace.js').createAdaptivePace>} pace
 * @property {() => unknown} stoppedBy
 * @property {(entry: Entry, reason: import('../errors.js').RejectReason, message: string) => void} reject
 * @property {() => boolean} abandoned
 */

/**
 * What an attempt's turn waits on.
 * @typedef {CallResults & { capacity: ReturnType<typeof import('./pace.js').createWcuLimiter>, wait: (ms: number) => Promise<unknown>, backoffBaseMs: number, backoffCapMs: number }} AttemptTurns
 */

/**
 * An attempt's turn: after the first, its backoff; then the WCU cap and the pace, for `units`. Returns
 * what the pace reserved for the call, or undefined when the attempts must stop: a fatal error stopped
 * the import, or the writes were given up.
 * @param {AttemptTurns} sender @param {ReturnType<typeof import('./attempt-budget.js').createAttemptBudget>} budget @param {number} units
 * @returns {Promise<number | undefined>}
 */
export async function attemptTurn(sender, budget, units) {
  if (budget.attempts() > 0) {
    if (sender.stoppedBy() !== undefined) return undefined;
    sender.stats.retries++;
    await sender.wait(backoffDelay(budget.backoffStep(), sender.backoffBaseMs, sender.backoffCapMs));
  }
  if (sender.abandoned()) return undefined;
  const ready = sender.capacity.acquire(units);
  if (ready !== undefined) await ready;
  const paced = sender.pace.ready();
  if (paced !== undefined) await paced;
  const reserved = sender.pace.reserve(units);
  budget.begin();
  return reserved;
}

/**
 * One call on the wire, in a slot of the window: not sent once a fatal error stopped the import (it
 * throws that) or the writes were given up (it answers nothing), and counted while it is out.
 * @template {object} T
 * @param {CallResults} sender @param {() => Promise<T>} send
 * @returns {Promise<Partial<T>>}
 */
export async function onTheWire(sender, send) {
  const fatal = sender.stoppedBy();
  if (fatal !== undefined) throw fatal;
  if (sender.abandoned()) return {};
  const { stats } = sender;
  stats.calls++;
  stats.inFlight++;
  try {
    return await send();
  } finally {
    stats.inFlight--;
  }
}

/**
 * A call failed for capacity or a transient fault: counted, and the attempt budget and (for capacity)
 * the window and the pace told.
 * @param {CallResults} sender @param {ReturnType<typeof import('./attempt-budget.js').createAttemptBudget>} budget
 * @param {import('./retry.js').ErrorKind} kind @param {number} items @param {unknown} error
 */
export function countFailedCall(sender, budget, kind, items, error) {
  if (kind === 'throttle') {
    throttled(sender, items, true, /** @type {{ throttlingReasons?: Array<{ reason: string }> }} */ (error).throttlingReasons);
    budget.throttled();
  } else {
    sender.stats.transientErrors++;
    budget.failed();
  }
}

/**
 * A call's attempts are spent (or a fatal error stopped the import): its entries not written are rejected.
 * @param {CallResults} sender @param {Entry[]} pending @param {number} attempts @param {unknown} lastError
 */
export function rejectUnwritten(sender, pending, attempts, lastError) {
  const fatal = sender.stoppedBy();
  const why = fatal !== undefined ? `the import stopped on a fatal error after ${describeError(fatal)}` : `${attempts} attempts`;
  for (const entry of pending) sender.reject(entry, 'ATTEMPTS_EXHAUSTED', `not written after ${why}; last error: ${describeError(lastError)}`);
}

/**
 * Items refused for capacity: counted (a call refused whole under each of its ThrottlingReasons), and the
 * window and the pace hear of it. When the only reason is a hot key range, the window is not cut and no
 * call is held back: the table has capacity left, one partition key's range has not, and slowing every
 * write would not help it (spreading the rows would); the batch backs off alone. The pace still counts
 * its items: when most of what is sent is refused, key range or not, the table is taking no more.
 * @param {CallResults} sender @param {number} items @param {boolean} wholeCall
 * @param {Array<{ reason: string }>} [reasons]  a whole call's, when DynamoDB gave them
 */
export function throttled({ stats, window, pace }, items, wholeCall, reasons) {
  if (wholeCall) stats.throttledCalls++;
  stats.throttledItems += items;
  for (const { reason } of reasons ?? []) stats.throttledCallsByReason[reason] = (stats.throttledCallsByReason[reason] ?? 0) + 1;
  pace.throttled(items);
  if (reasons !== undefined && reasons.length > 0 && reasons.every(({ reason }) => reason.endsWith('KeyRangeThroughputExceeded'))) return;
  window.throttled();
  if (wholeCall) pace.refused();
}

/** Counts the entries DynamoDB applied, puts as written and deletes as deleted. @param {import('../observe/counters.js').Stats} stats @param {Entry[]} entries */
export function countApplied(stats, entries) {
  for (const entry of entries) {
    if (entry.op === 'delete') stats.deleted++;
    else stats.written++;
  }
}

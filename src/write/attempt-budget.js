/**
 * How many attempts one batch still has. A failed call (5xx, reset, time-out) always counts. Throttling
 * (a call refused for capacity, or items left unprocessed) counts only while the import as a whole writes
 * nothing: throttling while other rows are being written is contention for capacity the table does have,
 * so the batch waits its turn (with backoff) rather than being rejected. Progress is judged since the
 * batch's previous attempt began, backoff included: within one short call a table at full capacity can
 * refuse everything for a moment while it still writes every second.
 *
 * The batch's backoff follows the same line. Refused while the import writes, it is contending for
 * capacity the table has: its backoff doubles up to CONTENTION_STEPS (25 ms x 2^4 = 400 ms at the default
 * base) and no further, so that rows a hot partition kept refusing are not left asleep for seconds after
 * it has room. They were: a spread import's last rows, refused six to eight times in a row while their
 * partition was full, backed off under ceilings up to 3.2 s, and its end came up to 1.7 s late. The pace, not the backoff,
 * holds the rate the table is sent. Attempts the budget counts (nothing written anywhere since) double
 * the backoff on towards its cap.
 */

/** Doublings of the backoff while the import writes. */
export const CONTENTION_STEPS = 5;

/**
 * @param {number} maxAttempts  attempts that count before the batch's items are rejected
 * @param {() => number} written  items the import has written so far
 */
export function createAttemptBudget(maxAttempts, written) {
  let attempts = 0;
  let counted = 0;
  let progressMark = written();
  let attemptBegan = progressMark;
  return {
    /** Attempts made, counted or not. */
    attempts: () => attempts,
    /** The step of the next backoff (retry.js backoffDelay's `retry`): capped while nothing is counted. */
    backoffStep: () => Math.min(attempts, CONTENTION_STEPS + counted),
    /** Whether the batch may be sent (again). */
    left: () => counted < maxAttempts,
    /** An attempt is about to be sent. */
    begin() {
      attempts++;
      attemptBegan = written();
    },
    /** The attempt failed (not for capacity): it counts. */
    failed() {
      counted++;
    },
    /** The attempt was throttled, whole or in part (call after counting what it wrote). */
    throttled() {
      if (written() === progressMark) counted++;
      progressMark = attemptBegan;
    },
  };
}

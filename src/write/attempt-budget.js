/**
 * How many attempts one batch still has. A failed call (5xx, reset, time-out) always counts. Throttling
 * (a call refused for capacity, or items left unprocessed) counts only while the import as a whole writes
 * nothing: throttling while other rows are being written is contention for capacity the table does have,
 * so the batch waits its turn (with backoff) rather than being rejected. Progress is judged since the
 * batch's previous attempt began, backoff included: within one short call a table at full capacity can
 * refuse everything for a moment while it still writes every second.
 */

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

/**
 * How many attempts one batch still has. A failed call (5xx, reset, time-out) always counts. Throttling
 * (a call refused for capacity, or items left unprocessed) counts only while the import as a whole writes
 * nothing: throttling while other rows are being written is contention for capacity the table does have,
 * so the batch waits its turn (with backoff) rather than being rejected. Progress is judged since the
 * batch's previous attempt began, backoff included: within one short call a table at full capacity can
 * refuse everything for a moment while it still writes every second.
 *
 * A spread import's backoff follows the same line (contendedBackoff). Its rows fall on a few partitions at a
 * time by design, and a hot stretch is the reader's to relieve: a batch refused while the import writes
 * is contending for capacity the table has, so its backoff's step stops at CONTENTION_STEP (a ceiling of
 * 16 x the base, 400 ms by default) plus one for each attempt the budget counts, and rows a hot
 * partition kept refusing are not left asleep after it has room. Other imports double the backoff on
 * every attempt: a hot partition the reader does not relieve is better left alone. The runs behind
 * this: docs/design/pace.md.
 */

/** The largest backoff step while the import writes (spread): a ceiling of 2^4 = 16 x the base. */
export const CONTENTION_STEP = 5;

/**
 * How the backoff's step grows with a batch's attempts (all of them) and the ones its budget counted.
 * @typedef {(attempts: number, counted: number) => number} BackoffGrowth
 */

/** Other imports: the step doubles the backoff on every attempt. @type {BackoffGrowth} */
export const doublingBackoff = (attempts) => attempts;

/** A spread import: the step stops at CONTENTION_STEP while the import writes. @type {BackoffGrowth} */
export const contendedBackoff = (attempts, counted) => Math.min(attempts, CONTENTION_STEP + counted);

/**
 * @param {number} maxAttempts  attempts that count before the batch's items are rejected
 * @param {() => number} written  items the import has written so far
 * @param {BackoffGrowth} [growth]
 */
export function createAttemptBudget(maxAttempts, written, growth = doublingBackoff) {
  let attempts = 0;
  let counted = 0;
  let progressMark = written();
  let attemptBegan = progressMark;
  return {
    /** Attempts made, counted or not. */
    attempts: () => attempts,
    /** The step of the next backoff (retry.js backoffDelay's `retry`). */
    backoffStep: () => growth(attempts, counted),
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

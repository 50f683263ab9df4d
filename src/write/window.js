/**
 * How many BatchWriteItem calls may be in flight. The window is AIMD, as TCP and the SimpleDB loader
 * of the seed article do it: it grows by one call per window's worth of calls that succeed whole, and
 * halves when items come back unprocessed or a call is throttled, at most once per window's worth of calls (the calls already in flight when it was cut
 * were sent at the old size, so their throttles say nothing new). It stays between floor and ceiling.
 * A fixed window is the same object with adaptive off.
 */

/**
 * @typedef {object} WindowOptions
 * @property {{ concurrency: number }} limit   the p-limit whose concurrency is the window
 * @property {boolean} adaptive
 * @property {number} floor
 * @property {number} ceiling
 * @property {(size: number) => void} [onChange]
 */

/** @param {WindowOptions} options */
export function createWriteWindow({ limit, adaptive, floor, ceiling, onChange }) {
  let size = ceiling;
  let callsSinceCut = Infinity;

  function apply() {
    const calls = Math.max(floor, Math.min(ceiling, Math.floor(size)));
    if (limit.concurrency !== calls) {
      limit.concurrency = calls;
      onChange?.(calls);
    }
  }
  apply();

  return {
    /** A call whose every item was written. */
    succeeded() {
      if (!adaptive) return;
      callsSinceCut++;
      size = Math.min(ceiling, size + 1 / size);
      apply();
    },
    /** A call with unprocessed items, or refused whole for capacity. */
    throttled() {
      if (!adaptive) return;
      callsSinceCut++;
      if (callsSinceCut < size) return;
      size = Math.max(floor, size / 2);
      callsSinceCut = 0;
      apply();
    },
    size: () => Math.floor(size),
  };
}

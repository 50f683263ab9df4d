/**
 * How many BatchWriteItem calls may be in flight, and how fast capacity may be spent.
 *
 * The window is AIMD, as TCP and the SimpleDB loader of the seed article do it: it grows by one call per
 * window's worth of calls that succeed whole, and halves when items come back unprocessed or a call is
 * throttled, at most once per window's worth of calls (the calls already in flight when it was cut
 * were sent at the old size, so their throttles say nothing new). It stays between floor and ceiling.
 * A fixed window is the same object with adaptive off.
 *
 * The WCU cap is a token bucket filled at maxWcu per second (one second of burst), charged with the
 * capacity each call consumed, so an import can leave headroom on a table that serves traffic.
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

/**
 * @param {number | undefined} maxWcu  undefined: no cap
 * @param {() => number} [now]  milliseconds clock
 * @param {(ms: number) => Promise<unknown>} [wait]
 */
export function createWcuLimiter(maxWcu, now = () => performance.now(), wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms))) {
  if (maxWcu === undefined) return { ready: () => undefined, spend: (/** @type {number} */ _units) => {} };
  const rate = maxWcu;
  let tokens = rate;
  let at = now();
  function refill() {
    const t = now();
    tokens = Math.min(rate, tokens + ((t - at) / 1000) * rate);
    at = t;
  }
  return {
    /** Resolves when capacity may be spent again; undefined when it may now (no promise on the common path). */
    ready() {
      refill();
      if (tokens > 0) return undefined;
      return (async () => {
        while (tokens <= 0) {
          await wait(Math.ceil((-tokens / rate) * 1000) + 1);
          refill();
        }
      })();
    },
    /** @param {number} units consumed by a call */
    spend(units) {
      refill();
      tokens -= units;
    },
  };
}

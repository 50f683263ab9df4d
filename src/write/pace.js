/**
 * How fast write capacity may be spent. The WCU cap (maxWcu) is a token bucket filled at maxWcu per
 * second, charged before each call with its items and settled with the capacity it consumed, so an
 * import can leave headroom on a table that serves traffic. The adaptive pace is a token bucket whose
 * rate is learned from the table's throttling.
 */

/** The WCU cap's bucket depth, in seconds of its rate. */
export const WCU_CAP_DEPTH_SECONDS = 0.02;

/**
 * The WCU cap: a token bucket filled at maxWcu per second, holding at most a fiftieth of a second's worth
 * and empty at the start. A bucket of depth b lets rate + b through in any one second, after a pause that
 * fills it: a tenth of a second's depth let four shards, each pausing on a busy machine, send 1.12 x the
 * job's cap in one second (the bench: 6,726 WCU against 6,000, where 4 x (1,500 + 150 + 25) = 6,700); a
 * fiftieth bounds it at about 1.04 x with calls of 25.
 * A call takes its items' worth (at least 1 WCU each) before it is sent, so that calls in flight cannot
 * overshoot the cap between them; the answer's consumed capacity then settles the difference.
 * @param {number | undefined} maxWcu  undefined: no cap
 * @param {() => number} [now]  milliseconds clock
 * @param {(ms: number) => Promise<unknown>} [wait]
 */
export function createWcuLimiter(maxWcu, now = () => performance.now(), wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms))) {
  if (maxWcu === undefined) return { acquire: (/** @type {number} */ _units) => undefined, settle: (/** @type {number} */ _delta) => {} };
  const rate = maxWcu;
  const most = Math.max(rate * WCU_CAP_DEPTH_SECONDS, 1);
  // Empty at the start: shards that start together would otherwise each spend a full bucket on top of
  // their rate in their first second (4 shards: 1.1 x the job's cap in the bench).
  let tokens = 0;
  let at = now();
  function refill() {
    const t = now();
    tokens = Math.min(most, tokens + ((t - at) / 1000) * rate);
    at = t;
  }
  return {
    /**
     * Takes `units` as soon as the bucket is not empty: at once (undefined, no promise on the common
     * path) or when the returned promise resolves. Each waiter takes its share as it wakes, so waking
     * together cannot overdraw the bucket by more than one call.
     * @param {number} units
     */
    acquire(units) {
      refill();
      if (tokens > 0) {
        tokens -= units;
        return undefined;
      }
      return (async () => {
        while (tokens <= 0) {
          await wait(Math.ceil((-tokens / rate) * 1000) + 1);
          refill();
        }
        tokens -= units;
      })();
    },
    /** @param {number} delta  consumed minus acquired (negative: give back) */
    settle(delta) {
      refill();
      tokens -= delta;
    },
  };
}

/**
 * Adaptive pacing: a token bucket on consumed WCU whose rate is learned from the table, AIMD on rate
 * rather than on calls in flight. Until the table pushes back there is no limit. At the end of each
 * second in which more than 5% of the items sent were throttled, the rate is set one 2% step under the
 * most the table took in any of the last three seconds, which under throttling is its capacity (the most,
 * because a second with retries backing off takes less than the table can); after a second with fewer
 * throttles, it grows by 2%, probing for more. Below what the table says it takes (a provisioned table's
 * WCU; an on-demand table's warm throughput, which it raises as it grows and write/warm-watch.js reads
 * again) the pace climbs back fast after a cut (a hot partition that split since): 2% more for each
 * second in a row without a throttled item, up to 20% a second, never past twice what the table took in
 * the last seconds (a rate the import does not reach proves nothing); past it, by 2% a second (burst
 * capacity, or the load that makes an on-demand table grow; a growing table's only after a second with
 * at most 1% of its items throttled). A growing table's pace starts at 90% of its warm throughput, and
 * goes to 90% of each rise at once. Rows that fall unevenly on the partitions by design (spread: a sorted
 * file read in K places, K stretches of the key space at a time) are paced at all the table says it
 * takes, and never cut below it: a throttled stretch is the reader's to relieve (it shifts its rows to
 * the stretches with room), and a pace cut to what the hot partitions let through would leave the others
 * idle. A growing table that states no warm throughput is probed fast all the
 * way: its capacity doubles within minutes, and at 2% a second the import would lag it by half a minute.
 * A few throttled items are normal at full capacity (random keys do not spread evenly over partitions,
 * and they are simply sent again), so they do not cut the rate: cutting on each of them would ratchet
 * the rate far below the table's capacity.
 *
 * @param {object} options
 * @param {boolean} options.adaptive  off: never waits
 * @param {number} [options.startRate]  WCU/s to start at: the table's known ceiling or warm throughput (else no limit until it pushes back)
 * @param {boolean} [options.tableGrows]  an on-demand table without a maximum (above)
 * @param {boolean} [options.unevenKeys]  the rows fall unevenly on the partitions by design (above)
 * @param {() => number} [options.now]  milliseconds clock
 * @param {(ms: number) => Promise<unknown>} [options.wait]
 */
export function createAdaptivePace({ adaptive, startRate, tableGrows = false, unevenKeys = false, now = () => performance.now(), wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }) {
  const off = { ready: () => undefined, reserve: (/** @type {number} */ _units) => 0, spend: (/** @type {number} */ _units, /** @type {number} */ _items, /** @type {number} */ _reserved = 0) => {}, release: (/** @type {number} */ _reserved) => {}, throttled: (/** @type {number} */ _items) => {}, refused: () => {}, warm: (/** @type {number} */ _units) => {}, rate: () => Infinity };
  if (!adaptive) return off;
  const THROTTLED_SHARE = 0.05;
  const NEARLY_CLEAN_SHARE = 0.01;
  const GROWTH = 0.02;
  const MOST_CLEAN_STEPS = 10;
  const FLOOR = 25; // one call's worth a second at least
  const BUCKET_SECONDS = 0.1; // a tenth of a second of burst: smooth within the table's second
  const HOLD_SECONDS = 0.02; // after a call refused whole: the table has nothing left just now
  // Keys never spread evenly over a table's partitions: at its whole warm throughput the hottest would refuse
  // (rows uneven by design take it all: the reader moves them off the hottest).
  const WARM_SHARE = unevenKeys ? 1 : 0.9;
  /** What the table says it takes: a provisioned table's WCU, a share of a growing table's latest warm throughput. */
  let known = startRate === undefined ? undefined : tableGrows ? startRate * WARM_SHARE : startRate;
  let rate = known ?? Infinity;
  let tokens = 0;
  let at = now();
  let second = Math.floor(at / 1000);
  const thisSecond = { units: 0, items: 0, throttled: 0 };
  /** Seconds in a row without a throttled item. */
  let clean = 0;
  /** WCU the table took in each of the last seconds, newest last. @type {number[]} */
  const recent = [];

  /** The second that just ended decides the rate of the next. */
  function decide() {
    const sent = thisSecond.items + thisSecond.throttled;
    recent.push(thisSecond.units);
    if (recent.length > 3) recent.shift();
    clean = sent > 0 && thisSecond.throttled === 0 ? clean + 1 : 0;
    if (sent > 0 && thisSecond.throttled / sent > THROTTLED_SHARE) {
      // One step under it: at the table's ceiling, the items it refused, sent again, would keep it refusing.
      rate = Math.max(FLOOR, Math.max(...recent) / (1 + GROWTH), unevenKeys ? (known ?? 0) : 0);
      tokens = Math.min(tokens, 0);
    } else if (rate !== Infinity && sent > 0) {
      // Below what the table says it takes (a provisioned table's WCU, a growing one's warm throughput),
      // after a cut for a hot partition since relieved, the pace climbs back fast; past it by 2% a second
      // (burst capacity; a growing table's next step, which the warm throughput tells). A growing table
      // that says nothing is probed fast.
      if (known !== undefined ? rate >= known : !tableGrows) {
        // A growing table takes no more than its warm throughput until its next step: past it, only a
        // second with hardly a throttled item (1% at most: keys never spread quite evenly) earns 2% more.
        if (!tableGrows || thisSecond.throttled <= NEARLY_CLEAN_SHARE * sent) rate *= 1 + GROWTH;
      } else {
        const steps = Math.min(Math.max(clean, 1), MOST_CLEAN_STEPS);
        // Never past twice what the table took lately, nor (climbing back) just past what it says it takes.
        const most = Math.min(2 * Math.max(...recent), known === undefined ? Infinity : known * (1 + GROWTH));
        rate = Math.max(rate, Math.min(rate * (1 + GROWTH * steps), most));
      }
    }
  }

  /** @param {number} t */
  function advance(t) {
    const current = Math.floor(t / 1000);
    if (current !== second) {
      // A second without traffic says nothing; only the one that just ended is judged.
      decide();
      thisSecond.units = 0;
      thisSecond.items = 0;
      thisSecond.throttled = 0;
      second = current;
    }
    if (rate !== Infinity) tokens = Math.min(rate * BUCKET_SECONDS, tokens + ((t - at) / 1000) * rate);
    at = t;
  }

  return {
    /** Resolves when capacity may be spent again; undefined when it may now. */
    ready() {
      advance(now());
      if (rate === Infinity || tokens > 0) return undefined;
      return (async () => {
        while (tokens <= 0) {
          await wait(Math.ceil((-tokens / rate) * 1000) + 1);
          advance(now());
        }
      })();
    },
    /**
     * A call is about to be sent (after ready): its likely units are taken from the bucket now, so that
     * the calls sent while it is in flight see them spent; a slow table would otherwise let a whole window
     * of calls through on one tenth of a second's tokens. Returns what was taken, for spend or release.
     * @param {number} units
     */
    reserve(units) {
      advance(now());
      if (rate === Infinity) return 0;
      tokens -= units;
      return units;
    },
    /** @param {number} units consumed by a call @param {number} items written by it @param {number} [reserved]  what reserve took for it */
    spend(units, items, reserved = 0) {
      advance(now());
      thisSecond.units += units;
      thisSecond.items += items;
      if (rate !== Infinity) tokens -= units - reserved;
    },
    /** A call that consumed nothing (it failed) gives its reservation back. @param {number} reserved */
    release(reserved) {
      advance(now());
      if (rate !== Infinity) tokens = Math.min(rate * BUCKET_SECONDS, tokens + reserved);
    },
    /** @param {number} items  came back unprocessed, or were in a call refused for capacity */
    throttled(items) {
      advance(now());
      thisSecond.throttled += items;
    },
    /**
     * A call was refused whole for capacity: every partition it touched is out of capacity for the
     * moment, and calls sent right after it would be refused too. Once the rate is known, the pace
     * holds all calls for HOLD_SECONDS (the bucket goes that far below empty).
     */
    refused() {
      advance(now());
      if (rate !== Infinity) tokens = Math.min(tokens, -rate * HOLD_SECONDS);
    },
    /**
     * The table's warm throughput rose to `units` (this writer's share): it takes that much at once, so
     * the pace goes there now instead of probing its way up. Told only of a rise, so that a cut for a hot
     * partition since is not undone by the same figure again.
     * @param {number} units
     */
    warm(units) {
      advance(now());
      const target = units * WARM_SHARE;
      if (known === undefined || target > known) known = target;
      if (rate !== Infinity && target > rate) rate = target;
    },
    rate: () => rate,
  };
}

/**
 * How fast write capacity may be spent. The WCU cap (maxWcu) is a token bucket filled at maxWcu per
 * second, charged before each call with its items and settled with the capacity it consumed, so an
 * import can leave headroom on a table that serves traffic. The adaptive pace is a token bucket whose
 * rate is learned from the table's throttling. The rules' reasons and the runs that set their figures:
 * docs/design/pace.md.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** The WCU cap's bucket depth, in seconds of its rate. */
export const WCU_CAP_DEPTH_SECONDS = 0.02;

/**
 * The WCU cap: a token bucket filled at maxWcu per second, holding at most WCU_CAP_DEPTH_SECONDS of it
 * and empty at the start. A bucket of depth b lets rate + b through in any one second after a pause that
 * fills it, in each shard that shares the cap: a fiftieth of a second bounds that at about 1.04 x with
 * calls of 25.
 * A call takes its items' worth (at least 1 WCU each) before it is sent, so that calls in flight cannot
 * overshoot the cap between them; the answer's consumed capacity then settles the difference.
 * @param {number | undefined} maxWcu  undefined: no cap
 * @param {() => number} [now]  milliseconds clock
 * @param {(ms: number) => Promise<unknown>} [wait]
 */
export function createWcuLimiter(maxWcu, now = () => performance.now(), wait = sleep) {
  if (maxWcu === undefined) return { acquire: (/** @type {number} */ _units) => undefined, settle: (/** @type {number} */ _delta) => {} };
  const rate = maxWcu;
  const most = Math.max(rate * WCU_CAP_DEPTH_SECONDS, 1);
  // Empty at the start: shards that start together would otherwise each spend a full bucket on top of
  // their rate in their first second.
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

/** More than this share of a second's items throttled cuts the rate. */
const THROTTLED_SHARE = 0.05;
/** A growing table's pace grows past its warm throughput only after a second with at most this share throttled. */
const NEARLY_CLEAN_SHARE = 0.01;
/** One step of the rate, up or down. */
const GROWTH = 0.02;
/** Climbing back to what the table says it takes: at most this many steps a second. */
const MOST_CLEAN_STEPS = 10;
/** WCU/s: one call's worth a second at least. */
const FLOOR = 25;
/** A tenth of a second of burst: smooth within the table's second. */
const BUCKET_SECONDS = 0.1;
/** After a call refused whole: the table has nothing left just now. */
const HOLD_SECONDS = 0.02;
/** The seconds whose most taken a cut goes under, and whose twice the climb may not pass. */
const RECENT_SECONDS = 3;

/**
 * Adaptive pacing: a token bucket on consumed WCU whose rate is learned from the table, AIMD on rate
 * rather than on calls in flight. Until the table pushes back there is no limit. At the end of each
 * second the rate is cut (cutRate) or grown (grownRate); a few throttled items are normal at full
 * capacity and cut nothing. What the table says it takes (`known`: a provisioned table's WCU, a share of
 * an on-demand table's warm throughput, raised by `warm`) is where the pace starts, how fast it climbs
 * back and, for rows uneven by design, a floor. docs/design/pace.md has the rules' reasons.
 *
 * @param {object} options
 * @param {boolean} options.adaptive  off: never waits
 * @param {number} [options.startRate]  WCU/s to start at: the table's known ceiling or warm throughput (else no limit until it pushes back)
 * @param {boolean} [options.tableGrows]  an on-demand table without a maximum: it grows when pushed, so the pace probes it faster
 * @param {boolean} [options.unevenKeys]  the rows fall unevenly on the partitions by design (spread): the pace holds what the table says it takes
 * @param {() => number} [options.now]  milliseconds clock
 * @param {(ms: number) => Promise<unknown>} [options.wait]
 */
export function createAdaptivePace({ adaptive, startRate, tableGrows = false, unevenKeys = false, now = () => performance.now(), wait = sleep }) {
  if (!adaptive) return PACE_OFF;
  const warmShare = warmShareOf(unevenKeys);
  /** What the table says it takes: a provisioned table's WCU, a share of a growing table's latest warm throughput. */
  let known = startRate === undefined ? undefined : tableGrows ? startRate * warmShare : startRate;
  let rate = known ?? Infinity;
  let tokens = 0;
  let at = now();
  let second = Math.floor(at / 1000);
  const history = createSecondsTaken();
  const { taken } = history;

  /** Refills the bucket to `t`; when a second has ended, it decides the next one's rate first. @param {number} t */
  function advance(t) {
    const current = Math.floor(t / 1000);
    if (current !== second) {
      // A second without traffic says nothing; only the one that just ended is judged.
      const ended = history.close();
      if (tooThrottled(ended)) {
        rate = cutRate(ended, known, unevenKeys);
        tokens = Math.min(tokens, 0);
      } else if (rate !== Infinity && ended.sent > 0) {
        rate = grownRate(rate, ended, known, tableGrows);
      }
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
     * the calls sent while it is in flight see them spent (else a slow table lets a whole window through
     * on one bucket). Returns what was taken, for spend or release.
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
      taken.units += units;
      taken.items += items;
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
      taken.throttled += items;
    },
    /**
     * A call was refused whole for capacity: the partitions it touched have nothing left for the moment.
     * Once the rate is known, every call is held for HOLD_SECONDS (the bucket goes that far below empty).
     */
    refused() {
      advance(now());
      if (rate !== Infinity) tokens = Math.min(tokens, -rate * HOLD_SECONDS);
    },
    /**
     * The table's warm throughput rose to `units` (this writer's share): it takes that much at once, so
     * the pace goes there now. Told only of a rise, so that a cut since is not undone by the same figure.
     * @param {number} units
     */
    warm(units) {
      advance(now());
      const target = units * warmShare;
      if (known === undefined || target > known) known = target;
      if (rate !== Infinity && target > rate) rate = target;
    },
    rate: () => rate,
  };
}

/** @typedef {ReturnType<typeof createAdaptivePace>} AdaptivePace */

/** The pace when it is off: never waits, learns nothing. */
const PACE_OFF = {
  ready: () => undefined,
  reserve: (/** @type {number} */ _units) => 0,
  spend: (/** @type {number} */ _units, /** @type {number} */ _items, /** @type {number} */ _reserved = 0) => {},
  release: (/** @type {number} */ _reserved) => {},
  throttled: (/** @type {number} */ _items) => {},
  refused: () => {},
  warm: (/** @type {number} */ _units) => {},
  rate: () => Infinity,
};

/**
 * The share of a growing table's warm throughput the pace goes to. Keys never spread evenly over a
 * table's partitions: at all of it the hottest would refuse. Rows uneven by design take it all (the
 * reader moves them off the hottest partitions).
 * @param {boolean} unevenKeys
 */
const warmShareOf = (unevenKeys) => (unevenKeys ? 1 : 0.9);

/**
 * @typedef {object} EndedSecond  what the table took in the second that just ended, and before it
 * @property {number} sent  items sent: written or throttled
 * @property {number} throttled  items throttled
 * @property {number} clean  seconds in a row, this one included, with items sent and none throttled
 * @property {number} mostTaken  the most WCU the table took in any of the last RECENT_SECONDS seconds
 */

/** The capacity the table took in the current second (`taken`, counted by the pace) and the last few. */
function createSecondsTaken() {
  const taken = { units: 0, items: 0, throttled: 0 };
  /** WCU taken in each of the last seconds, newest last. @type {number[]} */
  const recent = [];
  let clean = 0;
  return {
    taken,
    /** The current second ended: what it took, judged with the ones before; the next begins at zero. @returns {EndedSecond} */
    close() {
      const sent = taken.items + taken.throttled;
      recent.push(taken.units);
      if (recent.length > RECENT_SECONDS) recent.shift();
      clean = sent > 0 && taken.throttled === 0 ? clean + 1 : 0;
      const ended = { sent, throttled: taken.throttled, clean, mostTaken: Math.max(...recent) };
      taken.units = 0;
      taken.items = 0;
      taken.throttled = 0;
      return ended;
    },
  };
}

/** Whether more than THROTTLED_SHARE of the second's items were throttled. @param {EndedSecond} ended */
const tooThrottled = ({ sent, throttled }) => sent > 0 && throttled / sent > THROTTLED_SHARE;

/**
 * The rate after a throttled second: one step under the most the table took lately, which under
 * throttling is its capacity (at it, the refused items sent again would keep it refusing). Rows uneven
 * by design are never cut under what the table says it takes: the reader relieves a hot stretch.
 * @param {EndedSecond} ended @param {number | undefined} known @param {boolean} unevenKeys
 */
function cutRate({ mostTaken }, known, unevenKeys) {
  return Math.max(FLOOR, mostTaken / (1 + GROWTH), unevenKeys ? (known ?? 0) : 0);
}

/**
 * The rate after a second with few throttles. At or past what the table says it takes (or with nothing
 * known, on a table that does not grow): one step more, probing (a growing table's only after a nearly
 * clean second: it takes no more until its next step). Below it, or on a growing table that says
 * nothing: one step for each clean second in a row, up to MOST_CLEAN_STEPS, never past twice what the
 * table took lately nor just past what it says it takes.
 * @param {number} rate @param {EndedSecond} ended @param {number | undefined} known @param {boolean} tableGrows
 */
function grownRate(rate, { sent, throttled, clean, mostTaken }, known, tableGrows) {
  if (known !== undefined ? rate >= known : !tableGrows) {
    return !tableGrows || throttled <= NEARLY_CLEAN_SHARE * sent ? rate * (1 + GROWTH) : rate;
  }
  const steps = Math.min(Math.max(clean, 1), MOST_CLEAN_STEPS);
  const most = Math.min(2 * mostTaken, known === undefined ? Infinity : known * (1 + GROWTH));
  return Math.max(rate, Math.min(rate * (1 + GROWTH * steps), most));
}

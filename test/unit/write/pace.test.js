import { describe, expect, it } from 'vitest';
import { createAdaptivePace, createWcuLimiter } from '../../../src/write/pace.js';

describe('WCU limiter', () => {
  it('takes the items of each call before it is sent, paces to maxWcu per second, and settles with what was consumed', async () => {
    let clock = 0;
    /** @type {number[]} */
    const waits = [];
    const limiter = createWcuLimiter(1_000, () => clock, async (ms) => {
      waits.push(ms);
      clock += ms;
    });
    // Empty at the start (shards starting together must not each spend a bucket on top of the cap)...
    const first = limiter.acquire(0);
    expect(first).toBeInstanceOf(Promise);
    clock = 1_000;
    await first;
    // ...and a second later it holds a fiftieth of a second's worth (20), not more: one call of 25 goes
    // at once (a call goes while any token is left), the second waits for the 5 it owes and its own 25.
    expect(limiter.acquire(25)).toBeUndefined();
    const second = limiter.acquire(25);
    expect(second).toBeInstanceOf(Promise);
    await second;
    expect(waits.slice(-1)).toEqual([6]);
    // A call that consumed twice what it took (items over 1 KB) owes 25 more.
    limiter.settle(25);
    await limiter.acquire(25);
    expect(waits.slice(-1)).toEqual([50]);
  });

  it('lets waiters that wake together take only what the bucket holds', async () => {
    let clock = 0;
    const limiter = createWcuLimiter(1_000, () => clock, async (ms) => {
      clock += ms;
    });
    limiter.acquire(20);
    limiter.acquire(25); // the bucket is now at -25
    const started = clock;
    await Promise.all(Array.from({ length: 8 }, () => limiter.acquire(25)));
    // 8 x 25 WCU plus the 25 owed, at 1,000 WCU/s: at least 200 ms, whatever the order of waking.
    expect(clock - started).toBeGreaterThanOrEqual(200);
  });

  it('never waits without a cap', () => {
    const limiter = createWcuLimiter(undefined);
    limiter.settle(1e9);
    expect(limiter.acquire(1e9)).toBeUndefined();
  });
});

describe('adaptive pace', () => {
  /** A pace on a fake clock; `waits` records each wait. */
  function paceOnClock() {
    const clock = { t: 0 };
    /** @type {number[]} */
    const waits = [];
    const pace = createAdaptivePace({
      adaptive: true,
      now: () => clock.t,
      wait: async (ms) => {
        waits.push(ms);
        clock.t += ms;
      },
    });
    return { clock, waits, pace };
  }

  it('does not limit until a second with more than 5% throttled, then paces one 2% step under the most the table took in the last three seconds', () => {
    const { clock, pace } = paceOnClock();
    // Second 0: 8,000 WCU written, 80 items throttled (1%): no limit yet.
    for (let ms = 0; ms < 1000; ms += 10) {
      clock.t = ms;
      pace.spend(80, 80);
    }
    pace.throttled(80);
    clock.t = 1_000;
    expect(pace.ready()).toBeUndefined();
    expect(pace.rate()).toBe(Infinity);
    // Second 1: 9,000 written, 1,000 throttled (10%): the table's capacity is 9,000. Just under it, so
    // that the items it refused, sent again, do not keep it refusing.
    for (let ms = 1_000; ms < 2_000; ms += 10) {
      clock.t = ms;
      pace.spend(90, 90);
      pace.throttled(10);
    }
    clock.t = 2_000;
    pace.ready();
    expect(pace.rate()).toBeCloseTo(9_000 / 1.02);
  });

  it('starts at the table\'s known ceiling when it has one, instead of finding it by throttling', async () => {
    let t = 0;
    /** @type {number[]} */
    const waits = [];
    const pace = createAdaptivePace({ adaptive: true, startRate: 1_000, now: () => t, wait: async (ms) => {
      waits.push(ms);
      t += ms;
    } });
    // A tenth of a second's worth at once, then it waits: 1,000 WCU in the first second, not more.
    let spent = 0;
    while (t < 1_000) {
      const ready = pace.ready();
      if (ready !== undefined) await ready;
      if (t >= 1_000) break;
      pace.spend(25, 25);
      spent += 25;
    }
    expect(waits.length).toBeGreaterThan(0);
    expect(spent).toBeGreaterThanOrEqual(1_000);
    expect(spent).toBeLessThanOrEqual(1_000 + 25 + 100);
    // Then it probes for more, as after any second with few throttles.
    expect(pace.rate()).toBe(1_000 * 1.02);
  });

  it('charges a call when it is sent, not when it ends: a window of calls in flight does not pass on one bucket', async () => {
    let t = 0;
    const pace = createAdaptivePace({ adaptive: true, startRate: 1_000, now: () => t, wait: async (ms) => {
      t += ms;
    } });
    t = 100; // a full bucket: a tenth of a second at 1,000 WCU/s
    // 32 calls of 25 items sent before any ends (a slow table): only the bucket's 100 WCU go at once.
    const sent = [];
    for (let call = 0; call < 32; call++) {
      if (pace.ready() !== undefined) break;
      sent.push(pace.reserve(25));
    }
    expect(sent).toEqual([25, 25, 25, 25]);
    // Calls end having consumed what was reserved (nothing changes), 1 WCU more (1 taken), or, failed, nothing
    // (25 given back): the bucket holds 0 - 1 + 25 = 24, one call's worth less one unit.
    pace.spend(25, 25, 25);
    pace.spend(26, 25, 25);
    pace.release(25);
    expect(pace.ready()).toBeUndefined();
    pace.reserve(25);
    const held = pace.ready();
    expect(held).not.toBeUndefined();
    await held;
    expect(t).toBe(102); // the bucket at -1 WCU: it waits until it holds some again (2 ms at 1,000 WCU/s)
  });

  it('grows by 2% after a second with few throttles, and waits when the bucket is spent', async () => {
    const { clock, waits, pace } = paceOnClock();
    clock.t = 500;
    pace.spend(1_000, 1_000);
    pace.throttled(100);
    clock.t = 1_100;
    expect(pace.ready()).toBeUndefined(); // the bucket starts empty but refills as time passes
    expect(pace.rate()).toBeCloseTo(1_000 / 1.02);
    pace.spend(500, 500); // a quiet second 1
    clock.t = 2_050;
    expect(pace.ready()).toBeUndefined();
    expect(pace.rate()).toBeCloseTo(1_000);
    pace.spend(200, 200); // at most a tenth of a second (100) in the bucket: about 100 over
    await pace.ready();
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(90);
    expect(waits[0]).toBeLessThan(120);
  });

  /**
   * A pace on a clock moved a second at a time: `second(units, throttled)` is a second in which the table
   * took `units` and refused `throttled` items; it returns the rate the pace decided for the next.
   * @param {{ startRate?: number, tableGrows?: boolean, unevenKeys?: boolean }} options
   */
  function paceBySecond(options) {
    let t = 0;
    const pace = createAdaptivePace({ adaptive: true, ...options, now: () => t, wait: async () => {} });
    const second = (/** @type {number} */ units, throttled = 0) => {
      t += 500;
      pace.spend(units, units);
      if (throttled > 0) pace.throttled(throttled);
      t += 500;
      pace.throttled(0); // moves the pace's clock into the next second
      return pace.rate();
    };
    return { pace, second };
  }

  it('probes a growing table that states no warm throughput faster each clean second, up to 20% a second, never past twice what it took', () => {
    const { pace, second } = paceBySecond({ tableGrows: true });
    // No limit until the table pushes back; then one step under what it took.
    expect(second(4_080, 1_000)).toBeCloseTo(4_000);
    const rates = [4_000, 4_080, 4_243, 4_498, 4_858].map((rate) => second(rate));
    // 2%, then 4%, 6%, 8%, 10% more: a doubling in about 7 seconds, not 35 at 2%.
    expect(rates.map(Math.round)).toEqual([4_080, 4_243, 4_498, 4_858, 5_343]);
    // A second with a throttled item starts again at 2%; one with more than 5% throttled cuts.
    expect(second(5_300, 10)).toBeCloseTo(rates[4] * 1.02);
    expect(second(9_000, 1_000)).toBeCloseTo(9_000 / 1.02);
    // A rate the import does not reach proves nothing: at most twice what the table took lately.
    for (let i = 0; i < 30; i++) second(1_000);
    expect(pace.rate()).toBeLessThanOrEqual(2 * 9_000);
  });

  it('on a growing table: starts at 90% of its warm throughput, goes to 90% of each rise at once, climbs back fast after a cut, and past it by 2% on clean seconds only', () => {
    const { pace, second } = paceBySecond({ startRate: 4_000, tableGrows: true });
    expect(pace.rate()).toBe(3_600);
    expect(second(3_600)).toBeCloseTo(3_672); // clean: 2% past it
    expect(second(3_672, 10)).toBeCloseTo(3_672 * 1.02); // hardly a throttled item (1% at most) past it: 2% more
    expect(second(3_745, 100)).toBeCloseTo(3_672 * 1.02); // more than 1%: it holds
    pace.warm(8_000);
    expect(pace.rate()).toBe(7_200);
    pace.warm(6_000); // not a rise: nothing changes
    expect(pace.rate()).toBe(7_200);
    // A hot partition: cut one step under what the table took, then back fast (2%, 4%, 6%, 8%, ...),
    // never past its 7,200 by more than a step...
    expect(second(6_000, 1_000)).toBeCloseTo(6_000 / 1.02);
    const back = [5_900, 6_100, 6_500, 7_000, 7_200].map((units) => second(units));
    expect(back.map(Math.round)).toEqual([6_000, 6_240, 6_614, 7_144, 7_344]);
    // ...and from there by 2% a clean second.
    expect(second(7_300)).toBeCloseTo(7_344 * 1.02);
    // A cut stands until the table says it rose again.
    expect(second(7_000, 1_000)).toBeCloseTo(7_300 / 1.02);
    pace.warm(16_000);
    expect(pace.rate()).toBe(14_400);
  });

  it('with rows uneven on the partitions by design (spread): paces at all the table says it takes, and no hot partition cuts it below that', () => {
    const { pace, second } = paceBySecond({ startRate: 4_000, tableGrows: true, unevenKeys: true });
    expect(pace.rate()).toBe(4_000);
    // Two partitions of four refuse a quarter of what is sent, and the table takes 3,400: the pace holds 4,000.
    expect(second(3_400, 1_100)).toBe(4_000);
    expect(second(3_300, 1_200)).toBe(4_000);
    // Past it only on nearly clean seconds, as any growing table; cut from there, never below what it says.
    expect(second(4_000, 10)).toBeCloseTo(4_080);
    expect(second(3_900, 1_000)).toBe(4_000);
    pace.warm(8_000);
    expect(pace.rate()).toBe(8_000);
    expect(second(6_000, 2_000)).toBe(8_000);
    // The same seconds without it: cut to what the hot partitions let through, then held there.
    const even = paceBySecond({ startRate: 4_000, tableGrows: true });
    expect(even.second(3_400, 1_100)).toBeCloseTo(3_400 / 1.02);
    expect(even.second(3_300, 1_200)).toBeCloseTo(3_400 / 1.02);
    // A provisioned table read spread: held at its WCU.
    const provisioned = paceBySecond({ startRate: 10_000, unevenKeys: true });
    expect(provisioned.second(8_000, 2_000)).toBe(10_000);
  });

  it('climbs back fast to a provisioned table\'s WCU after a cut, and by 2% a second past it', () => {
    const { second } = paceBySecond({ startRate: 10_000 });
    expect(second(8_000, 2_000)).toBeCloseTo(8_000 / 1.02); // a hot partition: cut to one step under what the table took
    const back = [8_000, 8_200, 8_500, 9_000, 9_600, 10_000, 10_200].map((units) => second(units));
    // 2%, 4%, 6%, 8%: past 10,000 in the fifth clean second (at 2% a second it would take ten)...
    const reached = back.findIndex((rate) => rate >= 10_000);
    expect(reached).toBeGreaterThan(0);
    expect(reached).toBeLessThanOrEqual(4);
    expect(back[reached]).toBeLessThanOrEqual(10_000 * 1.02);
    // ...and 2% a second from there.
    for (let i = reached + 1; i < back.length; i++) expect(back[i]).toBeCloseTo(back[i - 1] * 1.02);
  });

  it('holds every call for 20 ms after a call refused whole, once the rate is known', async () => {
    const { clock, waits, pace } = paceOnClock();
    // Before the rate is known a refusal holds nothing.
    pace.refused();
    expect(pace.ready()).toBeUndefined();
    clock.t = 500;
    pace.spend(1_000, 1_000);
    pace.throttled(100);
    clock.t = 1_100; // rate 1,000 WCU/s from here, 100 ms of it in the bucket
    expect(pace.ready()).toBeUndefined();
    pace.refused();
    await pace.ready();
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(20);
    expect(waits[0]).toBeLessThanOrEqual(22);
    expect(pace.ready()).toBeUndefined();
  });

  it('never waits when adaptive is off', () => {
    const pace = createAdaptivePace({ adaptive: false });
    pace.spend(1e9, 1e9);
    pace.throttled(1e9);
    pace.refused();
    expect(pace.ready()).toBeUndefined();
    expect(pace.rate()).toBe(Infinity);
  });
});

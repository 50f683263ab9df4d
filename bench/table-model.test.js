import { describe, expect, it } from 'vitest';
import { createTableModel, hashKey, idealImport } from './table-model.js';

/** A table on a clock the test moves. @param {import('./table-model.js').TableModelOptions} options */
function tableAt(options) {
  const clock = { now: 0.5 };
  return { clock, table: createTableModel(options, () => clock.now) };
}

/** Writes of 1 WCU at `positions` in turn until `n` writes were tried; counts the outcomes. */
function writeMany(/** @type {ReturnType<typeof createTableModel>} */ table, /** @type {() => import('./table-model.js').Position} */ next, /** @type {number} */ n) {
  /** @type {Record<string, number>} */
  const outcomes = {};
  for (let i = 0; i < n; i++) {
    const outcome = table.write(next(), 1);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return outcomes;
}

const spreadKeys = () => {
  let i = 0;
  return () => ({ hash: hashKey(`key-${i++}`), sort: 0 });
};

describe('table model', () => {
  it('a provisioned table: at least ceil(C / 1000) partitions, its C a second spread over them, one key at most 1,000', () => {
    const { table } = tableAt({ wcu: 3_000 });
    expect(table.state()).toMatchObject({ partitions: 3, capacity: 3_000 });
    const uniform = writeMany(table, spreadKeys(), 5_000);
    // Spread keys fill the table's 3,000; a partition the hash gave more keys to may fill first.
    expect(uniform.ok).toBe(3_000);
    expect(uniform.provisioned).toBeGreaterThan(1_500);
    const hot = tableAt({ wcu: 3_000 }).table;
    // One partition key: its partition's 1,000, then refused for the key range while the table has room.
    expect(writeMany(hot, () => ({ hash: hashKey('same'), sort: 0 }), 1_500)).toEqual({ ok: 1_000, 'key-range': 500 });
    expect(() => createTableModel({ wcu: 3_000, partitions: 2 })).toThrow(/needs at least 3 partitions/);
  });

  it('refills every second and banks unused provisioned capacity as burst (300 model seconds at most)', () => {
    const { clock, table } = tableAt({ wcu: 100, burst: true, timeScale: 100 });
    clock.now = 5.5; // five idle seconds, 100 WCU each; the bank holds 300 / 100 = 3 s of it
    expect(table.state().banked).toBe(300);
    expect(writeMany(table, spreadKeys(), 500)).toEqual({ ok: 400, provisioned: 100 });
    clock.now = 6.5;
    expect(writeMany(table, spreadKeys(), 150)).toEqual({ ok: 100, provisioned: 50 });
  });

  it('a new on-demand table: four partitions and about 4,000 WCU/s, growing to twice its peak after each growth step', () => {
    const { clock, table } = tableAt({ mode: 'on-demand', timeScale: 100 });
    expect(table.state()).toMatchObject({ partitions: 4, capacity: 4_000 });
    for (let t = 0; t < 18; t++) {
      clock.now = t + 0.5;
      writeMany(table, spreadKeys(), 5_000);
    }
    // 1,800 model seconds = 18 real seconds at a time scale of 100: the peak was 4,000.
    clock.now = 18.5;
    expect(table.state().capacity).toBe(8_000);
    // Twice the peak of 4,000, on at least 8 partitions (split for heat split the hot ones on the way).
    expect(table.state().partitions).toBeGreaterThanOrEqual(8);
    expect(table.describe()).toMatchObject({ mode: 'on-demand', warmWritesPerSecond: 8_000 });
    expect(writeMany(table, spreadKeys(), 9_000).ok).toBeGreaterThan(7_000);
  });

  it('an on-demand maximum write rate refuses with its own reason', () => {
    const { table } = tableAt({ mode: 'on-demand', maxWriteRate: 1_500 });
    expect(writeMany(table, spreadKeys(), 2_000)).toEqual({ ok: 1_500, 'max-on-demand': 500 });
  });

  it('splits a partition that stays hot: by hash between keys, by sort key within one key, never for a steadily rising sort key', () => {
    // Two hot keys on one partition of a one-partition table.
    const keys = ['a', 'b', 'c', 'd', 'e'];
    const twoKeys = tableAt({ mode: 'on-demand', partitions: 1, timeScale: 60, splitAfter: 300 });
    let i = 0;
    for (let t = 0; t < 7; t++) {
      twoKeys.clock.now = t + 0.5;
      writeMany(twoKeys.table, () => ({ hash: hashKey(keys[i++ % keys.length]), sort: 0 }), 1_200);
    }
    twoKeys.clock.now = 7.5;
    expect(twoKeys.table.state()).toMatchObject({ partitions: 2, splits: { heat: 1 } });

    // One partition key, sort keys at random: the item collection splits by sort key, and both halves take writes.
    const collection = tableAt({ mode: 'on-demand', partitions: 1, timeScale: 60, splitAfter: 300 });
    let seed = 7;
    const randomSort = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 1e6;
    for (let t = 0; t < 16; t++) {
      collection.clock.now = t + 0.5;
      writeMany(collection.table, () => ({ hash: hashKey('one'), sort: randomSort() }), 2_500);
    }
    // One split gives the key a partition of its own (its hash is not the partition's first), the next one
    // cuts its sort keys, and so on while it stays hot.
    collection.clock.now = 16.5;
    expect(collection.table.state().splits.heat).toBeGreaterThanOrEqual(2);
    expect(writeMany(collection.table, () => ({ hash: hashKey('one'), sort: randomSort() }), 2_500).ok).toBeGreaterThan(1_800);

    // One partition key, rising sort keys (a sorted file): no split, 1,000 a second however long.
    const rising = tableAt({ mode: 'on-demand', partitions: 1, timeScale: 60, splitAfter: 300 });
    let sort = 0;
    for (let t = 0; t < 20; t++) {
      rising.clock.now = t + 0.5;
      expect(writeMany(rising.table, () => ({ hash: hashKey('one'), sort: sort++ }), 1_200).ok).toBe(1_000);
    }
    expect(rising.table.state()).toMatchObject({ partitions: 1, splits: { heat: 0 } });
  });

  it('the ideal import: the time the growth allows a client that takes all it is offered', () => {
    // 4,000 for 18 s, then 8,000: 72,000 + 8,000 x 4.
    const ideal = idealImport({ mode: 'on-demand', timeScale: 100 }, 104_000);
    expect(ideal.seconds).toBeGreaterThan(21.5);
    expect(ideal.seconds).toBeLessThan(22.5);
    expect(idealImport({ wcu: 10_000 }, 100_000).seconds).toBeCloseTo(10, 0);
  });
});

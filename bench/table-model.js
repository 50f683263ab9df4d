/**
 * A DynamoDB table's write capacity as a state machine, without the HTTP (bench/capacity-model.js serves
 * it): partitions that each own a range of the key space and take at most 1,000 WCU a second, a table
 * ceiling (provisioned WCU, or an on-demand table's allowance that grows toward twice its previous peak),
 * burst capacity, split for heat and an on-demand maximum. bench/README.md says what it models, what it
 * leaves out and where each rule comes from.
 *
 * Rates are DynamoDB's, per real second; only the adaptive delays (split for heat, on-demand growth, the
 * burst bank's 300 s) run `timeScale` times faster, so that minutes of a table's life fit in a bench run.
 */

import { finish } from '../src/items/key-count.js';
import { seededRandom } from './seeded-random.js';

/**
 * @typedef {object} TableModelOptions
 * @property {'provisioned' | 'on-demand'} [mode]  default provisioned when `wcu` is set
 * @property {number} [wcu]          provisioned WCU/s
 * @property {number} [partitions]   at the start; default ceil(wcu / 1000) (provisioned) or 4 (a new on-demand table)
 * @property {boolean} [burst]       bank unused provisioned capacity (300 model seconds of it) and spend it past the ceiling
 * @property {number} [maxWriteRate] an on-demand table's MaxWriteRequestUnits
 * @property {number} [timeScale]    model seconds per real second for the adaptive delays (default 1)
 * @property {boolean} [splitForHeat] default true
 * @property {number} [splitAfter]   model seconds a partition must stay hot before it splits (default 600)
 * @property {number} [growthEvery]  model seconds between an on-demand table's growth steps (default 1800)
 */

/** @typedef {'ok' | 'key-range' | 'provisioned' | 'max-on-demand' | 'account'} WriteOutcome */

export const PARTITION_WCU = 1_000;
export const NEW_ON_DEMAND_PARTITIONS = 4;
/** The default per-table account quota of an on-demand table (write request units a second). */
export const ACCOUNT_TABLE_WCU = 40_000;
const BURST_SECONDS = 300;
/** A partition is hot in a second when it used this share of its 1,000 WCU, or refused a write. */
const HOT_SHARE = 0.8;
/** Key positions each partition remembers (the most recent writes it was asked for) to choose a split point. */
const SAMPLE = 512;
const MAX_PARTITIONS = 1_024;
const HASH_SPACE = 2 ** 32;

/**
 * A key's place in the table's key space: its partition key's hash, then its sort key.
 * @typedef {{ hash: number, sort: number | string }} Position
 */

/**
 * @typedef {object} Partition
 * @property {number} hashLo   first hash it owns
 * @property {number} hashHi   one past the last
 * @property {number | string | undefined} sortLo  within one item collection (hashHi = hashLo + 1): first sort key it owns
 * @property {number | string | undefined} sortHi  one past the last (undefined: no bound)
 * @property {number} used     WCU taken this second
 * @property {boolean} refused a write was refused this second
 * @property {number} hotFor   real seconds in a row it was hot
 * @property {Position[]} sample  ring of recent positions
 * @property {number} sampled  positions written to the ring so far
 */

/**
 * @param {TableModelOptions} options
 * @param {() => number} [clock]  real seconds
 */
export function createTableModel(options, clock = () => performance.now() / 1000) {
  const mode = options.mode ?? 'provisioned';
  const timeScale = options.timeScale ?? 1;
  const splitForHeat = options.splitForHeat ?? true;
  const splitAfter = (options.splitAfter ?? 600) / timeScale;
  const growthEvery = (options.growthEvery ?? 1_800) / timeScale;
  const wcu = options.wcu;
  if (mode === 'provisioned' && (wcu === undefined || !(wcu > 0))) throw new Error('table model: a provisioned table needs wcu > 0');
  const startPartitions = options.partitions ?? (mode === 'provisioned' ? Math.ceil(/** @type {number} */ (wcu) / PARTITION_WCU) : NEW_ON_DEMAND_PARTITIONS);
  if (mode === 'provisioned' && /** @type {number} */ (wcu) > startPartitions * PARTITION_WCU) {
    throw new Error(`table model: ${wcu} WCU/s needs at least ${Math.ceil(/** @type {number} */ (wcu) / PARTITION_WCU)} partitions of ${PARTITION_WCU} WCU/s`);
  }
  const maxWriteRate = options.maxWriteRate ?? Infinity;

  /** @type {Partition[]} in key-space order */
  let partitions = [];
  for (let i = 0; i < startPartitions; i++) {
    partitions.push(newPartition(Math.floor((HASH_SPACE * i) / startPartitions), Math.floor((HASH_SPACE * (i + 1)) / startPartitions)));
  }
  // An on-demand table serves up to twice its previous peak; a new one about 4,000 WCU/s.
  let allowance = mode === 'on-demand' ? NEW_ON_DEMAND_PARTITIONS * PARTITION_WCU : /** @type {number} */ (wcu);
  let peakThisStep = 0;
  let nextGrowth = clock() + growthEvery;
  let second = Math.floor(clock());
  let tableUsed = 0;
  let banked = 0;
  const splits = { heat: 0, growth: 0 };

  /** @returns {Partition} */
  function newPartition(/** @type {number} */ hashLo, /** @type {number} */ hashHi, /** @type {number | string | undefined} */ sortLo = undefined, /** @type {number | string | undefined} */ sortHi = undefined) {
    return { hashLo, hashHi, sortLo, sortHi, used: 0, refused: false, hotFor: 0, sample: [], sampled: 0 };
  }

  /** The table's ceiling this second, over all its partitions. */
  function tableCeiling() {
    return Math.min(allowance, maxWriteRate, mode === 'on-demand' ? ACCOUNT_TABLE_WCU : Infinity);
  }

  /** Each whole second: refill, note heat, split, grow. */
  function advance() {
    const now = clock();
    const current = Math.floor(now);
    for (; second < current; second++) {
      const unusedTable = Math.max(0, allowance - tableUsed);
      if (options.burst) banked = Math.min(banked + unusedTable, allowance * (BURST_SECONDS / timeScale));
      peakThisStep = Math.max(peakThisStep, tableUsed);
      tableUsed = 0;
      /** @type {Partition[]} */
      const next = [];
      for (const p of partitions) {
        p.hotFor = p.used >= HOT_SHARE * PARTITION_WCU || p.refused ? p.hotFor + 1 : 0;
        p.used = 0;
        p.refused = false;
        const halves = splitForHeat && p.hotFor >= splitAfter && partitions.length + next.length < MAX_PARTITIONS ? splitOf(p) : undefined;
        if (halves === undefined) next.push(p);
        else {
          splits.heat++;
          next.push(...halves);
        }
      }
      partitions = next;
    }
    if (mode === 'on-demand' && now >= nextGrowth) {
      // Twice the previous peak, and the partitions to carry it (an even split of the widest hash ranges).
      allowance = Math.max(allowance, 2 * peakThisStep);
      peakThisStep = 0;
      nextGrowth = now + growthEvery;
      const wanted = Math.min(MAX_PARTITIONS, Math.ceil(Math.min(allowance, maxWriteRate, ACCOUNT_TABLE_WCU) / PARTITION_WCU));
      while (partitions.length < wanted) {
        const widest = partitions.reduce((a, b) => (b.hashHi - b.hashLo > a.hashHi - a.hashLo ? b : a));
        if (widest.hashHi - widest.hashLo < 2) break;
        const middle = widest.hashLo + Math.floor((widest.hashHi - widest.hashLo) / 2);
        partitions.splice(partitions.indexOf(widest), 1, newPartition(widest.hashLo, middle), newPartition(middle, widest.hashHi));
        splits.growth++;
      }
    }
  }

  /**
   * Split for heat: at the median of the partition's recent writes, by hash when they span several
   * partition keys, else by sort key within the one item collection. Not when the writes climb steadily
   * (most of the latest ones above the median): every new write would land in the upper half anyway, and
   * DynamoDB does not split then (shared/seeds/001).
   * @param {Partition} p
   * @returns {Partition[] | undefined}
   */
  function splitOf(p) {
    const sample = p.sample;
    if (sample.length < 32) return undefined;
    const byHash = [...sample].sort((a, b) => a.hash - b.hash);
    const hashMedian = byHash[byHash.length >> 1].hash;
    const recent = recentOf(p, Math.max(8, sample.length >> 3));
    if (byHash[0].hash !== byHash[byHash.length - 1].hash) {
      // Split so that the median hash starts the upper half, unless that leaves the lower half empty.
      const at = hashMedian > p.hashLo ? hashMedian : hashMedian + 1;
      if (at <= p.hashLo || at >= p.hashHi) return undefined;
      if (recent.filter((q) => q.hash >= at).length >= 0.9 * recent.length) return undefined;
      p.hotFor = 0;
      return [newPartition(p.hashLo, at), newPartition(at, p.hashHi)];
    }
    // One item collection: split its sort keys.
    const bySort = sample.map((q) => q.sort).sort(compareSort);
    const at = bySort[bySort.length >> 1];
    if (compareSort(bySort[0], at) === 0) return undefined;
    if (recent.filter((q) => compareSort(q.sort, at) >= 0).length >= 0.9 * recent.length) return undefined;
    const hash = byHash[0].hash;
    p.hotFor = 0;
    // A partition of many hashes first gives the hot one a partition of its own, one split at a time.
    if (hash > p.hashLo) return [newPartition(p.hashLo, hash), newPartition(hash, p.hashHi)];
    if (hash + 1 < p.hashHi) return [newPartition(p.hashLo, hash + 1), newPartition(hash + 1, p.hashHi)];
    return [newPartition(hash, hash + 1, p.sortLo, at), newPartition(hash, hash + 1, at, p.sortHi)];
  }

  /** @param {Partition} p @param {number} n  the n most recent positions */
  function recentOf(p, n) {
    const out = [];
    for (let k = 1; k <= n && k <= p.sample.length; k++) out.push(p.sample[(p.sampled - k + SAMPLE * 2) % SAMPLE]);
    return out;
  }

  /** @param {Position} at */
  function partitionOf(at) {
    let lo = 0;
    let hi = partitions.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (partitions[mid].hashLo <= at.hash) lo = mid;
      else hi = mid - 1;
    }
    // Partitions of one item collection follow each other, ordered by sort key.
    let p = partitions[lo];
    while (p.sortLo !== undefined && compareSort(at.sort, p.sortLo) < 0 && lo > 0 && partitions[lo - 1].hashLo === p.hashLo) p = partitions[--lo];
    return p;
  }

  return {
    /**
     * One item's write of `units` WCU at key position `at`.
     * @param {Position} at @param {number} units
     * @returns {WriteOutcome}
     */
    write(at, units) {
      advance();
      const p = partitionOf(at);
      p.sample[p.sampled % SAMPLE] = at;
      p.sampled++;
      const ceiling = tableCeiling();
      const overTable = tableUsed + units > ceiling;
      if (overTable && !(mode === 'provisioned' && options.burst && banked >= units)) {
        // The table's ceiling, not this partition's heat.
        if (ceiling === maxWriteRate) return 'max-on-demand';
        if (mode === 'on-demand' && ceiling === ACCOUNT_TABLE_WCU) return 'account';
        return mode === 'provisioned' ? 'provisioned' : 'key-range';
      }
      if (p.used + units > PARTITION_WCU) {
        p.refused = true;
        return 'key-range';
      }
      if (overTable) banked -= units;
      p.used += units;
      tableUsed += units;
      return 'ok';
    },
    /** What the table is now: partitions, the WCU a second it can take, splits so far. */
    state() {
      advance();
      return { partitions: partitions.length, capacity: Math.min(tableCeiling(), partitions.length * PARTITION_WCU), allowance, splits: { ...splits }, banked };
    },
    /** DescribeTable's numbers: provisioned WCU, or an on-demand table's warm throughput and maximum. */
    describe() {
      advance();
      return mode === 'provisioned'
        ? { mode, wcu: /** @type {number} */ (wcu) }
        : { mode, warmWritesPerSecond: Math.min(tableCeiling(), partitions.length * PARTITION_WCU), maxWriteRate: options.maxWriteRate };
    },
  };
}

/** @param {number | string} a @param {number | string} b */
function compareSort(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A key's hash: FNV-1a over its text, then murmur3's finalizer so that short keys that differ in one
 * character (`1`, `2`, `10`) land far apart, as DynamoDB's hash spreads them (which one it uses is not
 * published). FNV-1a alone put the 223 /8 prefixes of the seed's file in a few partitions.
 * @param {string} value
 */
export function hashKey(value) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
  return finish(hash);
}

/**
 * The least time an import could take on this table (the model's own rules, on a simulated clock): a
 * client that writes as much as the table takes every second. With `positions` (the file's keys in file
 * order, one per 1-WCU row) it streams them: each second it tries the rows refused before, then reads on,
 * and stops reading while `backlog` rows wait (a window's worth: 32 calls of 25). A partition that holds
 * more of the file's keys than others then bounds it as it bounds any import that reads the file in order,
 * until split for heat relieves it. Without `positions`, `rows` keys spread evenly over the key space.
 * It is a scenario's physical minimum, and for a new on-demand table the minimum its growth allows.
 * @param {TableModelOptions} options
 * @param {number} rows
 * @param {{ positions?: Position[], backlog?: number, seed?: number, maxSeconds?: number }} [limits]
 * @returns {{ seconds: number, timeline: Array<{ t: number, capacity: number, partitions: number, took: number }> }}
 */
export function idealImport(options, rows, { positions, backlog = 800, seed = 1, maxSeconds = 100_000 } = {}) {
  let now = 0;
  const table = createTableModel(options, () => now);
  const random = seededRandom(seed);
  let done = 0;
  let next = 0;
  /** @type {Position[]} */
  let waiting = [];
  /** @type {Array<{ t: number, capacity: number, partitions: number, took: number }>} */
  const timeline = [];
  for (let t = 0; t < maxSeconds; t++) {
    now = t + 0.5;
    const { capacity, partitions } = table.state();
    let took = 0;
    if (positions === undefined) {
      // Write until the table refuses a long run of keys: every partition is full for this second.
      for (let refusedInRow = 0; refusedInRow < 512 && done + took < rows; ) {
        if (table.write({ hash: Math.floor(random() * HASH_SPACE), sort: 0 }, 1) === 'ok') {
          took++;
          refusedInRow = 0;
        } else refusedInRow++;
      }
    } else {
      /** @type {Position[]} */
      const refused = [];
      for (const at of waiting) {
        if (table.write(at, 1) === 'ok') took++;
        else refused.push(at);
      }
      let tableFull = false;
      while (next < positions.length && refused.length < backlog && !tableFull) {
        const outcome = table.write(positions[next++], 1);
        if (outcome === 'ok') took++;
        else {
          refused.push(positions[next - 1]);
          tableFull = outcome !== 'key-range';
        }
      }
      waiting = refused;
    }
    timeline.push({ t, capacity, partitions, took });
    // The last second is a part of one, at the rate of the second before (or of this one, if faster).
    if (done + took >= rows) return { seconds: t + (rows - done) / Math.max(1, took, timeline.at(-2)?.took ?? 0), timeline };
    done += took;
  }
  return { seconds: Infinity, timeline };
}

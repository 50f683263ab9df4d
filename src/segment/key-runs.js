/**
 * Shard cuts moved off runs of one key. Shards run at once, so two rows of one key in two shards are
 * applied in an order of their timing, not the file's: a cut inside a run of a key left a middle row of
 * it in the table. Each cut after the first moves forward past the run of the first key at it (rows the
 * import rejects write nothing and do not end a run), as a spread range's first segment does
 * (segment/spread/range-reader.js, skipFirstRun): a file whose rows of each key stand together, sorted or
 * not, then ends as a sequential reading leaves it, in every write mode. A shard a run swallows whole is
 * left out. Generated keys are new for every row: there is nothing to move.
 */
import pLimit from 'p-limit';
import { noShaping } from '../items/shaping.js';
import { rowStages } from './row-stages.js';
import { createRangeReaders, keyOrRejected, skipFirstRun } from './spread/range-reader.js';

/** Searches at once, each on its own connection: one after another, a plan on S3 waits out each first byte. */
const SEARCHES_AT_ONCE = 16;

/** @typedef {import('../plan/shard-plan.js').ShardRange} ShardRange */

/**
 * A cut's reader: the object's records from a byte (and the lines before it) to its end, parsed as a
 * shard starting there parses them, and how the import builds a record's item.
 * @typedef {(at: { byte: number, line: number }) => Promise<{ records: import('./read-rows.js').RecordReader,
 *   body: import('node:stream').Readable, close: () => void, buildItem: import('./read-rows.js').BuildItem }>} OpenCut
 */

/**
 * @param {ShardRange[]} shards  one object's, in file order, none empty, tiling it to `end`
 * @param {{ end: number, open: OpenCut }} options  end: one past the object's last byte
 * @returns {Promise<{ shards: ShardRange[] }>}  the ranges, renumbered from the first's index
 */
async function cutBetweenKeyRuns(shards, { end, open }) {
  if (shards.length < 2) return { shards };
  const limit = pLimit(SEARCHES_AT_ONCE);
  const starts = await Promise.all(shards.slice(1).map((shard) => limit(() => afterFirstRun(shard, open))));
  /** @type {ShardRange[]} */
  const cut = [{ ...shards[0] }];
  for (const start of starts) {
    // A run (or rows the import rejects) over the next planned cut: the shard before reads it, and the
    // search from that cut says where it ends.
    if (start === undefined) continue;
    cut[cut.length - 1].end = start.byte;
    cut.push({ ...shards[0], index: shards[0].index + cut.length, start: start.byte, end, line: start.line });
  }
  cut[cut.length - 1].end = end;
  return { shards: cut };
}

/**
 * Where the shard from `shard.start` starts once the run of its first key is left to the shard before:
 * the first record of another key and the lines before it; undefined when the run (or a stretch of
 * rejected rows) reaches the shard's planned end. Each search reads its own shard's bytes at most, so
 * that the searches together read the object once at most, whatever its runs.
 * @param {ShardRange} shard @param {OpenCut} open
 */
async function afterFirstRun(shard, open) {
  /** @type {import('../plan/spread-plan.js').SpreadRange} */
  const range = { byte: shard.start, end: shard.end, line: shard.line, stop: undefined };
  /** @type {import('./read-rows.js').BuildItem | undefined} */
  let buildItem;
  const readers = createRangeReaders([range], async (at) => {
    const opened = await open({ byte: at.byte, line: at.line });
    buildItem = opened.buildItem;
    return opened;
  });
  try {
    const reader = await readers.open(0);
    const build = /** @type {import('./read-rows.js').BuildItem} */ (buildItem);
    await skipFirstRun(range, reader, (fields, line) => keyOrRejected(build, fields, line));
  } finally {
    readers.closeAll();
  }
  return range.byte >= shard.end ? undefined : { byte: range.byte, line: range.line };
}

/**
 * One object's cuts moved off runs of one key, its records read as its shards read them: what the planner
 * (plan/job-plan.js) is handed to place its cuts by.
 * @typedef {(shards: ShardRange[], object: KeyRunObject) => Promise<{ shards: ShardRange[] }>} CutsAtKeyRuns
 */

/**
 * @typedef {object} KeyRunObject
 * @property {Readonly<import('../config/index.js').ImportConfig>} config
 * @property {import('../config/index.js').Format} format
 * @property {string[]} header  a CSV's (a JSON format's: empty)
 * @property {import('../records/csv/text-encoding.js').Encoding | undefined} encoding
 * @property {string} etag
 * @property {number} bytes  the object's size
 * @property {() => Promise<import('../write/table-check.js').TableKeys>} keysOf
 * @property {(byte: number) => Promise<import('node:stream').Readable>} reopen  the object as stored from a byte to its end
 */

/** @type {CutsAtKeyRuns} */
export async function cutsAtKeyRuns(shards, { config, format, header, encoding, etag, bytes, keysOf, reopen }) {
  // Generated keys are new for every row: no run to keep whole.
  if (config.generateKey || shards.length < 2) return { shards };
  const keys = await keysOf();
  /** @type {OpenCut} */
  const open = async ({ byte, line }) => {
    const stages = rowStages({ format, config, start: { line, byte, header, ...(encoding === undefined ? {} : { encoding }) }, source: { etag }, keys, json: false, shaping: noShaping() });
    const body = await reopen(byte);
    return { records: stages.records, body, close: () => body.destroy(), buildItem: /** @type {import('./read-rows.js').BuildItem} */ (stages.buildItem) };
  };
  return cutBetweenKeyRuns(shards, { end: bytes, open });
}

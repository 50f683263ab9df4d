/**
 * Which range reads next, and when the reader waits. The ranges take turns, one record each, but a range
 * whose rows wait on the table (its stretch of keys is on a hot partition: they come back throttled and
 * back off) is passed over while it has more than its share of the rows on their way, so that the window
 * fills with rows of the ranges whose partitions have room; round robin alone would feed every partition
 * alike and run at the pace of the busiest. The shares follow the bytes each range has left, so that the
 * ranges end together instead of the laggards alone on a few partitions.
 */
import { BATCH_SIZE } from '../../write/batch-writer.js';
import { hasBytesLeft } from '../../plan/spread-plan.js';
import { nextBuffered, nextRow } from './range-reader.js';

/** The longest a reader whose ranges all wait on the table goes without looking at the clock and stopNow. */
const STOP_CHECK_MS = 100;

/** Range turns between two sharings of the rows and two looks at the clock and stopNow (each pass takes K). */
const TURNS_PER_CLOCK = 64;

/**
 * Reads the ranges in turn until every one is at its stop, or the segment must stop (stopBy, stopNow) and
 * every open reader is between records.
 * @param {object} options
 * @param {import('../../plan/spread-plan.js').SpreadRange[]} options.ranges  their stops placed
 * @param {ReturnType<typeof import('./range-reader.js').createRangeReaders>} options.readers
 * @param {ReturnType<typeof createRowShares>} options.shares
 * @param {(j: number, reader: import('./range-reader.js').RangeReader, row: any) => Promise<void> | undefined} options.take
 *   one record of range j (undefined: its bytes ended); a promise when the writer or the rejects upload is behind
 * @param {number} options.stopBy  performance.now() time
 * @param {() => boolean} options.stopNow
 * @returns {Promise<{ stoppedEarly: boolean }>}
 */
export async function takeTurns({ ranges, readers, shares, take, stopBy, stopNow }) {
  let sinceClock = 0;
  let active = ranges.map((_, j) => j).filter((j) => hasBytesLeft(ranges[j]));
  while (active.length > 0) {
    if (sinceClock === 0) shares.share();
    let passedOver = 0;
    for (const j of active) {
      if (!shares.hasRoom(j)) {
        passedOver++;
        continue;
      }
      const reader = readers.get(j) ?? (await readers.open(j));
      let row = nextBuffered(reader);
      if (row === null) row = await nextRow(reader);
      const wait = take(j, reader, row);
      if (wait !== undefined) await wait;
    }
    const waited = passedOver === active.length && !shares.anyUnderShare(active);
    if (waited) await shares.untilSettled();
    active = active.filter((j) => hasBytesLeft(ranges[j]));
    sinceClock += ranges.length;
    if (sinceClock >= TURNS_PER_CLOCK || waited) {
      sinceClock = 0;
      if ((performance.now() > stopBy || stopNow()) && active.length > 0 && readers.allAtBoundary()) return { stoppedEarly: true };
    }
  }
  return { stoppedEarly: false };
}

/**
 * Each range's rows handed on and still on their way to the table, against its share of `rowsInFlight`.
 * @param {object} options
 * @param {import('../../plan/spread-plan.js').SpreadRange[]} options.ranges
 * @param {number} options.rowsInFlight  rows the ranges may have on their way between them
 * @param {(entry: import('../../types.js').Entry) => boolean} options.pending  whether a row handed on is still on its way
 * @param {() => Promise<void>} options.settled  resolves when a row handed on may have settled
 */
export function createRowShares({ ranges, rowsInFlight, pending, settled }) {
  /** Each range's rows handed on, oldest first, until they are no longer on their way. @type {Array<import('../../types.js').Entry[]>} */
  const onTheirWay = ranges.map(() => []);
  /** Rows of each range that may be on their way at once. @type {number[]} */
  let shares = [];
  return {
    /** Shares the rows out again, by the bytes each range has left. */
    share() {
      shares = shareRows(ranges.map((range) => /** @type {number} */ (range.stop) - range.byte), rowsInFlight);
    },
    /** @param {number} j @param {import('../../types.js').Entry} entry */
    handedOn(j, entry) {
      onTheirWay[j].push(entry);
    },
    /** Whether range j has fewer rows on their way than its share (those at the front that arrived are dropped first). @param {number} j */
    hasRoom(j) {
      const rows = onTheirWay[j];
      let arrived = 0;
      while (arrived < rows.length && !pending(rows[arrived])) arrived++;
      if (arrived > 0) rows.splice(0, arrived);
      return rows.length < shares[j];
    },
    /**
     * Counts the active ranges' rows exactly, every settled row dropped, not only those at the front: a row
     * collapsed into a later one of its key is settled behind one that is not, and a batch of such rows
     * would never fill. Whether a range is under its share now.
     * @param {number[]} active
     */
    anyUnderShare(active) {
      let under = false;
      for (const j of active) {
        onTheirWay[j] = onTheirWay[j].filter(pending);
        if (onTheirWay[j].length < shares[j]) under = true;
      }
      return under;
    },
    /** Until a row settles, or STOP_CHECK_MS at most: the stop is looked at on time whatever the writes do. */
    untilSettled: () => untilSettledOrClock(settled),
  };
}

/** @param {() => Promise<void>} settled */
async function untilSettledOrClock(settled) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  try {
    await Promise.race([settled(), new Promise((resolve) => (timer = setTimeout(resolve, STOP_CHECK_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The rows on their way, shared among the ranges in proportion to the bytes each has left, so that they
 * end together: a range held back on a hot partition gets a larger share of what that partition takes as
 * it falls behind, and the ranges ahead leave room. At least a call's 25 rows each: a range held with
 * fewer could wait on a call that never fills.
 * @param {number[]} bytesLeft  of each range still read
 * @param {number} rowsInFlight
 * @returns {number[]}
 */
export function shareRows(bytesLeft, rowsInFlight) {
  const total = bytesLeft.reduce((sum, bytes) => sum + bytes, 0);
  return bytesLeft.map((bytes) => Math.max(BATCH_SIZE, Math.ceil((rowsInFlight * bytes) / Math.max(1, total))));
}

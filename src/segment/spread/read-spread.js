/**
 * The read loop of a segment with `spread`: K byte ranges of the object read at once, their rows
 * interleaved one by one, so that a file sorted by the table's key feeds K stretches of the key space
 * (K partitions' worth) instead of one. Memory is K read buffers.
 *
 * Rows of one key must reach the table in file order, whatever the interleaving. Two rules keep it:
 *  - a run of one key is never cut: each range but the first gives the records at its start that share
 *    its first key to the range before, which reads on past its planned end through them (plan.js);
 *  - each range keeps to its own stretch of the key space, or the segment stops with SpreadOrderError
 *    before the row that would leave it is handed on (key-spans.js).
 * Which range reads next is the scheduler's (scheduler.js); each range's reader and cursor,
 * range-reader.js's. Checkpoints carry every range's cursor, line, stop and span.
 * Measurements behind these choices: docs/design/spread.md.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { entryOf } from '../read-rows.js';
import { widenSpan } from './key-spans.js';
import { placeStops } from '../../plan/spread-plan.js';
import { createRangeReaders, keyOrRejected, moveCursor, skipFirstRun } from './range-reader.js';
import { createRowShares, takeTurns } from './scheduler.js';

/** @typedef {import('../../plan/spread-plan.js').SpreadRange} SpreadRange */
/** @typedef {Pick<Awaited<ReturnType<typeof import('../segment-report.js').startSegmentReport>>, 'stats' | 'rejectRow' | 'rejectsBacklog'>} SpreadReport */

/**
 * @param {object} options
 * @param {SpreadRange[]} options.ranges  in file order; changed in place as rows are read (the checkpoint's)
 * @param {number} options.end  one past the segment's last byte
 * @param {(range: SpreadRange) => Promise<import('./range-reader.js').OpenedRange>} options.open  bytes from range.byte to `end`, parsed
 * @param {import('../read-rows.js').BuildItem} options.buildItem
 * @param {((a: string, b: string) => number) | undefined} options.compare  the order of the table's keys (key-order.js);
 *   undefined when no two rows can share a key (generated keys)
 * @param {(entry: import('../../types.js').Entry) => Promise<void> | undefined} options.pass
 * @param {SpreadReport} options.report
 * @param {number} options.firstByte  where the segment's bytes start (progress counts from it)
 * @param {number} options.stopBy
 * @param {() => boolean} [options.stopNow]
 * @param {(entry: import('../../types.js').Entry) => boolean} [options.pending]  whether a row handed on is still on its way to the table
 * @param {() => Promise<void>} [options.settled]  resolves when a row handed on may have settled (the writer's `settled`)
 * @param {number} [options.rowsInFlight]  rows the ranges may have on their way between them (shared out by shareRows)
 * @returns {Promise<{ stoppedEarly: boolean, bytesDone?: undefined }>}  no one cursor: each range's is in `ranges`
 */
export async function readSpread({ ranges, end, open, buildItem, compare, pass, report, firstByte, stopBy, stopNow = () => false, pending = () => false, settled = () => sleep(1), rowsInFlight = 400 }) {
  const startBytes = ranges.map((range) => range.byte);
  const readers = createRangeReaders(ranges, open);
  try {
    const keyOf = (/** @type {string[]} */ fields, /** @type {number} */ line) => keyOrRejected(buildItem, fields, line);
    await placeStops(ranges, end, async (j) => skipFirstRun(ranges[j], await readers.open(j), keyOf));
    const shares = createRowShares({ ranges, rowsInFlight, pending, settled });
    const take = recordTaker({ ranges, startBytes, firstByte, buildItem, compare, pass, report, shares });
    return await takeTurns({ ranges, readers, shares, take, stopBy, stopNow });
  } finally {
    readers.closeAll();
  }
}

/**
 * What becomes of one record of range j: handed on (its span widened first) or rejected, the range's
 * cursor moved past it, and the segment's progress (stats.byte) with it. It returns a promise when the
 * writer or the rejects upload is behind.
 * @param {object} options
 * @param {SpreadRange[]} options.ranges
 * @param {number[]} options.startBytes  each range's cursor when the segment began (progress counts from there)
 * @param {number} options.firstByte
 * @param {import('../read-rows.js').BuildItem} options.buildItem
 * @param {((a: string, b: string) => number) | undefined} options.compare
 * @param {(entry: import('../../types.js').Entry) => Promise<void> | undefined} options.pass
 * @param {SpreadReport} options.report
 * @param {Pick<ReturnType<typeof createRowShares>, 'handedOn'>} options.shares
 */
function recordTaker({ ranges, startBytes, firstByte, buildItem, compare, pass, report, shares }) {
  const { stats } = report;
  /** Bytes the ranges have moved on in this segment (the runs skipped at their starts included). */
  let done = ranges.reduce((sum, range, k) => sum + (range.byte - startBytes[k]), 0);
  /**
   * @param {number} j @param {import('./range-reader.js').RangeReader} reader @param {any} row  undefined: its bytes ended
   * @returns {Promise<void> | undefined}
   */
  return function take(j, reader, row) {
    const range = ranges[j];
    const before = range.byte;
    /** @type {Promise<void> | undefined} */
    let wait;
    if (row !== undefined) {
      stats.rowsRead++;
      if (row.fields === undefined) {
        report.rejectRow(row, row.line, row.partialFields);
      } else {
        const entry = entryOf(buildItem, row, report);
        if (entry !== undefined) {
          if (compare !== undefined) widenSpan(ranges, compare, j, entry.keyId, entry.line);
          wait = pass(entry);
          shares.handedOn(j, entry);
        }
      }
    }
    moveCursor(range, reader, row);
    done += range.byte - before;
    stats.byte = firstByte + done;
    if (row === undefined) return undefined;
    const backlog = report.rejectsBacklog();
    if (wait === undefined) return backlog;
    return backlog === undefined ? wait : wait.then(() => backlog);
  };
}

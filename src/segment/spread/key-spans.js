/**
 * Each range keeps to its own stretch of the key space: the keys a range has handed on span [min, max],
 * and those spans stay disjoint and in range order. Then no two ranges ever write one key, and one
 * range's rows pass in its own file order, so rows of one key reach the table in file order whatever the
 * interleaving. A file sorted by the table's key keeps to this by itself; a row that would break it could
 * have a key another range has written, so the segment stops there with SpreadOrderError, before that
 * row is handed on.
 */
import { SpreadOrderError } from '../../errors.js';

/** @typedef {(a: string, b: string) => number} KeyOrder  the order of the table's keys (key-order.js) */

/**
 * Widens range j's span to `key`, or throws SpreadOrderError if the spans would no longer stay apart.
 * @param {import('../../plan/spread-plan.js').SpreadRange[]} ranges  every range's span, changed in place
 * @param {KeyOrder} order
 * @param {number} j @param {string} key @param {number} line  the row's, for the error
 */
export function widenSpan(ranges, order, j, key, line) {
  const range = ranges[j];
  if (range.min !== undefined && range.max !== undefined && order(key, range.min) >= 0 && order(key, range.max) <= 0) return;
  for (let k = j - 1; k >= 0; k--) {
    const below = ranges[k].max;
    if (below === undefined) continue;
    if (order(below, key) >= 0) throw outOfOrder(ranges, order, line, j, k, key);
    break;
  }
  for (let k = j + 1; k < ranges.length; k++) {
    const above = ranges[k].min;
    if (above === undefined) continue;
    if (order(key, above) >= 0) throw outOfOrder(ranges, order, line, j, k, key);
    break;
  }
  if (range.min === undefined || order(key, range.min) < 0) range.min = key;
  if (range.max === undefined || order(key, range.max) > 0) range.max = key;
}

/**
 * The error for a key of range j that range k's span (a neighbour's) does not leave room for: it names the
 * range among whose keys the key lies, if one's span holds it, else the neighbour it passes.
 * @param {import('../../plan/spread-plan.js').SpreadRange[]} ranges @param {KeyOrder} order
 * @param {number} line @param {number} j @param {number} k @param {string} key
 */
function outOfOrder(ranges, order, line, j, k, key) {
  const among = ranges.findIndex((range, m) => m !== j && range.min !== undefined && range.max !== undefined && order(key, range.min) >= 0 && order(key, range.max) <= 0);
  const where = among === -1 ? `${k < j ? 'below the last' : 'above the first'} key range ${k + 1} has read` : `among the keys range ${among + 1} has read`;
  return new SpreadOrderError(
    `spread: the key of line ${line} (range ${j + 1} of ${ranges.length}) lies ${where}, so the file is not sorted by the table's key and reading it in ${ranges.length} places could write an older row of a key over a newer one. The rows written so far are in order. Import it without spread (leave spread out; shuffleWindow spreads rows of any order), or sort the file by the table's key first`,
  );
}

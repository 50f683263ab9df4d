/**
 * An order over keyIds (key-id.js) that follows DynamoDB's own over the table's key: the partition key's
 * value, then the sort key's; a number by its value, a string or binary by its text. `spread` checks with
 * it that each range of a file keeps to its own stretch of the key space, which a file sorted by the
 * table's key does.
 */
import { joinKeyId } from './key-id.js';

/**
 * @param {import('../write/table-check.js').TableKeys} keys
 * @returns {(a: string, b: string) => number}  negative, zero or positive, as Array#sort's
 */
export function keyOrderOf(keys) {
  const partition = compareOf(keys.partition.type);
  if (keys.sort === undefined) return partition;
  const sort = compareOf(keys.sort.type);
  const separator = joinKeyId('', '');
  return (a, b) => {
    // A string partition key may hold a NUL itself: the split is then elsewhere, but the order stays a
    // total one over keyIds, which is all the check needs.
    const aAt = a.indexOf(separator);
    const bAt = b.indexOf(separator);
    return partition(a.slice(0, aAt), b.slice(0, bAt)) || sort(a.slice(aAt + 1), b.slice(bAt + 1));
  };
}

/** @param {'S' | 'N' | 'B' | undefined} type */
function compareOf(type) {
  return type === 'N' ? compareNumbers : compareText;
}

/** @param {string} a @param {string} b */
function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Two numbers as normalizeNumber (numbers.js) writes them: `0`, or an optional `-`, the significant
 * digits and `E` with the power of ten of the first digit (`7E0`, `-15E1`).
 * @param {string} a @param {string} b
 */
export function compareNumbers(a, b) {
  const signA = a === '0' ? 0 : a[0] === '-' ? -1 : 1;
  const signB = b === '0' ? 0 : b[0] === '-' ? -1 : 1;
  if (signA !== signB || signA === 0) return signA - signB;
  const magnitude = compareMagnitudes(signA < 0 ? a.slice(1) : a, signA < 0 ? b.slice(1) : b);
  return signA * magnitude;
}

/** @param {string} a @param {string} b  positive, normalized: digits `E` power */
function compareMagnitudes(a, b) {
  const aE = a.indexOf('E');
  const bE = b.indexOf('E');
  const powerA = Number(a.slice(aE + 1));
  const powerB = Number(b.slice(bE + 1));
  if (powerA !== powerB) return powerA - powerB;
  // Same power: the digits compare as text, a shorter one (no trailing zeros) being a prefix is smaller.
  return compareText(a.slice(0, aE), b.slice(0, bE));
}

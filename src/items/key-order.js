/**
 * An order over keyIds (key-id.js) that follows DynamoDB's own over the table's key: the partition key's
 * value, then the sort key's; a number by its value, a string by its UTF-8 bytes, a binary by its bytes. `spread` checks with
 * it that each range of a file keeps to its own stretch of the key space, which a file sorted by the
 * table's key does.
 */
import { splitKeyId } from './key-id.js';

/**
 * @param {import('../write/table-check.js').TableKeys} keys
 * @returns {(a: string, b: string) => number}  negative, zero or positive, as Array#sort's
 */
export function keyOrderOf(keys) {
  const partition = compareOf(keys.partition.type);
  if (keys.sort === undefined) return partition;
  const sort = compareOf(keys.sort.type);
  return (a, b) => {
    const [aPartition, aSort] = splitKeyId(a);
    const [bPartition, bSort] = splitKeyId(b);
    return partition(aPartition, bPartition) || sort(aSort, bSort);
  };
}

/** @param {'S' | 'N' | 'B' | undefined} type */
function compareOf(type) {
  return type === 'N' ? compareNumbers : type === 'B' ? compareBinaries : compareStrings;
}

/** @param {string} a @param {string} b */
function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Strings in DynamoDB's order, their UTF-8 bytes', which is code point order: JavaScript's compares UTF-16
 * code units, which puts a character past U+FFFF (a surrogate pair, D800-DFFF) before U+E000-U+FFFF.
 * @param {string} a @param {string} b
 */
export function compareStrings(a, b) {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 || y < 0xd800) return x - y;
    // Both at or past the surrogates: the surrogates (D800-DFFF) move above E000-FFFF.
    return (x < 0xe000 ? x + 0x2000 : x - 0x800) - (y < 0xe000 ? y + 0x2000 : y - 0x800);
  }
  return a.length - b.length;
}

/** Binaries by their bytes (base64's alphabet is not in byte order). @param {string} a @param {string} b */
function compareBinaries(a, b) {
  return Buffer.compare(Buffer.from(a, 'base64'), Buffer.from(b, 'base64'));
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

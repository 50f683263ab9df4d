/**
 * Text that is not valid in the file's encoding: bytes that are not UTF-8, and UTF-16 code units without
 * their pair. DynamoDB's strings are UTF-8, so such a record is rejected rather than written with
 * U+FFFD in place of what the file holds. Both checks take whole records: a record boundary is just after
 * a line break, which no valid sequence spans, so a sequence is never cut between two calls.
 */
import { isUtf8 } from 'node:buffer';

/** An unpaired UTF-16 surrogate: text no encoding can write (DynamoDB strings are UTF-8). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Adds to `offsets` the offset (`base` + index) of each byte of `bytes` that does not belong to a valid
 * UTF-8 sequence. Node's isUtf8 answers for the whole run at native speed; only a run that fails is looked
 * at byte by byte.
 * @param {Buffer} bytes @param {number} base @param {number[]} offsets
 */
export function findInvalidUtf8(bytes, base, offsets) {
  if (isUtf8(bytes)) return;
  let i = 0;
  while (i < bytes.length) {
    const size = sequenceAt(bytes, i);
    if (size === 0) {
      offsets.push(base + i);
      i++;
    } else i += size;
  }
}

/** Length of the valid UTF-8 sequence at `i`, or 0. @param {Buffer} b @param {number} i */
function sequenceAt(b, i) {
  const c = b[i];
  if (c < 0x80) return 1;
  const cont = (/** @type {number} */ k) => i + k < b.length && (b[i + k] & 0xc0) === 0x80;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const second = b[i + 1];
    // No overlong forms (E0 80-9F) and no surrogates (ED A0-BF).
    if ((c === 0xe0 && second < 0xa0) || (c === 0xed && second > 0x9f)) return 0;
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const second = b[i + 1];
    if ((c === 0xf0 && second < 0x90) || (c === 0xf4 && second > 0x8f)) return 0;
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/**
 * One UTF-16LE record as UTF-8, the text csv-parse reads, and whether it holds a code unit without its
 * pair or ends in half a unit (the file's last byte); either is shown as U+FFFD in the UTF-8.
 * @param {Buffer} bytes
 * @returns {{ utf8: Buffer, invalid: boolean }}
 */
export function utf16leAsUtf8(bytes) {
  const odd = bytes.length % 2 === 1;
  const text = bytes.toString('utf16le') + (odd ? '\ufffd' : '');
  return { utf8: Buffer.from(text, 'utf8'), invalid: odd || LONE_SURROGATE.test(text) };
}

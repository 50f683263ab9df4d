/**
 * The quoting rules byte by byte: where the record under way ends, where a line ends, how many line breaks
 * a stretch holds; over single bytes (UTF-8 and single-byte encodings, where every byte of a multi-byte
 * sequence is >= 0x80 and so never reads as a quote, delimiter or line break) or over UTF-16LE code units.
 * The rules: a field is quoted only when a quote opens it; inside it `""` is a quote, and a quote followed
 * by the delimiter, a line end or the end of the file closes it; a quote followed by anything else makes
 * the record bad. scanRecord and scanRecord16 are the reader's hot loop (docs/design/record-reading.md):
 * plain locals, no calls per byte.
 */

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** What scanRecord returns at a quote that closes a field with text after it. */
export const BAD_QUOTE = -2;

/**
 * @typedef {object} QuotingState  the record under way, carried between calls
 * @property {boolean} quoted      inside a quoted field
 * @property {boolean} fieldStart  the next byte starts a field
 * @property {number} stop         where the last scan stopped
 */

/** Line breaks in bytes[from, to): CRLF, LF and CR once each. @param {Buffer} bytes @param {number} from @param {number} to */
export function lineBreaksIn(bytes, from, to) {
  let breaks = 0;
  for (let i = from; i < to; i++) {
    if (bytes[i] === LF) breaks++;
    else if (bytes[i] === CR && bytes[i + 1] !== LF) breaks++;
  }
  return breaks;
}

/** lineBreaksIn for UTF-16LE code units. @param {Buffer} bytes @param {number} from @param {number} to */
export function lineBreaksIn16(bytes, from, to) {
  let breaks = 0;
  for (let i = from; i + 1 < to; i += 2) {
    const unit = bytes[i] | (bytes[i + 1] << 8);
    if (unit === LF) breaks++;
    else if (unit === CR && (bytes[i + 2] | (bytes[i + 3] << 8)) !== LF) breaks++;
  }
  return breaks;
}

/**
 * Scans for the end of the record under way, from `from`, with plain locals (this loop is the reader's
 * cost). Returns the offset after its line break, -1 when the bytes end first (or the next byte is
 * needed to decide), or BAD_QUOTE at a quote closing a field with text after it; `state.stop` is where
 * it stopped, and the quoting state is carried in `state`.
 * @param {Buffer} bytes @param {number} from @param {boolean} ending @param {number} delimiterByte
 * @param {QuotingState} state
 */
export function scanRecord(bytes, from, ending, delimiterByte, state) {
  let quoted = state.quoted;
  let fieldStart = state.fieldStart;
  const length = bytes.length;
  let result = -1;
  let i = from;
  for (; i < length; i++) {
    const byte = bytes[i];
    if (quoted) {
      if (byte !== QUOTE) continue;
      if (i + 1 === length) {
        if (!ending) break; // the next byte decides
        quoted = false;
        continue;
      }
      const next = bytes[i + 1];
      if (next === QUOTE) i++;
      else if (next === delimiterByte || next === LF || next === CR) quoted = false;
      else {
        result = BAD_QUOTE;
        break;
      }
      continue;
    }
    if (byte === LF) {
      result = i + 1;
      break;
    }
    if (byte === CR) {
      if (i + 1 === length && !ending) break; // an LF may follow
      result = bytes[i + 1] === LF ? i + 2 : i + 1;
      break;
    }
    if (byte === QUOTE && fieldStart) {
      quoted = true;
      fieldStart = false;
    } else fieldStart = byte === delimiterByte;
  }
  state.quoted = quoted;
  state.fieldStart = fieldStart;
  state.stop = i;
  return result;
}

/** The first line break in `bytes`, or -1. @param {Buffer} bytes */
export function lineBreakFrom(bytes) {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === LF || bytes[i] === CR) return i;
  return -1;
}

/** The first line break in UTF-16LE `bytes`, or -1. @param {Buffer} bytes */
export function lineBreakFrom16(bytes) {
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    const unit = bytes[i] | (bytes[i + 1] << 8);
    if (unit === LF || unit === CR) return i;
  }
  return -1;
}

/**
 * scanRecord for UTF-16LE: the same rules over 2-byte code units (a byte of a unit such as U+2C22 must not
 * read as a delimiter or a quote). A unit cut by the end of the bytes waits for the next chunk.
 * @param {Buffer} bytes @param {number} from @param {boolean} ending @param {number} delimiterUnit
 * @param {QuotingState} state
 */
export function scanRecord16(bytes, from, ending, delimiterUnit, state) {
  let quoted = state.quoted;
  let fieldStart = state.fieldStart;
  const length = bytes.length - (bytes.length % 2);
  // Half a unit at the very end is a unit of its own: no quote, delimiter or line break.
  const halfUnitLast = ending && length < bytes.length;
  const unitAt = (/** @type {number} */ i) => bytes[i] | (bytes[i + 1] << 8);
  let result = -1;
  let i = from;
  for (; i < length; i += 2) {
    const unit = unitAt(i);
    if (quoted) {
      if (unit !== QUOTE) continue;
      if (i + 2 === length && halfUnitLast) {
        result = BAD_QUOTE;
        break;
      }
      if (i + 2 === length) {
        if (!ending) break; // the next unit decides
        quoted = false;
        continue;
      }
      const next = unitAt(i + 2);
      if (next === QUOTE) i += 2;
      else if (next === delimiterUnit || next === LF || next === CR) quoted = false;
      else {
        result = BAD_QUOTE;
        break;
      }
      continue;
    }
    if (unit === LF) {
      result = i + 2;
      break;
    }
    if (unit === CR) {
      if (i + 2 === length && !ending) break; // an LF may follow
      result = i + 2 < length && unitAt(i + 2) === LF ? i + 4 : i + 2;
      break;
    }
    if (unit === QUOTE && fieldStart) {
      quoted = true;
      fieldStart = false;
    } else fieldStart = unit === delimiterUnit;
  }
  state.quoted = quoted;
  state.fieldStart = fieldStart;
  state.stop = i;
  return result;
}

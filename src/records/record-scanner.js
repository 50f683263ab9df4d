/**
 * A quote-aware scan of CSV bytes for record boundaries, as csv-parse (with the options csv-records.js
 * gives it) would find them: a line break inside a quoted field is not a boundary. A field is quoted only
 * when a quote opens it; a quote anywhere else is kept as written (relax_quotes). Inside a quoted field
 * `""` is a quote, and any other quote closes the field. Lines are counted as csv-records.js counts
 * them: CRLF, LF and CR are one line break each, inside quoted fields too.
 *
 * It does no allocation per byte, so it can read a whole object once to plan shards.
 */
import { UTF8_BOM } from './csv-options.js';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * @typedef {object} Boundary
 * @property {number} byte   first byte of the next record (just after a line break)
 * @property {number} lines  line breaks before that byte
 */

/**
 * @param {object} options
 * @param {string} options.delimiter  one character (its last UTF-8 byte marks a field start)
 * @param {(boundary: Boundary) => boolean | void} options.onBoundary  called at each boundary in order;
 *   return true to stop being called (the scan still counts lines)
 */
export function createRecordScanner({ delimiter, onBoundary }) {
  const delimiterBytes = Buffer.from(delimiter, 'utf8');
  const delimiterByte = delimiterBytes[delimiterBytes.length - 1];
  let offset = 0; // bytes scanned before the current chunk
  let lines = 0;
  let quoted = false;
  let fieldStart = true;
  // A quote seen inside a quoted field at the end of a chunk: its meaning depends on the next byte.
  let quotePending = false;
  // A CR at the end of a chunk: one line break with an LF that may start the next chunk; outside quotes,
  // the boundary is after that LF if there is one.
  let crPending = false;
  let listening = true;
  // A UTF-8 BOM at the very start is not part of the first field (csv-parse drops it).
  let bomPossible = true;

  /** @param {number} byte */
  function boundary(byte) {
    if (listening && onBoundary({ byte, lines }) === true) listening = false;
  }

  /** @param {Buffer} chunk */
  function scan(chunk) {
    const length = chunk.length;
    let i = 0;
    if (bomPossible) {
      while (i < length && offset + i < 3 && chunk[i] === UTF8_BOM[offset + i]) i++;
      if (offset + i >= 3 || i < length) bomPossible = false;
      if (offset + i < 3 && i < length) i = 0; // not a BOM after all: scan those bytes
    }
    if (crPending) {
      crPending = false;
      if (chunk[0] === LF) i = 1;
      if (!quoted) boundary(offset + i);
    }
    if (quotePending) {
      quotePending = false;
      if (chunk[0] === QUOTE) i = 1; // an escaped quote: still quoted
      else quoted = false;
    }
    for (; i < length; i++) {
      const byte = chunk[i];
      if (quoted) {
        if (byte === QUOTE) {
          if (i + 1 === length) quotePending = true;
          else if (chunk[i + 1] === QUOTE) i++;
          else quoted = false;
        } else if (byte === LF) {
          lines++;
        } else if (byte === CR) {
          lines++;
          if (i + 1 === length) crPending = true;
          else if (chunk[i + 1] === LF) i++;
        }
        continue;
      }
      if (byte === LF) {
        lines++;
        boundary(offset + i + 1);
        fieldStart = true;
      } else if (byte === CR) {
        lines++;
        if (i + 1 === length) crPending = true;
        else if (chunk[i + 1] === LF) {
          i++;
          boundary(offset + i + 1);
        } else boundary(offset + i + 1);
        fieldStart = true;
      } else if (byte === QUOTE && fieldStart) {
        quoted = true;
        fieldStart = false;
      } else {
        fieldStart = byte === delimiterByte;
      }
    }
    offset += length;
  }

  return {
    scan,
    /** Ends the scan; the last record needs no line break after it. */
    end() {
      if (crPending) {
        crPending = false;
        boundary(offset);
      }
      return { bytes: offset, lines };
    },
  };
}

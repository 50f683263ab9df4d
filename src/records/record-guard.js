/**
 * Stands between a CSV's bytes and csv-parse, and holds the file to strict quoting, which csv-parse
 * cannot do without swallowing rows: a field is quoted only when a quote opens it; inside it `""` is a
 * quote and a quote followed by the delimiter, a line end or the end of the file closes it. A quote
 * followed by anything else, a quoted field never closed, or a record longer than `maxRecordBytes`, makes
 * the record bad. Its first line is replaced, in the bytes csv-parse reads, by a one-field stand-in, and
 * reading resumes on the next line: a stray quote (`1,"Ann,Paris`) costs its own line, and the rows after
 * it are read as the file has them. The problem, in order, waits in `problems` for the reader.
 *
 * It also finds bytes that are not UTF-8 (when the file is read as UTF-8), by their offsets in the file.
 *
 * Bytes are passed on as they come, up to the last record boundary; only the record under way is held,
 * at most `maxRecordBytes`. A stand-in is shorter or longer than the line it replaces: `shifts` says
 * where, so that csv-parse's byte counts can be turned back into the file's offsets.
 */
import { isUtf8 } from 'node:buffer';
import { Transform } from 'node:stream';
import { HeaderError } from '../errors.js';
import { UTF8_BOM } from './csv-options.js';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** The longest record read: past it a record is rejected (an unclosed quote, a file without line breaks). */
export const MAX_RECORD_BYTES = 1 << 20;

/** What a replaced line reads as: one field no text file holds (NUL, SUB). */
export const STAND_IN = '\u0000\u001a';
const STAND_IN_BYTES = Buffer.from(STAND_IN, 'latin1');

/**
 * @typedef {object} GuardProblem
 * @property {'MALFORMED_CSV' | 'RECORD_TOO_LARGE'} reason
 * @property {string} message  what is wrong, without the line number
 * @property {string} text     the start of the replaced line, as written (for the rejects file)
 */

/**
 * The guard as a stream: bytes in, the bytes csv-parse is to read out.
 * @param {{ delimiter: string, utf8: boolean, atFileStart?: boolean, maxRecordBytes?: number, refuseUtf16?: boolean }} options
 */
export function createRecordGuard(options) {
  const splitter = createRecordSplitter(options);
  const stream = new Transform({
    transform(chunk, _encoding, done) {
      try {
        splitter.write(chunk, (part) => stream.push(part));
        done();
      } catch (error) {
        done(/** @type {Error} */ (error));
      }
    },
    flush(done) {
      splitter.end((part) => stream.push(part));
      done();
    },
  });
  return { stream, problems: splitter.problems, shifts: splitter.shifts, invalidUtf8: splitter.invalidUtf8 };
}

/**
 * Where records start and end by the guard's rules, with what to pass on to csv-parse. The shard planner
 * (record-scanner.js) finds its boundaries with this same code, so a shard starts where a segment that
 * read the whole file would have found a record's start.
 * @param {object} options
 * @param {string} options.delimiter
 * @param {boolean} options.utf8  check that the bytes are UTF-8
 * @param {boolean} [options.atFileStart]  the bytes start at the file's start (where a byte order mark is)
 * @param {boolean} [options.refuseUtf16]  refuse a UTF-16 byte order mark at the file's start; default: `utf8`
 * @param {number} [options.maxRecordBytes]
 * @param {(boundary: { byte: number, lines: number }) => void} [options.onBoundary]  each record's end: its file
 *   offset and the line breaks before it (counting them costs a pass over the bytes: planning only)
 */
export function createRecordSplitter({ delimiter, utf8, atFileStart = true, maxRecordBytes = MAX_RECORD_BYTES, refuseUtf16: refuse = utf8, onBoundary }) {
  const delimiterByte = Buffer.from(delimiter, 'utf8')[0];
  /** @type {GuardProblem[]} */
  const problems = [];
  /** Where a stand-in changed the length: from parser byte `at` on, file offsets are `delta` further. @type {Array<{ at: number, delta: number }>} */
  const shifts = [];
  /** File offsets of bytes that are not UTF-8, in order. @type {number[]} */
  const invalidUtf8 = [];

  /** The current record's bytes from its first byte; `pos` is where scanning resumes in it. @type {Buffer} */
  let held = Buffer.alloc(0);
  let pos = 0;
  // Quoting state of the record under way, kept between chunks.
  const state = { quoted: false, fieldStart: true, stop: 0 };
  let atStart = atFileStart;
  let passed = 0; // bytes passed on to csv-parse
  let consumed = 0; // bytes of the file before `held`
  let lines = 0; // line breaks of the file before `held` (counted only for onBoundary)
  // A line being dropped (a bad record's first line longer than fits): bytes dropped so far, and why.
  /** @type {{ dropped: number, problem: GuardProblem } | undefined} */
  let skipping;
  const utf8Check = utf8 ? createUtf8Check(invalidUtf8) : undefined;

  /**
   * Replaces the record that starts at `held[0]` by a stand-in, up to `lineEnd` (its first line break, or
   * the end of what was dropped); scanning goes on at that line break.
   * @param {(chunk: Buffer) => void} push @param {number} lineEnd @param {number} replaced @param {GuardProblem} problem
   */
  function standIn(push, lineEnd, replaced, problem) {
    push(STAND_IN_BYTES);
    passed += STAND_IN_BYTES.length;
    shifts.push({ at: passed, delta: replaced - STAND_IN_BYTES.length });
    problems.push(problem);
    consumed += lineEnd;
    held = held.subarray(lineEnd);
    pos = 0;
    state.quoted = false;
    state.fieldStart = true;
  }

  /** @param {Buffer} bytes @param {number} from @param {number} to */
  const textOf = (bytes, from, to) => bytes.toString('utf8', from, Math.min(to, from + 200));

  /**
   * Scans `held` from `pos`; passes on every whole record. Returns at the end of the bytes, or where the
   * next byte is needed to decide.
   * @param {(chunk: Buffer) => void} push @param {boolean} ending  no more bytes will come
   */
  function scan(push, ending) {
    // Whole records found so far in `held` start at 0 and end at `base`; they are passed on together, once
    // per chunk (or before a stand-in), since csv-parse pays for every chunk it is given.
    let base = 0;
    const passOn = () => {
      if (base === 0) return;
      push(held.subarray(0, base));
      passed += base;
      consumed += base;
      held = held.subarray(base);
      pos -= base;
      base = 0;
    };
    for (;;) {
      if (skipping !== undefined) {
        const end = lineBreakFrom(held, 0);
        if (end === -1 && !ending) {
          skipping.dropped += held.length;
          consumed += held.length;
          held = Buffer.alloc(0);
          pos = 0;
          return;
        }
        const lineEnd = end === -1 ? held.length : end;
        const { dropped, problem } = skipping;
        skipping = undefined;
        standIn(push, lineEnd, dropped + lineEnd, problem);
        if (end === -1) return;
        continue;
      }
      const found = scanRecord(held, pos, ending, delimiterByte, state);
      const i = state.stop;
      const boundary = found >= 0 ? found : -1;
      /** @type {{ reason: GuardProblem['reason'], message: string } | undefined} */
      let bad;
      if (found === BAD_QUOTE) {
        bad = { reason: 'MALFORMED_CSV', message: 'a quoted field is closed by a quote followed by other text; double the quotes inside a quoted field ("") or quote the whole field' };
      } else if (boundary === -1 && ending && state.quoted) {
        bad = { reason: 'MALFORMED_CSV', message: 'a quoted field opened on this line is never closed' };
      } else if ((boundary === -1 ? i : boundary) - base > maxRecordBytes) {
        bad = { reason: 'RECORD_TOO_LARGE', message: `the record is longer than ${maxRecordBytes} bytes (an unclosed quote, or a file without line breaks?)` };
      }
      if (bad !== undefined) {
        passOn();
        const lineEnd = lineBreakFrom(held, 0);
        /** @type {GuardProblem} */
        const problem = { ...bad, text: textOf(held, 0, lineEnd === -1 ? held.length : lineEnd) };
        if (lineEnd !== -1) standIn(push, lineEnd, lineEnd, problem);
        else if (ending) standIn(push, held.length, held.length, problem);
        else {
          skipping = { dropped: 0, problem };
          state.quoted = false;
        }
        continue;
      }
      if (boundary === -1) {
        pos = i;
        passOn();
        return;
      }
      if (onBoundary !== undefined) {
        lines += lineBreaksIn(held, base, boundary);
        onBoundary({ byte: consumed + boundary, lines });
      }
      base = boundary;
      pos = boundary;
      state.fieldStart = true;
    }
  }

  return {
    problems,
    shifts,
    invalidUtf8,
    /** @param {Buffer} chunk @param {(part: Buffer) => void} push */
    write(chunk, push) {
      utf8Check?.(chunk, consumed + held.length);
      let bytes = chunk;
      if (atStart) {
        atStart = false;
        if (refuse) refuseUtf16(bytes);
        if (bytes.length >= 3 && bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2]) {
          // csv-parse drops the BOM: pass it on, and scan the first field from after it.
          push(bytes.subarray(0, 3));
          passed += 3;
          consumed += 3;
          bytes = bytes.subarray(3);
        }
      }
      held = held.length === 0 ? bytes : Buffer.concat([held, bytes]);
      scan(push, false);
    },
    /** @param {(part: Buffer) => void} push @returns {{ bytes: number, lines: number }} the file's size and line breaks */
    end(push) {
      utf8Check?.(Buffer.alloc(0), consumed + held.length, true);
      scan(push, true);
      if (onBoundary !== undefined) lines += lineBreaksIn(held, 0, held.length);
      if (held.length > 0) push(held);
      return { bytes: consumed + held.length, lines };
    },
  };
}

/** Line breaks in bytes[from, to): CRLF, LF and CR once each. @param {Buffer} bytes @param {number} from @param {number} to */
function lineBreaksIn(bytes, from, to) {
  let breaks = 0;
  for (let i = from; i < to; i++) {
    if (bytes[i] === LF) breaks++;
    else if (bytes[i] === CR && bytes[i + 1] !== LF) breaks++;
  }
  return breaks;
}

/**
 * A UTF-16 file (by its byte order mark) cannot be read yet: say so, rather than read its bytes as UTF-8.
 * @param {Buffer} bytes  the first bytes of the file
 */
export function refuseUtf16(bytes) {
  const bom = bytes[0] === 0xff && bytes[1] === 0xfe ? 'UTF-16LE' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'UTF-16BE' : undefined;
  if (bom !== undefined) throw new HeaderError(`the file is ${bom} (its byte order mark says so), which is not read yet; save it as UTF-8 (or windows-1252) and import it again`);
}

const BAD_QUOTE = -2;

/**
 * Scans for the end of the record under way, from `from`, with plain locals (this loop is the guard's
 * cost). Returns the offset after its line break, -1 when the bytes end first (or the next byte is
 * needed to decide), or BAD_QUOTE at a quote closing a field with text after it; `state.stop` is where
 * it stopped, and the quoting state is carried in `state`.
 * @param {Buffer} bytes @param {number} from @param {boolean} ending @param {number} delimiterByte
 * @param {{ quoted: boolean, fieldStart: boolean, stop: number }} state
 */
function scanRecord(bytes, from, ending, delimiterByte, state) {
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

/** The first line break in `bytes` from `from`, or -1. @param {Buffer} bytes @param {number} from */
function lineBreakFrom(bytes, from) {
  for (let i = from; i < bytes.length; i++) if (bytes[i] === LF || bytes[i] === CR) return i;
  return -1;
}

/**
 * Checks chunks of a stream for bytes that are not UTF-8, with sequences cut by a chunk's end carried on
 * to the next; records the file offset of each bad byte. Node's isUtf8 answers for a whole chunk at
 * native speed; only a chunk that fails is looked at byte by byte.
 * @param {number[]} offsets
 */
function createUtf8Check(offsets) {
  /** @type {Buffer} */
  let carry = Buffer.alloc(0);

  let carryAt = 0;
  /** @param {Buffer} chunk @param {number} at  file offset of chunk[0] @param {boolean} [last] */
  return (chunk, at, last = false) => {
    const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const base = carry.length === 0 ? at : carryAt;
    const tail = last ? 0 : incompleteTail(bytes);
    const whole = bytes.subarray(0, bytes.length - tail);
    if (!isUtf8(whole)) findInvalid(whole, base, offsets);
    carry = Buffer.from(bytes.subarray(bytes.length - tail));
    carryAt = base + bytes.length - tail;
  };
}

/** Bytes at the end that start a sequence the chunk does not finish (0 to 3). @param {Buffer} bytes */
function incompleteTail(bytes) {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needs > back ? back : 0;
  }
  return 0;
}

/** Records the offset of each byte that does not belong to a valid UTF-8 sequence. @param {Buffer} bytes @param {number} base @param {number[]} offsets */
function findInvalid(bytes, base, offsets) {
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

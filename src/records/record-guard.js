/**
 * Stands between a CSV's bytes and csv-parse, and holds the file to strict quoting, which csv-parse
 * cannot do without swallowing rows: a field is quoted only when a quote opens it; inside it `""` is a
 * quote and a quote followed by the delimiter, a line end or the end of the file closes it. A quote
 * followed by anything else, a quoted field never closed, or a record longer than `maxRecordBytes`, makes
 * the record bad. Its first line is replaced, in the bytes csv-parse reads, by a one-field stand-in, and
 * reading resumes on the next line: a stray quote (`1,"Ann,Paris`) costs its own line, and the rows after
 * it are read as the file has them. The problem, in order, waits in `problems` for the reader.
 *
 * It decides the encoding at the file's start (text-encoding.js) and drops the byte order mark, and finds
 * text that is not valid in the encoding (bytes that are not UTF-8, unpaired UTF-16 surrogates) by its
 * offset in the file.
 *
 * Bytes are passed on as they come, up to the last record boundary; only the record under way is held,
 * at most `maxRecordBytes`. A stand-in is shorter or longer than the line it replaces: `shifts` says
 * where, so that csv-parse's byte counts can be turned back into the file's offsets.
 */
import { isUtf8 } from 'node:buffer';
import { Transform } from 'node:stream';
import { decideEncoding, ENCODING_PROBE_BYTES, unitBytes } from './text-encoding.js';

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
 * The guard as a stream: bytes in, the bytes csv-parse is to read out (UTF-8, or single-byte text).
 * @param {SplitterOptions} options
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
      try {
        splitter.end((part) => stream.push(part));
        done();
      } catch (error) {
        done(/** @type {Error} */ (error));
      }
    },
  });
  return { stream, problems: splitter.problems, shifts: splitter.shifts, invalidText: splitter.invalidText, encoding: splitter.encoding };
}

/**
 * @typedef {object} SplitterOptions
 * @property {string} delimiter
 * @property {import('./text-encoding.js').EncodingOption} encoding  'auto' is decided by the file's start
 * @property {boolean} [atFileStart]  the bytes start at the file's start (where a byte order mark is); default true
 * @property {boolean} [checkText]  find records whose bytes are not valid in the encoding; default true
 * @property {boolean} [output]  pass the records on (an import); false: only find boundaries (the planner)
 * @property {number} [maxRecordBytes]
 * @property {(boundary: { byte: number, lines: number }) => void} [onBoundary]  each record's end: its file
 *   offset and the line breaks before it (counting them costs a pass over the bytes: planning only)
 */

/**
 * Where records start and end by the guard's rules, with what to pass on to csv-parse. The shard planner
 * (record-scanner.js) finds its boundaries with this same code, so a shard starts where a segment that
 * read the whole file would have found a record's start.
 *
 * UTF-16LE is scanned by code units, and each record is passed on as UTF-8 (with a shift for the length
 * it changed), so csv-parse only ever reads UTF-8 or single-byte text, and offsets stay the file's.
 * @param {SplitterOptions} options
 */
export function createRecordSplitter({ delimiter, encoding: option, atFileStart = true, checkText = true, output = true, maxRecordBytes = MAX_RECORD_BYTES, onBoundary }) {
  /** @type {GuardProblem[]} */
  const problems = [];
  /** Where a stand-in or a transcoded record changed the length: from parser byte `at` on, file offsets are `delta` further. @type {Array<{ at: number, delta: number }>} */
  const shifts = [];
  /** File offsets of text that is not valid in the encoding, in order. @type {number[]} */
  const invalidText = [];

  /** Decided at the file's start, from the option and the byte order mark. @type {import('./text-encoding.js').Encoding | undefined} */
  let decided;
  let wide = false; // UTF-16: scan by 2-byte code units
  // The delimiter is ASCII (config.js): one byte, or one code unit in UTF-16.
  const delimiterUnit = delimiter.charCodeAt(0);
  /** @type {((chunk: Buffer, at: number, last?: boolean) => void) | undefined} */
  let utf8Check;
  /** The file's first bytes, held until the encoding can be decided. @type {Buffer | undefined} */
  let opening = atFileStart ? Buffer.alloc(0) : undefined;

  /** The current record's bytes from its first byte; `pos` is where scanning resumes in it. @type {Buffer} */
  let held = Buffer.alloc(0);
  let pos = 0;
  // Quoting state of the record under way, kept between chunks.
  const state = { quoted: false, fieldStart: true, stop: 0 };
  let passed = 0; // bytes passed on to csv-parse
  let consumed = 0; // bytes of the file before `held`
  let lines = 0; // line breaks of the file before `held` (counted only for onBoundary)
  // A line being dropped (a bad record's first line longer than fits): bytes dropped so far, and why.
  /** @type {{ dropped: number, problem: GuardProblem } | undefined} */
  let skipping;

  /** @param {import('./text-encoding.js').Encoding} encoding */
  function decide(encoding) {
    decided = encoding;
    wide = unitBytes(encoding) === 2;
    if (encoding === 'utf-8' && checkText) utf8Check = createUtf8Check(invalidText);
  }
  // Mid-file, the encoding was decided by the job's first reader ('auto' there: a checkpoint from before it was carried).
  if (!atFileStart) decide(option === 'auto' ? 'utf-8' : option);

  /**
   * Decides the encoding from the file's first bytes and drops its byte order mark; returns the rest.
   * @param {Buffer} first
   */
  function open(first) {
    const { encoding, bom } = decideEncoding(option, first);
    decide(encoding);
    consumed += bom;
    if (bom > 0 && output) shifts.push({ at: 0, delta: bom });
    return first.subarray(bom);
  }

  /**
   * Passes on bytes of whole records (or of the last, unfinished one at the end). UTF-16 is passed on as
   * UTF-8, one record at a time, so that the shift for each record's end is exact.
   * @param {(chunk: Buffer) => void} push @param {Buffer} bytes
   */
  function emit(push, bytes) {
    if (!wide) {
      push(bytes);
      passed += bytes.length;
      return;
    }
    if (!output) return;
    const odd = bytes.length % 2 === 1;
    const text = bytes.toString('utf16le') + (odd ? '\ufffd' : '');
    if (checkText && (odd || LONE_SURROGATE.test(text))) invalidText.push(consumed);
    const utf8 = Buffer.from(text, 'utf8');
    push(utf8);
    passed += utf8.length;
    if (utf8.length !== bytes.length) shifts.push({ at: passed, delta: bytes.length - utf8.length });
  }

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

  /** The start of a replaced line, as text. @param {Buffer} bytes @param {number} to */
  const textOf = (bytes, to) => (wide ? bytes.toString('utf16le', 0, Math.min(to, 400)) : bytes.toString(decided === 'utf-8' ? 'utf8' : 'latin1', 0, Math.min(to, 200)));
  /** @param {Buffer} bytes */
  const lineBreakIn = (bytes) => (wide ? lineBreakFrom16(bytes) : lineBreakFrom(bytes));

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
      emit(push, held.subarray(0, base));
      consumed += base;
      held = held.subarray(base);
      pos -= base;
      base = 0;
    };
    for (;;) {
      if (skipping !== undefined) {
        const end = lineBreakIn(held);
        if (end === -1 && !ending) {
          // A UTF-16 code unit cut by the chunk's end stays, to be read whole.
          const drop = wide ? held.length - (held.length % 2) : held.length;
          skipping.dropped += drop;
          consumed += drop;
          held = held.subarray(drop);
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
      const found = wide ? scanRecord16(held, pos, ending, delimiterUnit, state) : scanRecord(held, pos, ending, delimiterUnit, state);
      const i = state.stop;
      const boundary = found >= 0 ? found : -1;
      /** @type {{ reason: GuardProblem['reason'], message: string } | undefined} */
      let bad;
      if (found === BAD_QUOTE) {
        bad = { reason: 'MALFORMED_CSV', message: 'a quoted field is closed by a quote followed by other text; double the quotes inside a quoted field ("") or quote the whole field' };
      } else if (boundary === -1 && ending && state.quoted) {
        bad = { reason: 'MALFORMED_CSV', message: 'a quoted field opened on this line is never closed' };
      } else if (i - base > maxRecordBytes) {
        // `i` is where scanning stopped: at the record's line break, or at the end of the bytes so far.
        bad = { reason: 'RECORD_TOO_LARGE', message: `the record is longer than ${maxRecordBytes} bytes (an unclosed quote, or a file without line breaks?)` };
      }
      if (bad !== undefined) {
        passOn();
        const lineEnd = lineBreakIn(held);
        /** @type {GuardProblem} */
        const problem = { ...bad, text: textOf(held, lineEnd === -1 ? held.length : lineEnd) };
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
        lines += wide ? lineBreaksIn16(held, base, boundary) : lineBreaksIn(held, base, boundary);
        onBoundary({ byte: consumed + boundary, lines });
      }
      base = boundary;
      pos = boundary;
      state.fieldStart = true;
      if (wide) passOn();
    }
  }

  /** @param {Buffer} chunk @param {(part: Buffer) => void} push @param {boolean} ending */
  function take(chunk, push, ending) {
    let bytes = chunk;
    if (opening !== undefined) {
      const first = opening.length === 0 ? chunk : Buffer.concat([opening, chunk]);
      if (first.length < ENCODING_PROBE_BYTES && !ending) {
        opening = first;
        return;
      }
      opening = undefined;
      bytes = open(first);
    }
    utf8Check?.(bytes, consumed + held.length, ending);
    held = held.length === 0 ? bytes : Buffer.concat([held, bytes]);
    scan(push, ending);
  }

  return {
    problems,
    shifts,
    invalidText,
    /** The encoding the file is read in, once its first bytes were seen. */
    encoding: () => decided,
    /** @param {Buffer} chunk @param {(part: Buffer) => void} push */
    write: (chunk, push) => take(chunk, push, false),
    /** @param {(part: Buffer) => void} push @returns {{ bytes: number, lines: number }} the file's size and line breaks */
    end(push) {
      take(Buffer.alloc(0), push, true);
      if (onBoundary !== undefined) lines += wide ? lineBreaksIn16(held, 0, held.length) : lineBreaksIn(held, 0, held.length);
      if (held.length > 0) emit(push, held);
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

/** lineBreaksIn for UTF-16LE code units. @param {Buffer} bytes @param {number} from @param {number} to */
function lineBreaksIn16(bytes, from, to) {
  let breaks = 0;
  for (let i = from; i + 1 < to; i += 2) {
    const unit = bytes[i] | (bytes[i + 1] << 8);
    if (unit === LF) breaks++;
    else if (unit === CR && (bytes[i + 2] | (bytes[i + 3] << 8)) !== LF) breaks++;
  }
  return breaks;
}

/** An unpaired UTF-16 surrogate: text no encoding can write (DynamoDB strings are UTF-8). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

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

/** The first line break in `bytes`, or -1. @param {Buffer} bytes */
function lineBreakFrom(bytes) {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === LF || bytes[i] === CR) return i;
  return -1;
}

/** The first line break in UTF-16LE `bytes`, or -1. @param {Buffer} bytes */
function lineBreakFrom16(bytes) {
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
 * @param {{ quoted: boolean, fieldStart: boolean, stop: number }} state
 */
function scanRecord16(bytes, from, ending, delimiterUnit, state) {
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

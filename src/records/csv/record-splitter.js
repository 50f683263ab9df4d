/**
 * A CSV's bytes cut into records by strict quoting (quote-scan.js), which csv-parse cannot do without
 * swallowing rows. A bad record (a quote followed by other text, a quoted field never closed, a record
 * longer than `maxRecordBytes`) costs its first line only: that line is reported as the bad record, and
 * reading resumes on the next line, so a stray quote (`1,"Ann,Paris`) costs its own line and the rows
 * after it are read as the file has them.
 *
 * It decides the encoding at the file's start (text-encoding.js) and drops the byte order mark. Whole
 * records are handed on as they are found, with their offset in the file; only the record under way is
 * held, at most `maxRecordBytes`. The shard planner (record-scanner.js) finds its boundaries with this
 * same code, so a shard starts where a segment that read the whole file would have found a record's start.
 */
import { MAX_RECORD_BYTES } from '../record-size.js';
import { BAD_QUOTE, lineBreakFrom, lineBreakFrom16, lineBreaksIn, lineBreaksIn16, scanRecord, scanRecord16 } from './quote-scan.js';
import { decideEncoding, ENCODING_PROBE_BYTES, unitBytes } from './text-encoding.js';

/**
 * @typedef {object} BadRecord
 * @property {'MALFORMED_CSV' | 'RECORD_TOO_LARGE'} reason
 * @property {string} message  what is wrong, without the line number
 * @property {string} text     the start of the bad record's first line, as written (for the rejects file)
 */

/**
 * @typedef {object} SplitterOptions
 * @property {string} delimiter  ASCII (config.js): one byte, or one code unit in UTF-16
 * @property {import('./text-encoding.js').EncodingOption} encoding  'auto' is decided by the file's start
 * @property {boolean} [atFileStart]  the bytes start at the file's start (where a byte order mark is); default true
 * @property {number} [maxRecordBytes]
 * @property {(bytes: Buffer, fileStart: number) => void} [onRecords]  whole records in the file's encoding,
 *   from file offset `fileStart`; in UTF-16 one record a call. The last record of the file may lack its line break.
 * @property {(bad: BadRecord, fileEnd: number) => void} [onBadRecord]  a bad record's first line, in file
 *   order with onRecords; `fileEnd` is the offset after its line break
 * @property {(boundary: { byte: number, lines: number }) => void} [onBoundary]  each record's end: its file
 *   offset and the line breaks before it (counting them costs a pass over the bytes: planning only)
 */

/**
 * A splitter's state, read and changed by the functions below.
 * @typedef {object} Splitter
 * @property {import('./text-encoding.js').EncodingOption} option
 * @property {import('./text-encoding.js').Encoding | undefined} decided  from the option and the byte order mark
 * @property {boolean} wide  UTF-16: scan by 2-byte code units
 * @property {number} delimiterUnit
 * @property {number} maxRecordBytes
 * @property {NonNullable<SplitterOptions['onRecords']>} onRecords
 * @property {NonNullable<SplitterOptions['onBadRecord']>} onBadRecord
 * @property {SplitterOptions['onBoundary']} onBoundary
 * @property {Buffer | undefined} opening  the file's first bytes, held until the encoding can be decided
 * @property {Buffer} held  the bytes from the current record's first byte
 * @property {number} pos  where scanning resumes in `held`
 * @property {number} base  whole records found in `held` end here; they are handed on together, once a chunk or PASS_ON_BYTES
 * @property {import('./quote-scan.js').QuotingState} quoting  the record under way's, kept between chunks
 * @property {number} consumed  bytes of the file before `held`
 * @property {number} lines  line breaks of the file before `held` (counted only for onBoundary)
 * @property {BadRecord | undefined} badLine  a bad record whose first line was taken out: reported once its line break is read
 * @property {BadRecord | undefined} skipping  a bad record whose first line, longer than the bytes held, is dropped as it comes
 */

const EMPTY = Buffer.alloc(0);
/**
 * Whole records are handed on at most this much at a time (beside once a chunk), so that csv-parse reads a
 * large chunk in parts, which costs less than one call over it (docs/design/record-reading.md).
 */
const PASS_ON_BYTES = 128 * 1024;
const ignore = () => {};

/**
 * @param {SplitterOptions} options
 */
export function createRecordSplitter({ delimiter, encoding, atFileStart = true, maxRecordBytes = MAX_RECORD_BYTES, onRecords = ignore, onBadRecord = ignore, onBoundary }) {
  /** @type {Splitter} */
  const s = {
    option: encoding,
    decided: undefined,
    wide: false,
    delimiterUnit: delimiter.charCodeAt(0),
    maxRecordBytes,
    onRecords,
    onBadRecord,
    onBoundary,
    opening: atFileStart ? EMPTY : undefined,
    held: EMPTY,
    pos: 0,
    base: 0,
    quoting: { quoted: false, fieldStart: true, stop: 0 },
    consumed: 0,
    lines: 0,
    badLine: undefined,
    skipping: undefined,
  };
  // Mid-file, the encoding was decided by the job's first reader ('auto' there: a checkpoint from before it was carried).
  if (!atFileStart) decide(s, encoding === 'auto' ? 'utf-8' : encoding);
  return {
    /** The encoding the file is read in, once its first bytes were seen. */
    encoding: () => s.decided,
    /** @param {Buffer} chunk */
    write: (chunk) => take(s, chunk, false),
    /** @returns {{ bytes: number, lines: number }} the file's size and line breaks */
    end() {
      take(s, EMPTY, true);
      if (s.onBoundary !== undefined) s.lines += lineBreaksBetween(s, 0, s.held.length);
      if (s.held.length > 0) s.onRecords(s.held, s.consumed);
      return { bytes: s.consumed + s.held.length, lines: s.lines };
    },
  };
}

/** @param {Splitter} s @param {import('./text-encoding.js').Encoding} encoding */
function decide(s, encoding) {
  s.decided = encoding;
  s.wide = unitBytes(encoding) === 2;
}

/**
 * Adds a chunk to the bytes held and scans them. The file's first bytes wait until there are enough to
 * decide the encoding; its byte order mark is dropped.
 * @param {Splitter} s @param {Buffer} chunk @param {boolean} ending  no more bytes will come
 */
function take(s, chunk, ending) {
  let bytes = chunk;
  if (s.opening !== undefined) {
    const first = s.opening.length === 0 ? chunk : Buffer.concat([s.opening, chunk]);
    if (first.length < ENCODING_PROBE_BYTES && !ending) {
      s.opening = first;
      return;
    }
    s.opening = undefined;
    const { encoding, bom } = decideEncoding(s.option, first);
    decide(s, encoding);
    s.consumed += bom;
    bytes = first.subarray(bom);
  }
  s.held = s.held.length === 0 ? bytes : Buffer.concat([s.held, bytes]);
  scan(s, ending);
}

/**
 * Scans `held` from `pos`; hands on every whole record. Returns at the end of the bytes, or where the
 * next byte is needed to decide.
 * @param {Splitter} s @param {boolean} ending
 */
function scan(s, ending) {
  const { quoting } = s;
  s.base = 0;
  for (;;) {
    if (s.skipping !== undefined) {
      if (!skipLine(s, ending)) return;
      continue;
    }
    const found = s.wide ? scanRecord16(s.held, s.pos, ending, s.delimiterUnit, quoting) : scanRecord(s.held, s.pos, ending, s.delimiterUnit, quoting);
    const bad = badRecordAt(s, found, ending);
    if (bad !== undefined) {
      takeOutBadLine(s, bad, ending);
      continue;
    }
    if (found < 0) {
      s.pos = quoting.stop;
      passOn(s);
      return;
    }
    recordEnd(s, found);
  }
}

/**
 * What is wrong with the record under way, when scanRecord's answer (`found`) makes it bad.
 * @param {Splitter} s @param {number} found @param {boolean} ending
 * @returns {Omit<BadRecord, 'text'> | undefined}
 */
function badRecordAt(s, found, ending) {
  if (found === BAD_QUOTE) {
    return { reason: 'MALFORMED_CSV', message: 'a quoted field is closed by a quote followed by other text; double the quotes inside a quoted field ("") or quote the whole field' };
  }
  if (found < 0 && ending && s.quoting.quoted) return { reason: 'MALFORMED_CSV', message: 'a quoted field opened on this line is never closed' };
  // `stop` is where scanning stopped: at the record's line break, or at the end of the bytes so far.
  if (s.quoting.stop - s.base > s.maxRecordBytes) {
    return { reason: 'RECORD_TOO_LARGE', message: `the record is longer than ${s.maxRecordBytes} bytes (an unclosed quote, or a file without line breaks?)` };
  }
  return undefined;
}

/**
 * Takes the bad record that starts after the whole records held out of the bytes, up to its first line
 * break; the lines after it are scanned again as records. A first line longer than the bytes held is
 * dropped as it comes (skipLine).
 * @param {Splitter} s @param {Omit<BadRecord, 'text'>} bad @param {boolean} ending
 */
function takeOutBadLine(s, bad, ending) {
  passOn(s);
  const lineEnd = s.wide ? lineBreakFrom16(s.held) : lineBreakFrom(s.held);
  /** @type {BadRecord} */
  const problem = { ...bad, text: textOf(s, lineEnd === -1 ? s.held.length : lineEnd) };
  if (lineEnd !== -1) dropLine(s, lineEnd, problem);
  else if (ending) dropLine(s, s.held.length, problem);
  else {
    s.skipping = problem;
    s.quoting.quoted = false;
  }
}

/**
 * Drops the bytes of a bad record's first line that is longer than the bytes held, up to its line break.
 * Returns false when the bytes ran out first.
 * @param {Splitter} s @param {boolean} ending
 */
function skipLine(s, ending) {
  const end = s.wide ? lineBreakFrom16(s.held) : lineBreakFrom(s.held);
  if (end === -1 && !ending) {
    // A UTF-16 code unit cut by the chunk's end stays, to be read whole.
    const drop = s.wide ? s.held.length - (s.held.length % 2) : s.held.length;
    s.consumed += drop;
    s.held = s.held.subarray(drop);
    s.pos = 0;
    return false;
  }
  const problem = /** @type {BadRecord} */ (s.skipping);
  s.skipping = undefined;
  dropLine(s, end === -1 ? s.held.length : end, problem);
  return end !== -1;
}

/**
 * Drops `held` up to `lineEnd`, a bad record's first line without its line break. The bad record is
 * reported when its line break is read (recordEnd), or now at the end of the file.
 * @param {Splitter} s @param {number} lineEnd @param {BadRecord} problem
 */
function dropLine(s, lineEnd, problem) {
  s.consumed += lineEnd;
  s.held = s.held.subarray(lineEnd);
  s.pos = 0;
  s.quoting.quoted = false;
  s.quoting.fieldStart = true;
  if (s.held.length === 0) s.onBadRecord(problem, s.consumed);
  else s.badLine = problem;
}

/**
 * A record ends at `boundary` in `held`: it joins the whole records to hand on, or, when it is a bad
 * record's line break, ends that record.
 * @param {Splitter} s @param {number} boundary
 */
function recordEnd(s, boundary) {
  if (s.onBoundary !== undefined) {
    s.lines += lineBreaksBetween(s, s.base, boundary);
    s.onBoundary({ byte: s.consumed + boundary, lines: s.lines });
  }
  s.quoting.fieldStart = true;
  if (s.badLine !== undefined) {
    // Only the line break was left of the bad record: nothing before it is held.
    const problem = s.badLine;
    s.badLine = undefined;
    s.consumed += boundary;
    s.held = s.held.subarray(boundary);
    s.pos = 0;
    s.onBadRecord(problem, s.consumed);
    return;
  }
  s.base = boundary;
  s.pos = boundary;
  // UTF-16 is handed on one record at a time, so that each record's end in the UTF-8 read is exact.
  if (s.wide || boundary >= PASS_ON_BYTES) passOn(s);
}

/** Hands on the whole records found in `held` (they end at `base`). @param {Splitter} s */
function passOn(s) {
  if (s.base === 0) return;
  s.onRecords(s.held.subarray(0, s.base), s.consumed);
  s.consumed += s.base;
  s.held = s.held.subarray(s.base);
  s.pos -= s.base;
  s.base = 0;
}

/** The start of a bad record's first line, as text. @param {Splitter} s @param {number} to */
function textOf(s, to) {
  if (s.wide) return s.held.toString('utf16le', 0, Math.min(to, 400));
  return s.held.toString(s.decided === 'utf-8' ? 'utf8' : 'latin1', 0, Math.min(to, 200));
}

/** Line breaks in held[from, to). @param {Splitter} s @param {number} from @param {number} to */
function lineBreaksBetween(s, from, to) {
  return s.wide ? lineBreaksIn16(s.held, from, to) : lineBreaksIn(s.held, from, to);
}

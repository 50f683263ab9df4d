/**
 * Cuts one CSV object into shards: byte ranges that start and end on record boundaries, each with the
 * number of lines before it (so that its rejects keep the file's line numbers), and the header, read
 * once here and handed to every shard. The object is read once, from start to end, by the quote-aware
 * scanner; no record is held in memory.
 */
import { HeaderError, SourceError } from '../errors.js';
import { createRecordParser } from '../records/csv/csv-records.js';
import { createRecordScanner } from '../records/csv/record-scanner.js';
import { decideEncoding } from '../records/csv/text-encoding.js';

/**
 * @typedef {object} ShardRange
 * @property {number} index  0-based
 * @property {number} start  first byte
 * @property {number} end    one past the last byte
 * @property {number} line   lines of the file before `start`
 * @property {string} [key]   the object, in a job over many (else the job's)
 * @property {string} [etag]  its version, in a job over many
 * @property {string[]} [header]  its header, when it is a range after the header of a CSV object in a job over many
 * @property {import('../records/csv/text-encoding.js').Encoding} [encoding]  likewise
 * @property {import('../config/index.js').Format} [format]  its format, when the planner decided it (a range of a cut object)
 */

/**
 * @typedef {object} ShardPlan
 * @property {string[]} header
 * @property {import('../records/csv/text-encoding.js').Encoding} encoding  the file's, decided at its start: every shard reads in it
 * @property {ShardRange[]} shards  in file order, none empty; fewer than asked for if the file has fewer records
 * @property {number} bytes   size of the object
 * @property {string} [note]  why the plan differs from what was asked for
 */

/**
 * Bytes of the header record read at most; a longer first record is not a header. Every shard's payload
 * carries the header, and a payload may be at most 1 MB (dispatch/continuation.js).
 */
const MAX_HEADER_BYTES = 256 << 10;

/**
 * Where a plan that paused goes on (Plan's progress, kept in the output store between invocations): a
 * record boundary and the lines before it, what the file's start said (its header and encoding), and the
 * cuts made so far.
 * @typedef {object} PlanProgress
 * @property {number} byte   a record boundary: the scan goes on from here
 * @property {number} lines  line breaks before it
 * @property {string[]} header
 * @property {import('../records/csv/text-encoding.js').Encoding} encoding
 * @property {ShardRange[]} ranges  the cuts so far; the last runs to the object's end
 */

/**
 * @param {AsyncIterable<Buffer>} body  the object from byte 0, or from `resume.byte`
 * @param {object} options
 * @param {number} options.bytes      the object's size
 * @param {number} options.shards     how many shards are wanted
 * @param {string} options.delimiter
 * @param {import('../records/csv/text-encoding.js').EncodingOption} [options.encoding]
 * @param {string} options.where      s3://bucket/key, for messages
 * @param {PlanProgress} [options.resume]  where an earlier invocation paused
 * @param {() => boolean} [options.pause]  whether to pause now (the invocation's time): asked after each chunk
 * @returns {Promise<ShardPlan | { paused: PlanProgress }>}  the object is read up to its last cut, not past it
 */
export async function planShards(body, { bytes, shards, delimiter, encoding = 'auto', where, resume, pause = () => false }) {
  if (resume !== undefined) return goOn(body, { bytes, shards, delimiter, where, resume, pause });
  /** @type {Buffer[]} */
  const head = [];
  let headBytes = 0;
  /** @type {{ byte: number, lines: number } | undefined} */
  let headerEnd;
  /** @type {ReturnType<typeof createCuts> | undefined} */
  let cuts;
  /** @type {{ byte: number, lines: number } | undefined} */
  let last;

  const scanner = createRecordScanner({
    delimiter,
    encoding,
    onBoundary(boundary) {
      if (headerEnd === undefined) {
        // csv-parse skips empty lines before the header: the header ends at the first non-empty record.
        if (/^[\r\n]*$/.test(headText(Buffer.concat(head).subarray(0, boundary.byte), encoding))) return false;
        headerEnd = boundary;
        cuts = createCuts({ start: boundary.byte, line: boundary.lines, bytes, shards });
        last = boundary;
        return cuts.done();
      }
      last = boundary;
      return /** @type {ReturnType<typeof createCuts>} */ (cuts).at(boundary.byte, boundary.lines);
    },
  });

  let pausedAt;
  let read = 0;
  for await (const chunk of body) {
    if (headerEnd === undefined && headBytes < MAX_HEADER_BYTES) {
      head.push(chunk);
      headBytes += chunk.length;
    }
    scanner.scan(chunk);
    read += chunk.length;
    // Past the last cut, the rest of the object tells the plan nothing.
    if (cuts?.done()) break;
    if (cuts !== undefined && last !== undefined && pause()) {
      pausedAt = last;
      break;
    }
  }
  const ended = cuts?.done() !== true && pausedAt === undefined;
  if (ended) {
    const scanned = scanner.end();
    if (scanned.bytes !== bytes) throw new SourceError(`reading ${where} for the shard plan gave ${scanned.bytes} bytes, but the object has ${bytes}; run the job again`);
  }

  if ((headerEnd?.byte ?? read) > headBytes && headBytes >= MAX_HEADER_BYTES) {
    throw new HeaderError(`the first record of ${where} is longer than ${MAX_HEADER_BYTES} bytes, too long for a header; check the delimiter and the first line`);
  }
  const headerBytes = Buffer.concat(head).subarray(0, headerEnd?.byte ?? headBytes);
  // The scanner decided the encoding from the file's first bytes, as the first segment would.
  const decided = /** @type {import('../records/csv/text-encoding.js').Encoding} */ (scanner.encoding());
  const header = await readHeader(headerBytes, delimiter, decided, where);
  if (cuts === undefined) {
    // The header is the whole file (no line break after it): no rows, one empty shard.
    return { header, encoding: decided, shards: [], bytes, note: 'the file holds a header and no rows' };
  }
  if (pausedAt !== undefined) return { paused: { byte: pausedAt.byte, lines: pausedAt.lines, header, encoding: decided, ranges: cuts.ranges } };
  return finishedPlan(cuts.ranges, { header, encoding: decided, bytes, shards });
}

/**
 * A paused plan going on from its progress: the object's bytes from that boundary, read as a segment
 * starting there reads them (the encoding decided at the file's start), cut on at the targets left.
 * @param {AsyncIterable<Buffer>} body  from resume.byte
 * @param {{ bytes: number, shards: number, delimiter: string, where: string, resume: PlanProgress, pause: () => boolean }} options
 * @returns {Promise<ShardPlan | { paused: PlanProgress }>}
 */
async function goOn(body, { bytes, shards, delimiter, where, resume, pause }) {
  const [first] = resume.ranges;
  const cuts = createCuts({ start: first.start, line: first.line, bytes, shards, ranges: resume.ranges });
  let last = { byte: resume.byte, lines: resume.lines };
  const scanner = createRecordScanner({
    delimiter,
    encoding: resume.encoding,
    atFileStart: false,
    onBoundary(boundary) {
      last = { byte: resume.byte + boundary.byte, lines: resume.lines + boundary.lines };
      return cuts.at(last.byte, last.lines);
    },
  });
  let position = resume.byte;
  for await (const chunk of body) {
    scanner.scan(chunk);
    position += chunk.length;
    if (cuts.done()) break;
    // Paused with no boundary found since the last pause: the next invocation would start where this one did.
    if (last.byte > resume.byte && pause()) return { paused: { ...resume, byte: last.byte, lines: last.lines, ranges: cuts.ranges } };
  }
  if (!cuts.done()) {
    const scanned = scanner.end();
    if (resume.byte + scanned.bytes !== bytes) throw new SourceError(`reading ${where} for the shard plan gave ${position} bytes, but the object has ${bytes}; run the job again`);
  }
  return finishedPlan(cuts.ranges, { header: resume.header, encoding: resume.encoding, bytes, shards });
}

/**
 * A plan asked for without `pause`, which never pauses.
 * @template T @param {T} plan @returns {Exclude<T, { paused: unknown }>}
 */
export function unpaused(plan) {
  if (plan !== null && typeof plan === 'object' && 'paused' in plan) throw new Error('a plan made without pause paused');
  return /** @type {Exclude<T, { paused: unknown }>} */ (plan);
}

/**
 * The plan from its cuts: the ranges that hold bytes, numbered, and why there are fewer than asked for.
 * @param {ShardRange[]} ranges
 * @param {{ header: string[], encoding: import('../records/csv/text-encoding.js').Encoding, bytes: number, shards: number }} plan
 * @returns {ShardPlan}
 */
function finishedPlan(ranges, { header, encoding, bytes, shards }) {
  const planned = ranges.filter((range) => range.end > range.start).map((range, index) => ({ ...range, index }));
  const note = planned.length < shards ? `asked for ${shards} shards; the file has record boundaries for ${planned.length}` : undefined;
  return { header, encoding, shards: planned, bytes, ...(note === undefined ? {} : { note }) };
}

/**
 * Ranges from `start` to the object's end, cut at the first record boundary at or past each of n equal
 * slices of those bytes (CSV's after its header, JSON's after any line break).
 * @param {{ start: number, line: number, bytes: number, shards: number, ranges?: ShardRange[] }} options  line: lines
 *   before `start`; ranges: the cuts a paused plan made (the targets they passed are behind them)
 */
function createCuts({ start, line, bytes, shards, ranges: made }) {
  /** Where shards 1..n-1 should start at the earliest. */
  /** @type {number[]} */
  const targets = [];
  for (let k = 1; k < shards; k++) targets.push(start + Math.ceil(((bytes - start) * k) / shards));
  /** @type {ShardRange[]} */
  const ranges = made === undefined ? [{ index: 0, start, end: bytes, line }] : made.map((range) => ({ ...range }));
  const lastStart = ranges[ranges.length - 1].start;
  while (made !== undefined && targets.length > 0 && targets[0] <= lastStart) targets.shift();
  const done = () => targets.length === 0;
  return {
    ranges,
    done,
    /**
     * A record boundary: a new range starts there if it is past the next target. True once every cut is made.
     * @param {number} byte @param {number} lines  lines before it
     */
    at(byte, lines) {
      if (done() || byte < targets[0] || byte >= bytes) return done();
      ranges[ranges.length - 1].end = byte;
      ranges.push({ index: ranges.length, start: byte, end: bytes, line: lines });
      while (targets.length > 0 && targets[0] <= byte) targets.shift();
      return done();
    },
  };
}

/**
 * The file's first bytes as text, without the byte order mark, as the first segment would read them.
 * @param {Buffer} bytes @param {import('../records/csv/text-encoding.js').EncodingOption} option
 */
function headText(bytes, option) {
  const { encoding, bom } = decideEncoding(option, bytes);
  return bytes.toString(encoding === 'utf-8' ? 'utf8' : encoding === 'utf-16le' ? 'utf16le' : 'latin1', bom);
}

/**
 * The header, read by the record reader a segment uses, so that a header an import would refuse (bytes
 * that are not text, a stray quote) is refused here too, with the same message.
 * @param {Buffer} bytes  the header record with its line break (and any BOM and empty lines before it)
 * @param {string} delimiter @param {import('../records/csv/text-encoding.js').EncodingOption} encoding @param {string} where
 * @returns {Promise<string[]>}
 */
async function readHeader(bytes, delimiter, encoding, where) {
  if (/^[\r\n]*$/.test(headText(bytes, encoding))) throw new HeaderError(`${where} is empty: there is no header to plan shards by; upload the CSV with its header line`);
  const records = createRecordParser({ delimiter, encoding });
  records.input.end(bytes);
  for await (const output of records.parser) {
    const row = records.toRow(output);
    if (row.fields === undefined) throw new HeaderError(`the header line cannot be read: ${row.message}`);
    return row.fields;
  }
  throw new HeaderError(`the header of ${where} cannot be read as one CSV record; fix the first line`);
}

/**
 * Cuts a JSON Lines object (JSON Lines, DynamoDB JSON) into shards: a line is a record and JSON has no raw
 * line break inside a value, so a shard may start after any LF. The object is read up to its last cut,
 * counting lines, so that each shard's rejects keep the file's line numbers.
 * @param {AsyncIterable<Buffer>} body  the object from `from` (or from `resume.byte`)
 * @param {{ bytes: number, shards: number, where: string, from?: number, line?: number, resume?: Pick<PlanProgress, 'byte' | 'lines' | 'ranges'>, pause?: () => boolean }} options  bytes: where
 *   the body ends in the object; from: where it starts (lines: lines before it); resume, pause: as planShards's
 * @returns {Promise<{ shards: ShardRange[], note?: string } | { paused: Pick<PlanProgress, 'byte' | 'lines' | 'ranges'> }>}
 */
export async function planLineShards(body, { bytes, shards, where, from = 0, line = 0, resume, pause = () => false }) {
  const first = resume?.ranges[0];
  const cuts = createCuts({ start: first?.start ?? from, line: first?.line ?? line, bytes, shards, ...(resume === undefined ? {} : { ranges: resume.ranges }) });
  let position = resume?.byte ?? from;
  let lines = resume?.lines ?? line;
  let last = { byte: position, lines };
  for await (const chunk of body) {
    for (let at = chunk.indexOf(0x0a); at !== -1 && !cuts.done(); at = chunk.indexOf(0x0a, at + 1)) {
      last = { byte: position + at + 1, lines: ++lines };
      cuts.at(last.byte, last.lines);
    }
    position += chunk.length;
    // Past the last cut, the rest of the object tells the plan nothing.
    if (cuts.done()) break;
    if (last.byte > (resume?.byte ?? from) && pause()) return { paused: { byte: last.byte, lines: last.lines, ranges: cuts.ranges } };
  }
  if (!cuts.done() && position !== bytes) throw new SourceError(`reading ${where} for the shard plan gave ${position} bytes, but the object has ${bytes}; run the job again`);
  const { ranges } = cuts;
  const note = ranges.length < shards ? `asked for ${shards} shards; the file has line breaks for ${ranges.length}` : undefined;
  return { shards: ranges, ...(note === undefined ? {} : { note }) };
}

/**
 * Cuts a stretch of a CSV object whose header is known (a shard's range, read by `spread`) into ranges on
 * record boundaries, as planShards cuts a whole object.
 * @param {AsyncIterable<Buffer>} body  the object's bytes from `from` to `bytes`
 * @param {{ from: number, line: number, bytes: number, ranges: number, delimiter: string, encoding: import('../records/csv/text-encoding.js').Encoding, where: string }} options
 * @returns {Promise<ShardRange[]>}
 */
export async function planRecordRanges(body, { from, line, bytes, ranges, delimiter, encoding, where }) {
  const cuts = createCuts({ start: from, line, bytes, shards: ranges });
  const scanner = createRecordScanner({ delimiter, encoding, onBoundary: (boundary) => cuts.at(from + boundary.byte, line + boundary.lines) });
  let position = from;
  for await (const chunk of body) {
    scanner.scan(chunk);
    position += chunk.length;
  }
  scanner.end();
  if (position !== bytes) throw new SourceError(`reading ${where} to cut it for spread gave ${position - from} bytes, but the range has ${bytes - from}; run the job again`);
  return cuts.ranges;
}

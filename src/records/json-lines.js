/**
 * A JSON Lines byte stream (JSON Lines, or DynamoDB JSON as an export writes it) as an ordered stream of
 * records, one per line, each with its line number and the bytes up to its end, in the same shape as the
 * CSV reader's (csv/csv-records.js), so that the read loop, checkpoints and shards take either. A line is
 * one record: JSON has no raw line break inside a value, so any LF ends one, and a shard or checkpoint
 * may start after any LF. Lines are UTF-8 (as JSON must be); a UTF-8 byte order mark at the file's start
 * is dropped; a CR before the LF is dropped; blank lines are skipped but counted.
 * A line that is not UTF-8 or longer than MAX_RECORD_BYTES is a skip with its reason; the JSON itself is
 * read by the item stage, which rejects a line that is not JSON with its own reason.
 */
import { Transform } from 'node:stream';
import { HeaderError } from '../errors.js';
import { MAX_RECORD_BYTES } from './record-size.js';

const LF = 0x0a;
const CR = 0x0d;
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BLANK = /^[ \t]*$/;
const EMPTY = Buffer.alloc(0);

/**
 * What the stage emits for a line: a record, or a skip with its reason.
 * @typedef {{ record: string[], line: number, endByte: number } | { line: number, endByte: number, reason: 'RECORD_TOO_LARGE' | 'INVALID_UTF8', message: string, text?: string }} LineOutput
 */

/**
 * The lines read so far: the line under way is held in `pending` until its LF.
 * @typedef {object} LineState
 * @property {number} line      lines emitted so far, from the file's start
 * @property {number} consumed  bytes of the stream read so far
 * @property {boolean} atStart  the next line is the file's first (where a byte order mark is)
 * @property {Buffer[]} pending
 * @property {number} pendingBytes
 * @property {boolean} tooLong  the line under way is past MAX_RECORD_BYTES: its bytes are not kept
 */

/**
 * @param {{ lineOffset?: number, atFileStart?: boolean }} options  lineOffset: lines before the first byte
 */
export function createLineParser({ lineOffset = 0, atFileStart = true }) {
  /** @type {LineState} */
  const state = { line: lineOffset, consumed: 0, atStart: atFileStart, pending: [], pendingBytes: 0, tooLong: false };
  const parser = new Transform({
    readableObjectMode: true,
    transform(chunk, _encoding, done) {
      try {
        splitLines(state, chunk, (output) => this.push(output));
        done();
      } catch (error) {
        done(/** @type {Error} */ (error));
      }
    },
    flush(done) {
      try {
        if (state.pendingBytes > 0 || state.tooLong) {
          const output = lineOutput(state, Buffer.concat(state.pending), state.consumed);
          if (output !== undefined) this.push(output);
        }
        done();
      } catch (error) {
        done(/** @type {Error} */ (error));
      }
    },
  });

  /** Lines of the file up to the end of the last row returned by toRow. */
  let lastLine = lineOffset;
  /**
   * @param {LineOutput} output
   * @returns {import('./csv/csv-records.js').CsvRecord | import('./csv/csv-records.js').CsvSkip}
   */
  function toRow(output) {
    lastLine = output.line;
    if ('record' in output) return { fields: output.record, line: output.line, endByte: output.endByte };
    return { fields: undefined, line: output.line, reason: output.reason, message: output.message, partialFields: output.text === undefined ? [] : [output.text], endByte: output.endByte };
  }
  return { input: parser, parser, toRow, linesRead: () => lastLine, encoding: () => /** @type {const} */ ('utf-8') };
}

/**
 * Emits each line that ends in `chunk` and holds the rest. A line past MAX_RECORD_BYTES keeps none of its
 * bytes: it is skipped whole at its LF.
 * @param {LineState} state @param {Buffer} chunk @param {(output: LineOutput) => void} push
 */
function splitLines(state, chunk, push) {
  let from = 0;
  for (;;) {
    const at = chunk.indexOf(LF, from);
    if (at === -1) break;
    const piece = chunk.subarray(from, at);
    // A line is held to the bound when it ends too, not only while its bytes are still arriving.
    if (state.pendingBytes + piece.length > MAX_RECORD_BYTES) state.tooLong = true;
    const bytes = state.tooLong ? EMPTY : state.pending.length === 0 ? piece : Buffer.concat([...state.pending, piece]);
    state.consumed += at + 1 - from;
    state.pending = [];
    state.pendingBytes = 0;
    const output = lineOutput(state, bytes, state.consumed);
    if (output !== undefined) push(output);
    from = at + 1;
  }
  const rest = chunk.subarray(from);
  state.consumed += rest.length;
  if (!state.tooLong && state.pendingBytes + rest.length > MAX_RECORD_BYTES) {
    state.tooLong = true;
    state.pending = [];
    state.pendingBytes = 0;
  } else if (!state.tooLong && rest.length > 0) {
    state.pending.push(Buffer.from(rest));
    state.pendingBytes += rest.length;
  }
}

/**
 * The next line as a record or a skip; undefined for a blank line (counted, not emitted).
 * @param {LineState} state @param {Buffer} bytes  the line without its LF @param {number} endByte
 * @returns {LineOutput | undefined}
 */
function lineOutput(state, bytes, endByte) {
  const line = ++state.line;
  // Only the file's first line may start with a byte order mark, even when it is skipped as too long.
  const first = state.atStart;
  state.atStart = false;
  if (state.tooLong) {
    state.tooLong = false;
    return { line, endByte, reason: 'RECORD_TOO_LARGE', message: `line ${line}: the line is longer than ${MAX_RECORD_BYTES} bytes; DynamoDB's items are at most 400 KB, so it cannot be one` };
  }
  const body = lineBody(bytes, first);
  let text;
  try {
    text = decoder.decode(body);
  } catch {
    return { line, endByte, reason: 'INVALID_UTF8', message: `line ${line}: the line has bytes that are not UTF-8; JSON is UTF-8`, text: body.toString('utf8') };
  }
  if (BLANK.test(text)) return undefined;
  return { record: [text], line, endByte };
}

/**
 * A line's bytes without a UTF-8 byte order mark (the file's first line only) or a CR before its LF.
 * @param {Buffer} bytes @param {boolean} first
 */
function lineBody(bytes, first) {
  let body = bytes;
  if (first) {
    if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
    else if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) {
      throw new HeaderError('the file starts with a UTF-16 byte order mark; JSON Lines are read as UTF-8: save the file as UTF-8 and import it again');
    }
  }
  if (body.length > 0 && body[body.length - 1] === CR) body = body.subarray(0, -1);
  return body;
}

/**
 * A JSON Lines byte stream (JSON Lines, or DynamoDB JSON as an export writes it) as an ordered stream of
 * records, one per line, each with its line number and the bytes up to its end, in the same shape as the
 * CSV reader's (csv-records.js), so that the read loop, checkpoints and shards take either. A line is
 * one record: JSON has no raw line break inside a value, so any LF ends one, and a shard or checkpoint
 * may start after any LF. Lines are UTF-8 (as JSON must be); a UTF-8 byte order mark at the file's start
 * is dropped; a CR before the LF is dropped; blank lines are skipped but counted.
 * A line that is not UTF-8 or longer than MAX_RECORD_BYTES is a skip with its reason; the JSON itself is
 * read by the item stage, which rejects a line that is not JSON with its own reason.
 */
import { Transform } from 'node:stream';
import { HeaderError } from '../errors.js';
import { MAX_RECORD_BYTES } from './record-guard.js';

const LF = 0x0a;
const CR = 0x0d;
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BLANK = /^[ \t]*$/;
const EMPTY = Buffer.alloc(0);

/**
 * @param {{ lineOffset?: number, atFileStart?: boolean }} options  lineOffset: lines before the first byte
 */
export function createLineParser({ lineOffset = 0, atFileStart = true }) {
  let line = lineOffset;
  let consumed = 0;
  let atStart = atFileStart;
  /** @type {Buffer[]} */
  let pending = [];
  let pendingBytes = 0;
  let tooLong = false;

  /** @param {Transform} stream @param {Buffer} bytes  the line without its LF @param {number} endByte */
  function emitLine(stream, bytes, endByte) {
    line++;
    // Only the file's first line may start with a byte order mark, even when it is skipped as too long.
    const first = atStart;
    atStart = false;
    if (tooLong) {
      tooLong = false;
      stream.push({ line, endByte, reason: 'RECORD_TOO_LARGE', message: `line ${line}: the line is longer than ${MAX_RECORD_BYTES} bytes; DynamoDB's items are at most 400 KB, so it cannot be one` });
      return;
    }
    let body = bytes;
    if (first) {
      if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
      else if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) {
        throw new HeaderError('the file starts with a UTF-16 byte order mark; JSON Lines are read as UTF-8: save the file as UTF-8 and import it again');
      }
    }
    if (body.length > 0 && body[body.length - 1] === CR) body = body.subarray(0, -1);
    let text;
    try {
      text = decoder.decode(body);
    } catch {
      stream.push({ line, endByte, reason: 'INVALID_UTF8', message: `line ${line}: the line has bytes that are not UTF-8; JSON is UTF-8`, text: body.toString('utf8') });
      return;
    }
    if (BLANK.test(text)) return;
    stream.push({ record: [text], line, endByte });
  }

  const parser = new Transform({
    readableObjectMode: true,
    transform(chunk, _encoding, done) {
      try {
        let from = 0;
        for (;;) {
          const at = chunk.indexOf(LF, from);
          if (at === -1) break;
          const piece = chunk.subarray(from, at);
          // A line is held to the bound when it ends too, not only while its bytes are still arriving.
          if (pendingBytes + piece.length > MAX_RECORD_BYTES) tooLong = true;
          const bytes = tooLong ? EMPTY : pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
          consumed += at + 1 - from;
          pending = [];
          pendingBytes = 0;
          emitLine(this, bytes, consumed);
          from = at + 1;
        }
        const rest = chunk.subarray(from);
        consumed += rest.length;
        // A line past the bound keeps none of its bytes: it is skipped whole at its LF.
        if (!tooLong && pendingBytes + rest.length > MAX_RECORD_BYTES) {
          tooLong = true;
          pending = [];
          pendingBytes = 0;
        } else if (!tooLong && rest.length > 0) {
          pending.push(Buffer.from(rest));
          pendingBytes += rest.length;
        }
        done();
      } catch (error) {
        done(/** @type {Error} */ (error));
      }
    },
    flush(done) {
      try {
        if (pendingBytes > 0 || tooLong) emitLine(this, Buffer.concat(pending), consumed);
        done();
      } catch (error) {
        done(/** @type {Error} */ (error));
      }
    },
  });

  /**
   * @param {any} output
   * @returns {import('./csv-records.js').CsvRecord | import('./csv-records.js').CsvSkip}
   */
  function toRow(output) {
    lastLine = output.line;
    if (output.record !== undefined) return { fields: output.record, line: output.line, endByte: output.endByte };
    return { fields: undefined, line: output.line, reason: output.reason, message: output.message, partialFields: output.text === undefined ? [] : [output.text], endByte: output.endByte };
  }

  /** Lines of the file up to the end of the last row returned by toRow. */
  let lastLine = lineOffset;
  return { input: parser, parser, toRow, linesRead: () => lastLine, encoding: () => /** @type {const} */ ('utf-8') };
}

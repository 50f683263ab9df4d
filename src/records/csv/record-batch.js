/**
 * The whole records the splitter hands on during one write, as csv-parse is to read them: UTF-16 records
 * become UTF-8 (csv-parse then only reads UTF-8 or single-byte text), and text that is not valid in the
 * encoding is noted where it is. csv-parse says where each record ends in the bytes it read; the batch
 * turns that into the record's end in the file, and says whether the record holds invalid text.
 */
import { findInvalidUtf8, utf16leAsUtf8 } from './text-checks.js';

export function createRecordBatch() {
  /** The runs of records, as csv-parse reads them. @type {Buffer[]} */
  let runs = [];
  let length = 0;
  // Where each run ends, in the bytes csv-parse reads and in the file. Within a run the two advance
  // together, except in a UTF-16 run, which is one record: its end is the only offset asked for.
  /** @type {number[]} */
  let readEnds = [];
  /** @type {number[]} */
  let fileEnds = [];
  let run = 0; // the run of the record asked about last: records are asked about in order
  /** Offsets, in the bytes csv-parse reads, of text not valid in the encoding, in order. @type {number[]} */
  let invalid = [];
  let nextInvalid = 0;
  // Invalid text a batch's records did not take (it was in a record csv-parse skipped): the next record's.
  let invalidLeft = false;

  return {
    /**
     * @param {Buffer} bytes  whole records in the file's encoding @param {number} fileStart  their offset in the file
     * @param {import('./text-encoding.js').Encoding} encoding  the file's
     */
    add(bytes, fileStart, encoding) {
      let text = bytes;
      if (encoding === 'utf-16le') {
        const record = utf16leAsUtf8(bytes);
        text = record.utf8;
        if (record.invalid) invalid.push(length);
      } else if (encoding === 'utf-8') findInvalidUtf8(bytes, length, invalid);
      runs.push(text);
      length += text.length;
      readEnds.push(length);
      fileEnds.push(fileStart + bytes.length);
    },
    isEmpty: () => runs.length === 0,
    /** Bytes csv-parse is to read. */
    length: () => length,
    /** The batch as csv-parse reads it. */
    bytes: () => (runs.length === 1 ? runs[0] : Buffer.concat(runs, length)),
    /** The file offset of a record's end, from csv-parse's. @param {number} readEnd */
    fileOffset(readEnd) {
      while (readEnds[run] < readEnd) run++;
      return fileEnds[run] - (readEnds[run] - readEnd);
    },
    /** Whether invalid text comes before this record's end and after the previous one's. @param {number} readEnd */
    invalidBefore(readEnd) {
      let found = invalidLeft;
      invalidLeft = false;
      while (nextInvalid < invalid.length && invalid[nextInvalid] < readEnd) {
        nextInvalid++;
        found = true;
      }
      return found;
    },
    /** A bad record came after the batch: invalid text before it is in it, not in the next record. */
    forgetInvalid() {
      invalidLeft = false;
    },
    /** Once the batch was parsed. */
    clear() {
      invalidLeft ||= nextInvalid < invalid.length;
      runs = [];
      length = 0;
      readEnds = [];
      fileEnds = [];
      run = 0;
      invalid = [];
      nextInvalid = 0;
    },
  };
}

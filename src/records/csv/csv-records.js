/**
 * A CSV byte stream as an ordered stream of rows: records, each with the line it starts on and its end in
 * the file, and malformed records, each with its line and what is wrong. Reading goes on after a
 * malformed record. One stream stage, in file order:
 *   bytes -> record-splitter.js (the encoding, strict quoting, a bound on a record's size)
 *         -> record-batch.js (UTF-16 as UTF-8, the text checked)
 *         -> csv-parse, a batch of whole records at a time (csv-parse/sync, its on_record callback)
 *         -> csv-rows.js (line numbers, field counts) -> rows.
 * The splitter hands csv-parse whole records only, so each batch is read to its end before the next
 * bytes are taken, and a bad record's row comes out between the rows before and after it.
 */
import { Transform } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { lineBreaksIn } from './quote-scan.js';
import { csvReadingOptions } from './csv-options.js';
import { createCsvRows } from './csv-rows.js';
import { createRecordBatch } from './record-batch.js';
import { createRecordSplitter } from './record-splitter.js';
import { windows1252Fields } from './windows-1252.js';

/**
 * A batch is read once it holds this much (or before a bad record, or at the end): each csv-parse call has
 * a fixed cost before its first byte (its options are normalized per call), which the small chunks of a
 * network or a decompressor would otherwise pay every few records (docs/design/record-reading.md).
 */
const MIN_BATCH_BYTES = 16 * 1024;

/** @typedef {import('./csv-rows.js').CsvRecord} CsvRecord */
/** @typedef {import('./csv-rows.js').CsvSkip} CsvSkip */

/**
 * The stage to pipe bytes into and read rows from (`input` and `parser` are the one stream), and `toRow`,
 * to be called on each row read, in order, for `linesRead`. A continuation or a shard reads from the
 * middle of a file: `lineOffset` is the number of lines before its first byte, so that line numbers stay
 * those of the whole file, and `fieldCount` the header's length, so that every record is held to the
 * header's count (by default the first record, the header, sets it).
 * `encoding` is the option's value at the file's start, and the job's decided encoding past it.
 * @param {{ delimiter: string, lineOffset?: number, fieldCount?: number, encoding?: import('./text-encoding.js').EncodingOption, atFileStart?: boolean }} options
 */
export function createRecordParser({ delimiter, lineOffset = 0, fieldCount, encoding = 'auto', atFileStart = true }) {
  const batch = createRecordBatch();
  const splitter = createRecordSplitter({
    delimiter,
    encoding,
    atFileStart,
    onRecords(bytes, fileStart) {
      batch.add(bytes, fileStart, /** @type {import('./text-encoding.js').Encoding} */ (splitter.encoding()));
      parseBatch(MIN_BATCH_BYTES);
    },
    onBadRecord(bad, fileEnd) {
      parseBatch(0);
      batch.forgetInvalid();
      stage.push(rows.badRecord(bad, fileEnd));
    },
  });
  const rows = createCsvRows({ lineOffset, fieldCount, decodeFields: encoding === 'windows-1252' ? windows1252Fields : undefined, encoding: splitter.encoding });
  const singleByte = encoding === 'windows-1252' || encoding === 'latin1';
  const parseBatch = createBatchParser({ delimiter, singleByte, batch, rows, push: (row) => stage.push(row) });

  /** @param {(error?: Error) => void} done @param {() => void} step @param {number} atLeast  bytes the batch must hold to be read */
  const run = (done, step, atLeast) => {
    try {
      step();
      parseBatch(atLeast);
      done();
    } catch (error) {
      done(/** @type {Error} */ (error));
    }
  };
  const stage = new Transform({
    readableObjectMode: true,
    transform: (chunk, _encoding, done) => run(done, () => splitter.write(chunk), MIN_BATCH_BYTES),
    flush: (done) => run(done, () => splitter.end(), 0),
  });

  let linesRead = lineOffset;
  return {
    input: stage,
    parser: stage,
    /** @param {CsvRecord | CsvSkip} row  read from the stage @returns {CsvRecord | CsvSkip} */
    toRow(row) {
      linesRead = row.lastLine ?? linesRead;
      return row;
    },
    /** Lines of the file up to the end of the last row given to toRow. */
    linesRead: () => linesRead,
    encoding: splitter.encoding,
  };
}

/**
 * Reads the batch, once it holds records, with csv-parse, whose callbacks turn each record into a row as
 * it ends, while its counts (line, empty lines, bytes) are those at the record's end.
 * @param {{ delimiter: string, singleByte: boolean, batch: ReturnType<typeof createRecordBatch>, rows: ReturnType<typeof createCsvRows>, push: (row: CsvRecord | CsvSkip) => void }} options
 */
function createBatchParser({ delimiter, singleByte, batch, rows, push }) {
  let lastEnd = 0; // where the batch's last record ended, in the bytes csv-parse read
  /** @type {import('csv-parse').Options} */
  const options = {
    ...csvReadingOptions(delimiter),
    // The batch is UTF-8 (UTF-16 was made UTF-8) or single-byte text. Latin-1 maps each byte to one
    // character; windows-1252 differs only in 0x80-0x9F, mapped after (windows-1252.js).
    encoding: singleByte ? 'latin1' : 'utf8',
    // Field counts are checked in csv-rows.js against the header: csv-parse would take the first record
    // it sees as the reference, which mid-file may be a bad one.
    relax_column_count: true,
    skip_records_with_error: true,
    on_record(fields, info) {
      push(rows.record(fields, info.lines, info.empty_lines, batch.fileOffset(info.bytes), batch.invalidBefore(info.bytes)));
      lastEnd = info.bytes;
      return undefined; // the row is out; csv-parse keeps nothing
    },
    on_skip(error) {
      if (error !== undefined) push(rows.skipped(error));
    },
  };
  /** @param {number} atLeast */
  return (atLeast) => {
    if (batch.isEmpty() || batch.length() < atLeast) return;
    const bytes = batch.bytes();
    lastEnd = 0;
    parse(bytes, options);
    rows.endBatch(lineBreaksIn(bytes, lastEnd, bytes.length));
    batch.clear();
  };
}

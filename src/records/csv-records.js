/**
 * A CSV byte stream as an ordered stream of records, each with the line it starts on, and of malformed
 * records, each with its line and what is wrong. Parsing goes on after a malformed record. The bytes go
 * through the record guard (the encoding, strict quoting, a bound on a record's size, the text checked)
 * into csv-parse.
 */
import { parse } from 'csv-parse';
import { csvReadingOptions } from './csv-options.js';
import { createRecordGuard, STAND_IN } from './record-guard.js';

/**
 * @typedef {object} CsvRecord
 * @property {string[]} fields
 * @property {number} line      line where the record starts (1-based)
 * @property {number} endByte   bytes of the stream consumed up to the end of this record
 */

/**
 * @typedef {object} CsvSkip
 * @property {undefined} fields
 * @property {number} line
 * @property {'MALFORMED_CSV' | 'FIELD_COUNT' | 'RECORD_TOO_LARGE' | 'INVALID_UTF8' | 'INVALID_UTF16'} reason
 * @property {string} message
 * @property {string[]} partialFields  what could be read of the record
 * @property {number} [endByte]  bytes consumed up to the end of this record, when known
 */

/**
 * The parser to pipe bytes into, and `toRow`, which turns each of its outputs, read in order, into a
 * record or a skip with its line number. A continuation or a shard parses from the middle of a file:
 * `lineOffset` is the number of lines before its first byte, so that line numbers stay those of the whole
 * file, and `fieldCount` the header's length, so that every record is held to the header's count (by
 * default the first record, the header, sets it).
 * `encoding` is the option's value at the file's start, and the job's decided encoding past it.
 * @param {{ delimiter: string, lineOffset?: number, fieldCount?: number, encoding?: import('./text-encoding.js').EncodingOption, atFileStart?: boolean }} options
 */
export function createRecordParser({ delimiter, lineOffset = 0, fieldCount, encoding = 'auto', atFileStart = true }) {
  let expectedFields = fieldCount;
  const guard = createRecordGuard({ delimiter, encoding, atFileStart });
  const { problems, shifts, invalidText } = guard;
  const singleByte = encoding === 'windows-1252' || encoding === 'latin1';
  // File offsets are parser offsets plus the length the guard's stand-ins took out or put in before them.
  let shift = 0;
  const fileOffset = (/** @type {number} */ parserBytes) => {
    while (shifts.length > 0 && shifts[0].at <= parserBytes) shift += /** @type {{ delta: number }} */ (shifts.shift()).delta;
    return parserBytes + shift;
  };
  const decodeFields = encoding === 'windows-1252' ? windows1252Fields : undefined;
  // Start line of the next record: the line after the previous record's end, past skipped empty lines.
  // Records and skips pass through one ordered stream, so this bookkeeping runs in file order.
  // csv-parse counts a CRLF inside a quoted field as two lines, so its count is only trusted to say
  // whether a record spans lines; then the breaks in its fields are counted here.
  let lastEndLine = 0;
  let lastEmptyLines = 0;
  /** @param {number} parserEndLine @param {number} emptyLines @param {string[]} fields */
  function startLine(parserEndLine, emptyLines, fields) {
    const line = lastEndLine + 1 + (emptyLines - lastEmptyLines);
    lastEndLine = parserEndLine > line ? line + lineBreaksIn(fields) : line;
    lastEmptyLines = emptyLines;
    return line;
  }

  const parser = parse({
    ...csvReadingOptions(delimiter),
    // The guard passes UTF-16 on as UTF-8. Latin-1 maps each byte to one character; windows-1252 differs
    // only in 0x80-0x9F, mapped after.
    encoding: singleByte ? 'latin1' : 'utf8',
    // Field counts are checked in toRow against the header: csv-parse would take the first record it
    // sees as the reference, which mid-file may be a bad one.
    relax_column_count: true,
    skip_records_with_error: true,
    // Called while parsing, ahead of records still buffered for the reader: push the skip into the
    // same readable buffer so that the reader sees records and skips in file order.
    on_skip: (error) => {
      parser.push({ skipped: error });
    },
  });
  // Where each record ends (line and byte) and how many empty lines were skipped so far. csv-parse keeps
  // these counts current in `parser.info` and pushes each record the moment it ends, so they are read
  // there as the record is pushed. (Its `info: true` option copies the whole state twice per record:
  // a quarter of the parser's time.) test/unit/records/csv-records.test.js and the fixtures check the line numbers.
  const pushOutput = parser.push.bind(parser);
  const counts = parser.info;
  parser.push = (/** @type {any} */ output) =>
    Array.isArray(output) ? pushOutput({ record: output, lines: counts.lines, emptyLines: counts.empty_lines, bytes: counts.bytes }) : pushOutput(output);

  /**
   * @param {any} output  one value read from the parser
   * @returns {CsvRecord | CsvSkip}
   */
  function toRow(output) {
    if (output.skipped !== undefined) {
      const error = /** @type {{ code?: string, message: string, lines?: number, empty_lines?: number, record?: string[] }} */ (output.skipped);
      const line = startLine(error.lines ?? lastEndLine + 1, error.empty_lines ?? lastEmptyLines, error.record ?? []);
      if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
        // Only found at the end of the input: the open quote took in every line after it.
        return {
          fields: undefined,
          line: line + lineOffset,
          reason: 'MALFORMED_CSV',
          message: `line ${line + lineOffset}: a quoted field opened on this line is never closed, so the rest of the file was read as this one record; close the quote and import the lines from here on again`,
          partialFields: error.record ?? [],
        };
      }
      return {
        fields: undefined,
        line: line + lineOffset,
        reason: error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' ? 'FIELD_COUNT' : 'MALFORMED_CSV',
        // csv-parse's own line is relative to where this parser started: keep the file's line only.
        message: `line ${line + lineOffset}: ${error.message.replace(/,? (?:at|on) line \d+/g, '')}`,
        partialFields: error.record ?? [],
      };
    }
    const { lines, emptyLines } = output;
    const record = decodeFields === undefined ? output.record : decodeFields(output.record);
    const line = startLine(lines, emptyLines, record) + lineOffset;
    const bytes = fileOffset(output.bytes);
    // Text not valid in the encoding before this record's end belongs to it (to a replaced line, too), not to the next.
    const invalid = invalidText.length > 0 && invalidText[0] < bytes;
    while (invalidText.length > 0 && invalidText[0] < bytes) invalidText.shift();
    if (record.length === 1 && record[0] === STAND_IN && problems.length > 0) {
      const problem = /** @type {import('./record-guard.js').GuardProblem} */ (problems.shift());
      return { fields: undefined, line, reason: problem.reason, message: `line ${line}: ${problem.message}`, partialFields: [problem.text], endByte: bytes };
    }
    if (invalid) {
      const utf16 = guard.encoding() === 'utf-16le';
      return {
        fields: undefined,
        line,
        reason: utf16 ? 'INVALID_UTF16' : 'INVALID_UTF8',
        message: utf16
          ? `line ${line}: the record has a UTF-16 code unit without its pair (or the file ends in half a unit), shown as U+FFFD here; fix the record and import it again`
          : `line ${line}: the record has bytes that are not UTF-8 (shown as U+FFFD here); if the file is in another encoding, set the encoding option (windows-1252, latin1)`,
        partialFields: record,
        endByte: bytes,
      };
    }
    expectedFields ??= record.length;
    if (record.length !== expectedFields) {
      return {
        fields: undefined,
        line,
        reason: 'FIELD_COUNT',
        message: `line ${line}: the record has ${record.length} fields but the header has ${expectedFields}; check for a missing or extra delimiter, or quote fields that contain one`,
        partialFields: record,
        endByte: bytes,
      };
    }
    return { fields: record, line, endByte: bytes };
  }

  /** Lines of the file up to the end of the last row returned by toRow. */
  const linesRead = () => lastEndLine + lineOffset;

  guard.stream.pipe(parser);
  guard.stream.on('error', (error) => parser.destroy(error));
  return { input: guard.stream, parser, toRow, linesRead, encoding: guard.encoding };
}

// Windows-1252's characters for 0x80-0x9F (undefined bytes keep Latin-1's control characters).
const WINDOWS_1252 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1 = /[\u0080-\u009f]/;

/** Fields read as Latin-1, as windows-1252 has them. @param {string[]} fields */
export function windows1252Fields(fields) {
  for (let i = 0; i < fields.length; i++) {
    if (C1.test(fields[i])) fields[i] = fields[i].replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252[c.charCodeAt(0) - 0x80]);
  }
  return fields;
}

/**
 * Line breaks inside quoted fields: CRLF, LF and CR each count once.
 * @param {string[]} fields
 */
export function lineBreaksIn(fields) {
  let breaks = 0;
  for (const field of fields) {
    for (let i = 0; i < field.length; i++) {
      const code = field.charCodeAt(i);
      if (code === 10) breaks++;
      else if (code === 13) {
        breaks++;
        if (field.charCodeAt(i + 1) === 10) i++;
      }
    }
  }
  return breaks;
}

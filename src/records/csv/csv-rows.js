/**
 * Records as rows: each record csv-parse reads, each record it skips and each bad record the splitter
 * finds becomes a row with the line it starts on, in file order. A record is judged here: its text valid
 * in the encoding, its field count the header's.
 *
 * Line numbers: csv-parse counts lines from the start of each batch it reads, and counts a CRLF inside a
 * quoted field as two lines, so its count is only trusted to say whether a record spans lines (then the
 * breaks in its fields are counted here) and how many empty lines it skipped before a record.
 */

/**
 * @typedef {object} CsvRecord
 * @property {string[]} fields
 * @property {number} line      line where the record starts (1-based)
 * @property {number} endByte   bytes of the stream consumed up to the end of this record
 * @property {number} [lastLine]  lines of the file up to the end of this record (the CSV reader's linesRead)
 */

/**
 * @typedef {object} CsvSkip
 * @property {undefined} fields
 * @property {number} line
 * @property {'MALFORMED_CSV' | 'FIELD_COUNT' | 'RECORD_TOO_LARGE' | 'INVALID_UTF8' | 'INVALID_UTF16'} reason
 * @property {string} message
 * @property {string[]} partialFields  what could be read of the record
 * @property {number} [endByte]  bytes consumed up to the end of this record, when known
 * @property {number} [lastLine]
 */

/**
 * @param {object} options
 * @param {number} options.lineOffset  lines of the file before the first byte read
 * @param {number | undefined} options.fieldCount  the header's length; by default the first record's
 * @param {((fields: string[]) => string[]) | undefined} options.decodeFields  what csv-parse read, in the file's encoding
 * @param {() => import('./text-encoding.js').Encoding | undefined} options.encoding  the file's, once decided
 */
export function createCsvRows({ lineOffset, fieldCount, decodeFields, encoding }) {
  let expectedFields = fieldCount;
  let lastEndLine = 0; // where the last row ended, in lines after lineOffset
  let emptyLines = 0; // empty lines after it that earlier batches held
  // csv-parse's own count, in the batch it is reading: the line the last row ended on, and empty lines so far.
  let batchEndLine = 0;
  let batchEmptyLines = 0;

  /**
   * The line a record starts on, from csv-parse's line at its end and its empty lines so far.
   * @param {number} parserEndLine @param {number} parserEmptyLines @param {string[]} fields
   */
  function startLine(parserEndLine, parserEmptyLines, fields) {
    const emptyBefore = emptyLines + parserEmptyLines - batchEmptyLines;
    const line = lastEndLine + 1 + emptyBefore;
    const parserStartLine = batchEndLine + 1 + parserEmptyLines - batchEmptyLines;
    lastEndLine = parserEndLine > parserStartLine ? line + lineBreaksInFields(fields) : line;
    emptyLines = 0;
    batchEndLine = parserEndLine;
    batchEmptyLines = parserEmptyLines;
    return line + lineOffset;
  }

  return {
    /**
     * A record csv-parse read.
     * @param {string[]} read @param {number} parserEndLine @param {number} parserEmptyLines
     * @param {number} endByte @param {boolean} invalid  it holds text not valid in the encoding
     * @returns {CsvRecord | CsvSkip}
     */
    record(read, parserEndLine, parserEmptyLines, endByte, invalid) {
      const fields = decodeFields === undefined ? read : decodeFields(read);
      const line = startLine(parserEndLine, parserEmptyLines, fields);
      const lastLine = lastEndLine + lineOffset;
      if (invalid) return invalidTextSkip(encoding(), { fields: undefined, line, partialFields: fields, endByte, lastLine });
      expectedFields ??= fields.length;
      if (fields.length !== expectedFields) {
        const message = `line ${line}: the record has ${fields.length} fields but the header has ${expectedFields}; check for a missing or extra delimiter, or quote fields that contain one`;
        return { fields: undefined, line, reason: 'FIELD_COUNT', message, partialFields: fields, endByte, lastLine };
      }
      return { fields, line, endByte, lastLine };
    },

    /**
     * A record csv-parse skipped as malformed: its end is not known.
     * @param {{ code?: string, message: string, lines?: number, empty_lines?: number, record?: string[] }} error
     * @returns {CsvSkip}
     */
    skipped(error) {
      const partialFields = error.record ?? [];
      const line = startLine(error.lines ?? batchEndLine + 1, error.empty_lines ?? batchEmptyLines, partialFields);
      return { fields: undefined, line, ...skipReason(error, line), partialFields, lastLine: lastEndLine + lineOffset };
    },

    /**
     * A bad record the splitter found: its first line only.
     * @param {import('./record-splitter.js').BadRecord} bad @param {number} endByte
     * @returns {CsvSkip}
     */
    badRecord(bad, endByte) {
      lastEndLine += 1 + emptyLines;
      emptyLines = 0;
      const line = lastEndLine + lineOffset;
      return { fields: undefined, line, reason: bad.reason, message: `line ${line}: ${bad.message}`, partialFields: [bad.text], endByte, lastLine: line };
    },

    /** csv-parse read a batch to its end, with `trailingEmptyLines` after its last row. @param {number} trailingEmptyLines */
    endBatch(trailingEmptyLines) {
      emptyLines += trailingEmptyLines;
      batchEndLine = 0;
      batchEmptyLines = 0;
    },
  };
}

/**
 * @param {import('./text-encoding.js').Encoding | undefined} encoding
 * @param {Omit<CsvSkip, 'reason' | 'message'>} skip
 * @returns {CsvSkip}
 */
function invalidTextSkip(encoding, skip) {
  const { line } = skip;
  if (encoding === 'utf-16le') {
    const message = `line ${line}: the record has a UTF-16 code unit without its pair (or the file ends in half a unit), shown as U+FFFD here; fix the record and import it again`;
    return { ...skip, reason: 'INVALID_UTF16', message };
  }
  const message = `line ${line}: the record has bytes that are not UTF-8 (shown as U+FFFD here); if the file is in another encoding, set the encoding option (windows-1252, latin1)`;
  return { ...skip, reason: 'INVALID_UTF8', message };
}

/**
 * What csv-parse's error says of a skipped record, with the file's line.
 * @param {{ code?: string, message: string }} error @param {number} line
 * @returns {Pick<CsvSkip, 'reason' | 'message'>}
 */
function skipReason(error, line) {
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
    // Only found at the end of the input: the open quote took in every line after it.
    return {
      reason: 'MALFORMED_CSV',
      message: `line ${line}: a quoted field opened on this line is never closed, so the rest of the file was read as this one record; close the quote and import the lines from here on again`,
    };
  }
  return {
    reason: error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' ? 'FIELD_COUNT' : 'MALFORMED_CSV',
    // csv-parse's own line is relative to where it started reading: keep the file's line only.
    message: `line ${line}: ${error.message.replace(/,? (?:at|on) line \d+/g, '')}`,
  };
}

/**
 * Line breaks inside quoted fields: CRLF, LF and CR each count once.
 * @param {string[]} fields
 */
export function lineBreaksInFields(fields) {
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

/**
 * How the importer reads CSV, in one place: the record reader (csv-records.js), the planner's header
 * (job/shard-plan.js) and the record scanner (record-scanner.js, which follows the same rules byte by
 * byte) all read a file alike.
 */

/** A UTF-8 byte order mark: not part of the first field (csv-parse drops it, and so does the scanner). */
export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Bytes of a UTF-8 BOM at the start of `bytes`: 3 or 0. @param {Uint8Array} bytes */
export const bomLength = (bytes) => (bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2] ? 3 : 0);

/**
 * csv-parse's options for a file with this delimiter.
 * @param {string} delimiter
 * @param {boolean} [atFileStart]  a BOM is dropped at the file's start only: elsewhere U+FEFF is text
 */
export function csvReadingOptions(delimiter, atFileStart = true) {
  return {
    delimiter,
    bom: atFileStart,
    // Any line end, even mixed in one file (auto-detection would fix the first one seen).
    record_delimiter: ['\r\n', '\n', '\r'],
    // A stray quote inside a field (5'11", "Ann"x) is kept as written rather than failing the record:
    // strict parsing would read on to the next quote, swallowing the rows between into one bad record.
    relax_quotes: true,
    skip_empty_lines: true,
  };
}

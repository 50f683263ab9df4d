/**
 * How the importer reads CSV, in one place: the record reader (csv-records.js), for every record and for
 * the planner's header (plan/shard-plan.js), gives csv-parse these options, after the record splitter
 * (record-splitter.js), which follows the same rules byte by byte, has decided the encoding and dropped
 * any byte order mark.
 */

/**
 * csv-parse's options for a file with this delimiter.
 * @param {string} delimiter
 */
export function csvReadingOptions(delimiter) {
  return {
    delimiter,
    // The splitter drops the byte order mark the encoding has; csv-parse would also drop one that the
    // encoding option says is text (a windows-1252 file starting "ï»¿") and switch encodings on it.
    bom: false,
    // Any line end, even mixed in one file (auto-detection would fix the first one seen).
    record_delimiter: ['\r\n', '\n', '\r'],
    // A stray quote inside a field (5'11", "Ann"x) is kept as written rather than failing the record:
    // strict parsing would read on to the next quote, swallowing the rows between into one bad record.
    relax_quotes: true,
    skip_empty_lines: true,
  };
}

/**
 * A rejects file read back as the source it came from: it is CSV (written with "," in UTF-8 whatever the
 * source was), its first three columns are the importer's (line, reason, message) and the rest are the
 * rejected record as it was: the source's columns, or one `record` column holding a JSON line. Once the
 * rows are fixed, the file imports as it is with fromRejects: this reader checks those three columns in
 * the header and drops them from every record, so the item stage sees the source's own columns.
 */
import { HeaderError } from '../errors.js';

/** The columns the rejects writer puts first (observe/rejects.js). */
export const REJECTS_COLUMNS = ['line', 'reason', 'message'];

/** The one column a JSON import's rejects file has after those. */
export const JSON_RECORD_COLUMN = 'record';

/**
 * The source's header within a rejects file's header, or a HeaderError naming what is wrong.
 * @param {string[]} header  the rejects file's, trimmed
 * @param {string} where
 */
export function sourceHeaderOf(header, where) {
  if (REJECTS_COLUMNS.some((name, i) => header[i] !== name) || header.length < 4) {
    throw new HeaderError(`${where} is not a rejects file: its header does not start with ${REJECTS_COLUMNS.join(',')} and the source's columns; import it without fromRejects`);
  }
  return header.slice(REJECTS_COLUMNS.length);
}

/**
 * The CSV reader of a rejects file, with the importer's three columns dropped from every record.
 * @param {import('../segment/read-rows.js').RecordReader} csv  the CSV reader of the file
 * @param {{ headerRead: boolean, where: string }} options  headerRead: the header was read by an earlier segment
 * @returns {import('../segment/read-rows.js').RecordReader}
 */
export function withoutRejectsColumns(csv, { headerRead, where }) {
  let header = !headerRead;
  return {
    ...csv,
    toRow(output) {
      const row = csv.toRow(output);
      if (row.fields === undefined) return { ...row, partialFields: row.partialFields.slice(REJECTS_COLUMNS.length) };
      if (header) {
        header = false;
        return { ...row, fields: sourceHeaderOf(row.fields.map((name) => name.trim()), where) };
      }
      return { ...row, fields: row.fields.slice(REJECTS_COLUMNS.length) };
    },
  };
}

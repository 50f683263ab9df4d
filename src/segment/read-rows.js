/**
 * The read loop of a segment. Each record from the parser, in file order, is either rejected with its line
 * or built into an item and handed on; the loop waits when the writer or the rejects upload is behind.
 * Every 64 records, good or rejected, it checks the time: past `stopBy` it stops at that record boundary,
 * if the segment has bytes left to read.
 */
import { HeaderError, RowError } from '../errors.js';

/** @typedef {(fields: string[], line: number) => import('../items/item-builder.js').BuiltItem} BuildItem */

/**
 * A format's record reader (records/csv/csv-records.js, records/json-lines.js): bytes in, records out in order.
 * @typedef {object} RecordReader
 * @property {import('node:stream').Writable} input
 * @property {import('node:stream').Readable} parser
 * @property {(output: any) => import('../records/csv/csv-records.js').CsvRecord | import('../records/csv/csv-records.js').CsvSkip} toRow
 * @property {() => number} linesRead
 * @property {() => import('../records/csv/text-encoding.js').Encoding | undefined} encoding
 */

/**
 * @typedef {object} ReadRowsOptions
 * @property {import('node:stream').Readable} body  the CSV bytes
 * @property {RecordReader} records
 * @property {BuildItem | undefined} buildItem  undefined until the header is read (the job's first segment)
 * @property {(header: string[]) => BuildItem} onHeader  the header was read: how to build its rows
 * @property {(entry: import('../types.js').Entry) => Promise<void> | undefined} pass  hands an item on
 * @property {Pick<Awaited<ReturnType<typeof import('./segment-report.js').startSegmentReport>>, 'stats' | 'rejectRow' | 'rejectsBacklog'>} report
 * @property {number} firstByte  where the body starts in the source (decompressed, for gzip): stats.byte counts from it
 * @property {number} stopBy  performance.now() time after which the segment stops
 * @property {() => boolean} [stopNow]  whether to stop at this record boundary besides stopBy: the rows queued for the
 *   table could not be written in time, or a person asked to stop (Ctrl-C)
 * @property {(bytesDone: number) => boolean} bytesLeft  whether the segment has bytes left after this many
 */

/**
 * @param {ReadRowsOptions} options
 * @returns {Promise<{ bytesDone: number, stoppedEarly: boolean }>}  bytes of the stream up to the end of the
 *   last record handled: where a checkpoint puts the next segment
 */
export async function readRows({ body, records, buildItem, onHeader, pass, report, firstByte, stopBy, stopNow = () => false, bytesLeft }) {
  const { parser, toRow } = records;
  const { stats } = report;
  let bytesDone = 0;
  let sinceClock = 0;
  body.on('error', (error) => parser.destroy(error));
  body.pipe(records.input);
  for await (const output of parser) {
    const row = toRow(output);
    if (row.fields === undefined) {
      if (buildItem === undefined) throw new HeaderError(`the header line cannot be read: ${row.message}`);
      stats.rowsRead++;
      report.rejectRow(row, row.line, row.partialFields);
    } else if (buildItem === undefined) {
      buildItem = onHeader(row.fields);
    } else {
      stats.rowsRead++;
      const entry = entryOf(buildItem, row, report);
      if (entry !== undefined) {
        const wait = pass(entry);
        if (wait !== undefined) await wait;
      }
    }
    const backlog = report.rejectsBacklog();
    if (backlog !== undefined) await backlog;
    // A record csv-parse skipped as malformed has no known end: the segment can stop only after one that has.
    if (row.endByte === undefined) continue;
    bytesDone = row.endByte;
    stats.byte = firstByte + bytesDone;
    if (++sinceClock >= 64) {
      sinceClock = 0;
      if ((performance.now() > stopBy || stopNow()) && bytesLeft(bytesDone)) return { bytesDone, stoppedEarly: true };
    }
  }
  return { bytesDone, stoppedEarly: false };
}

/**
 * A record's item on its way to the table, or undefined when the row is rejected (reported here).
 * @param {BuildItem} buildItem
 * @param {{ fields: string[], line: number }} row
 * @param {{ rejectRow: ReadRowsOptions['report']['rejectRow'] }} report
 * @returns {import('../types.js').Entry | undefined}
 */
export function entryOf(buildItem, { fields, line }, report) {
  try {
    const built = buildItem(fields, line);
    return { json: built.json, keyId: built.keyId, op: built.op, line, fields, bytes: built.bytes };
  } catch (error) {
    if (!(error instanceof RowError)) throw error;
    report.rejectRow(error, line, fields);
    return undefined;
  }
}

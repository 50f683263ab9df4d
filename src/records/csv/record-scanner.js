/**
 * Record boundaries of a CSV's bytes, for the shard planner: each boundary's file offset and the line
 * breaks before it (CRLF, LF and CR once each, inside quoted fields too, as csv-records.js counts them).
 * The boundaries are the record splitter's (record-splitter.js), the same code that splits records for an
 * import, so a shard starts exactly where a segment that read the whole file would find a record's start.
 * Nothing is held but the record under way, so it can read a whole object once to plan shards.
 */
import { createRecordSplitter } from './record-splitter.js';

/**
 * @typedef {object} Boundary
 * @property {number} byte   first byte of the next record (just after a line break)
 * @property {number} lines  line breaks before that byte
 */

/**
 * @param {object} options
 * @param {string} options.delimiter
 * @param {import('./text-encoding.js').EncodingOption} [options.encoding]
 * @param {boolean} [options.atFileStart]  false: the bytes start at a record boundary further on (a plan
 *   going on from its progress), in the encoding decided at the file's start; boundaries count from there
 * @param {(boundary: Boundary) => boolean | void} options.onBoundary  called at each boundary in order;
 *   return true to stop being called (the scan still counts lines)
 */
export function createRecordScanner({ delimiter, encoding = 'auto', atFileStart = true, onBoundary }) {
  let listening = true;
  const splitter = createRecordSplitter({
    delimiter,
    // The planner decides the encoding from the file's start as the first segment would.
    encoding,
    atFileStart,
    onBoundary(boundary) {
      if (listening && onBoundary(boundary) === true) listening = false;
    },
  });
  return {
    /** @param {Buffer} chunk */
    scan: (chunk) => splitter.write(chunk),
    /** The file's encoding, once its first bytes were scanned. */
    encoding: splitter.encoding,
    /** Ends the scan; the last record needs no line break after it. */
    end: () => splitter.end(),
  };
}

/**
 * The readers of a spread segment's ranges, one a range, each its own connection and parser. Records are
 * taken while a range's parser holds some: a promise only when one must be waited for (the hot path makes
 * no promise per row). Each range's cursor (`byte`, `line`) moves on record boundaries only.
 */
import { RowError } from '../../errors.js';

/**
 * A range's bytes from range.byte to the segment's end, parsed.
 * @typedef {object} OpenedRange
 * @property {import('../read-rows.js').RecordReader} records
 * @property {import('node:stream').Readable} body
 * @property {() => void} close
 */

/**
 * @typedef {object} RangeReader
 * @property {OpenedRange} opened
 * @property {any} pending  a record read ahead and put back (skipFirstRun's first of another key)
 * @property {number} base  the byte the reader's bytes start at: a record's endByte counts from it
 * @property {boolean} atBoundary  whether the last record taken ended a record (a checkpoint may be taken)
 */

/**
 * The readers of `ranges`, opened on first use; every one opened is closed by closeAll, even one whose
 * open ended after another failed.
 * @param {import('../../plan/spread-plan.js').SpreadRange[]} ranges
 * @param {(range: import('../../plan/spread-plan.js').SpreadRange) => Promise<OpenedRange>} open
 */
export function createRangeReaders(ranges, open) {
  /** @type {Array<RangeReader | undefined>} */
  const readers = ranges.map(() => undefined);
  return {
    /** Range j's reader, if it is open. @param {number} j */
    get: (j) => readers[j],
    /** Range j's reader, opened at the range's cursor if it is not yet. @param {number} j */
    async open(j) {
      let reader = readers[j];
      if (reader === undefined) {
        const range = ranges[j];
        const opened = await open(range);
        opened.body.on('error', (error) => opened.records.parser.destroy(error));
        opened.body.pipe(opened.records.input);
        reader = { opened, pending: undefined, base: range.byte, atBoundary: true };
        readers[j] = reader;
      }
      return reader;
    },
    /** Whether every open reader is between records: a segment stops only there. */
    allAtBoundary: () => readers.every((reader) => reader === undefined || reader.atBoundary),
    closeAll() {
      for (const reader of readers) reader?.opened.close();
    },
  };
}

/**
 * The range's next record if its parser holds one now; null if it must be waited for; undefined at the
 * end of its bytes. @param {RangeReader} reader
 */
export function nextBuffered(reader) {
  if (reader.pending !== undefined) {
    const row = reader.pending;
    reader.pending = undefined;
    return row;
  }
  const { parser } = reader.opened.records;
  const output = parser.read();
  if (output !== null) return reader.opened.records.toRow(output);
  if (parser.errored) throw parser.errored;
  return parser.readableEnded || parser.destroyed ? undefined : null;
}

/** The range's next record, waiting for it; undefined at the end of its bytes. @param {RangeReader} reader */
export async function nextRow(reader) {
  for (;;) {
    const row = nextBuffered(reader);
    if (row !== null) return row;
    await readable(reader.opened.records.parser);
  }
}

/**
 * Moves the range's cursor past a record taken from its reader; past its last (`row` undefined: its bytes
 * ended), to its stop. A record never moves it past the stop.
 * @param {import('../../plan/spread-plan.js').SpreadRange} range @param {RangeReader} reader @param {any} row
 */
export function moveCursor(range, reader, row) {
  if (row === undefined) {
    range.byte = /** @type {number} */ (range.stop);
    return;
  }
  reader.atBoundary = row.endByte !== undefined;
  if (row.endByte !== undefined) {
    range.byte = Math.min(reader.base + row.endByte, /** @type {number} */ (range.stop));
    range.line = reader.opened.records.linesRead();
  }
}

/**
 * A range's first segment: skips the records at its start up to the first one with a key other than the
 * first key's (rejected records too); those belong to the range before. The record of another key is put
 * back for the range's own reading. The range may end up empty: one run to its planned end, which the
 * range before reads all of.
 * @param {import('../../plan/spread-plan.js').SpreadRange} range  its byte and line moved on; its stop set when it is empty
 * @param {RangeReader} reader
 * @param {(fields: string[], line: number) => string | undefined} keyOf  undefined for a record the import rejects
 */
export async function skipFirstRun(range, reader, keyOf) {
  /** @type {string | undefined} */
  let first;
  for (;;) {
    if (range.byte >= range.end) break;
    const row = await nextRow(reader);
    if (row === undefined) break;
    const key = row.fields === undefined ? undefined : keyOf(row.fields, row.line);
    if (key !== undefined && first !== undefined && key !== first) {
      reader.pending = row;
      break;
    }
    first ??= key;
    if (row.endByte === undefined) continue;
    range.byte = reader.base + row.endByte;
    range.line = reader.opened.records.linesRead();
  }
  if (range.byte >= range.end) {
    range.byte = range.end;
    range.stop = range.end;
  }
}

/**
 * A record's key, or undefined when the import would reject it (it writes nothing, so its order does
 * not matter).
 * @param {import('../read-rows.js').BuildItem} buildItem @param {string[]} fields @param {number} line
 */
export function keyOrRejected(buildItem, fields, line) {
  try {
    return buildItem(fields, line).keyId;
  } catch (error) {
    if (error instanceof RowError) return undefined;
    throw error;
  }
}

/**
 * Resolves when the stream may have something to read, has ended or closed; rejects on its error.
 * @param {import('node:stream').Readable} stream
 * @returns {Promise<void>}
 */
function readable(stream) {
  return new Promise((resolve, reject) => {
    const done = () => {
      cleanup();
      resolve();
    };
    const fail = (/** @type {Error} */ error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      stream.off('readable', done);
      stream.off('end', done);
      stream.off('close', done);
      stream.off('error', fail);
    };
    stream.on('readable', done);
    stream.on('end', done);
    stream.on('close', done);
    stream.on('error', fail);
  });
}

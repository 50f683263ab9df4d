/**
 * The read loop of a segment with `spread`: K byte ranges of the object read at once, their rows
 * interleaved one by one, so that a file sorted by the table's key feeds K stretches of the key space
 * (K partitions' worth) instead of one. Memory is K read buffers.
 *
 * Rows of one key must reach the table in file order, whatever the interleaving. Two rules keep it:
 *  - a run of one key is never cut: range j (j >= 1) gives the records at its start that share its
 *    first key to range j - 1, which reads on past its planned end through them (`stop`);
 *  - each range keeps to its own stretch of the key space: the keys a range has handed on span
 *    [min, max], and those spans stay disjoint and in range order. A file sorted by the table's key keeps
 *    to this by itself; a row that would break it could have a key another range has written, so the
 *    segment stops there with SpreadOrderError, before that row is handed on. With disjoint spans no two
 *    ranges ever write one key, and one range's rows pass in its own file order.
 * A range whose rows wait on the table (its stretch of keys is on a hot partition: they come back
 * throttled and back off) is passed over while it has more than its share of the rows on their way, so
 * that the window fills with rows of the ranges whose partitions have room; round robin alone would feed
 * every partition alike and run at the pace of the busiest. The shares follow the bytes each range has
 * left, so that the ranges end together instead of the laggards alone on a few partitions.
 * Checkpoints carry every range's cursor, line, stop and span.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RowError, SpreadOrderError } from '../errors.js';
import { BATCH_SIZE } from '../write/batch-writer.js';
import { entryOf } from '../segment/read-rows.js';

/** The longest a reader whose ranges all wait on the table goes without looking at the clock and stopNow. */
const STOP_CHECK_MS = 100;

/**
 * A range as a checkpoint carries it.
 * @typedef {object} SpreadRange
 * @property {number} byte   first byte not yet read
 * @property {number | undefined} stop  where the range ends; undefined until the first segment has found where
 *   the run of a key at the next range's start ends
 * @property {number} end    the planned end (the next range's planned start)
 * @property {number} line   lines of the file before `byte`
 * @property {string} [min]  smallest key handed on so far (a keyId)
 * @property {string} [max]  largest
 */

/**
 * @typedef {object} OpenedRange
 * @property {import('../segment/read-rows.js').RecordReader} records
 * @property {import('node:stream').Readable} body
 * @property {() => void} close
 */

/**
 * @param {object} options
 * @param {SpreadRange[]} options.ranges  in file order; changed in place as rows are read (the checkpoint's)
 * @param {number} options.end  one past the segment's last byte
 * @param {(range: SpreadRange) => Promise<OpenedRange>} options.open  bytes from range.byte to `end`, parsed
 * @param {import('../segment/read-rows.js').BuildItem} options.buildItem
 * @param {((a: string, b: string) => number) | undefined} options.compare  the order of the table's keys (key-order.js);
 *   undefined when no two rows can share a key (generated keys)
 * @param {(entry: import('../types.js').Entry) => Promise<void> | undefined} options.pass
 * @param {Pick<Awaited<ReturnType<typeof import('../segment/segment-report.js').startSegmentReport>>, 'stats' | 'rejectRow' | 'rejectsBacklog'>} options.report
 * @param {number} options.firstByte  where the segment's bytes start (progress counts from it)
 * @param {number} options.stopBy
 * @param {() => boolean} [options.stopNow]
 * @param {(entry: import('../types.js').Entry) => boolean} [options.pending]  whether a row handed on is still on its way to the table
 * @param {() => Promise<void>} [options.settled]  resolves when a row handed on may have settled (the writer's `settled`)
 * @param {number} [options.rowsInFlight]  rows the ranges may have on their way between them (shared out by shareRows)
 * @returns {Promise<{ stoppedEarly: boolean, bytesDone?: undefined }>}  no one cursor: each range's is in `ranges`
 */
export async function readSpread({ ranges, end, open, buildItem, compare, pass, report, firstByte, stopBy, stopNow = () => false, pending = () => false, settled = () => sleep(1), rowsInFlight = 400 }) {
  const { stats } = report;
  /** @type {Array<{ opened: OpenedRange, pending: any, base: number, atBoundary: boolean } | undefined>} */
  const readers = ranges.map(() => undefined);
  const startBytes = ranges.map((range) => range.byte);
  /** Each range's rows handed on, oldest first, until they are no longer on their way. @type {Array<import('../types.js').Entry[]>} */
  const onTheirWay = ranges.map(() => []);
  /** Rows of each range that may be on their way at once, shared out again as the ranges move on. @type {number[]} */
  let shares = [];
  try {
    // Where each range stops: a later range first skips the run of its first key, which the range before it
    // reads. The ranges find their starts at once, each on its own connection (on S3, one after another
    // would wait out K first-byte latencies before the first row); then the stops, last range first
    // (nextStart needs the later ranges' starts). Every search ends before an error is thrown, so that
    // no reader is opened after the readers are closed.
    const searches = await Promise.allSettled(ranges.map((range, j) => (range.stop === undefined && j > 0 ? findStart(j) : undefined)));
    const failed = searches.find((search) => search.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    for (let j = ranges.length - 1; j >= 0; j--) {
      if (ranges[j].stop === undefined) ranges[j].stop = j === ranges.length - 1 ? end : nextStart(j);
    }
    let sinceClock = 0;
    let done = ranges.reduce((sum, range, k) => sum + (range.byte - startBytes[k]), 0);
    let active = ranges.map((_, j) => j).filter((j) => ranges[j].byte < /** @type {number} */ (ranges[j].stop));
    while (active.length > 0) {
      if (sinceClock === 0) shares = shareRows(ranges.map((range) => /** @type {number} */ (range.stop) - range.byte), rowsInFlight);
      let passedOver = 0;
      for (const j of active) {
        if (waitingOf(j) >= shares[j]) {
          passedOver++;
          continue;
        }
        // Records are taken while the range's parser holds some: a promise only when one must be waited for.
        const reader = readers[j] ?? (await readerOf(j));
        let row = nextBuffered(reader);
        if (row === null) row = await nextRow(reader);
        const before = ranges[j].byte;
        const wait = handle(j, reader, row);
        done += ranges[j].byte - before;
        stats.byte = firstByte + done;
        if (wait !== undefined) await wait;
      }
      // Every range has its share on the way: count them exactly (a row collapsed into a later one of its key
      // is settled behind one that is not, and a batch of such rows would never fill), then wait until one
      // settles, or for the clock at most. (Polling every millisecond instead made a third of the loops
      // of the bench's spread import, and garbage that raised its peak RSS.)
      const waited = passedOver === active.length && !settleAll(active);
      if (waited) await untilSettled();
      active = active.filter((j) => ranges[j].byte < /** @type {number} */ (ranges[j].stop));
      sinceClock += ranges.length;
      if (sinceClock >= 64 || waited) {
        sinceClock = 0;
        if ((performance.now() > stopBy || stopNow()) && active.length > 0 && readers.every((r) => r === undefined || r.atBoundary)) return { stoppedEarly: true };
      }
    }
    return { stoppedEarly: false };
  } finally {
    for (const reader of readers) reader?.opened.close();
  }

  /** Until a row settles, or STOP_CHECK_MS at most: the stop is looked at on time whatever the writes do. */
  async function untilSettled() {
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    try {
      await Promise.race([settled(), new Promise((resolve) => (timer = setTimeout(resolve, STOP_CHECK_MS)))]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Range j's rows still on their way (those at the front that arrived are dropped first). @param {number} j */
  function waitingOf(j) {
    const rows = onTheirWay[j];
    let settled = 0;
    while (settled < rows.length && !pending(rows[settled])) settled++;
    if (settled > 0) rows.splice(0, settled);
    return rows.length;
  }

  /**
   * Drops every settled row from the active ranges' lists, not only those at the front; whether a range
   * is under its share now. @param {number[]} active
   */
  function settleAll(active) {
    let under = false;
    for (const j of active) {
      onTheirWay[j] = onTheirWay[j].filter(pending);
      if (onTheirWay[j].length < shares[j]) under = true;
    }
    return under;
  }

  /** The planned start of the next range that is not empty (its first run skipped), or the segment's end. @param {number} j */
  function nextStart(j) {
    for (let k = j + 1; k < ranges.length; k++) if (ranges[k].byte < ranges[k].end) return ranges[k].byte;
    return end;
  }

  /** @param {number} j */
  async function readerOf(j) {
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
  }

  /**
   * The range's next record if its parser holds one now; null if it must be waited for; undefined at the
   * end of its bytes. @param {NonNullable<typeof readers[0]>} reader
   */
  function nextBuffered(reader) {
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

  /** The range's next record, waiting for it; undefined at the end of its bytes. @param {NonNullable<typeof readers[0]>} reader */
  async function nextRow(reader) {
    for (;;) {
      const row = nextBuffered(reader);
      if (row !== null) return row;
      await readable(reader.opened.records.parser);
    }
  }

  /**
   * Range j's first segment: skips the records at its start up to the first one with a key other than
   * the first key's (rejected records too); those belong to range j - 1. Range j may end up empty.
   * @param {number} j
   */
  async function findStart(j) {
    const range = ranges[j];
    const reader = await readerOf(j);
    /** @type {string | undefined} */
    let first;
    for (;;) {
      if (range.byte >= range.end) break;
      const row = await nextRow(reader);
      if (row === undefined) break;
      const key = row.fields === undefined ? undefined : keyOf(row);
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
      // One run to its planned end: the range before reads it all.
      range.byte = range.end;
      range.stop = range.end;
    }
  }

  /** A record's key, or undefined when it would be rejected (it writes nothing, so its order does not matter). */
  function keyOf(/** @type {any} */ row) {
    try {
      return buildItem(row.fields, row.line).keyId;
    } catch (error) {
      if (error instanceof RowError) return undefined;
      throw error;
    }
  }

  /**
   * One record of range j (undefined: its bytes ended), handed on or rejected; returns a promise when the
   * writer or the rejects upload is behind.
   * @param {number} j @param {NonNullable<typeof readers[0]>} reader @param {any} row
   * @returns {Promise<void> | undefined}
   */
  function handle(j, reader, row) {
    const range = ranges[j];
    if (row === undefined) {
      range.byte = /** @type {number} */ (range.stop);
      return undefined;
    }
    stats.rowsRead++;
    /** @type {Promise<void> | undefined} */
    let wait;
    if (row.fields === undefined) {
      report.rejectRow(row, row.line, row.partialFields);
    } else {
      const entry = entryOf(buildItem, row, report);
      if (entry !== undefined) {
        if (compare !== undefined) keep(j, entry.keyId, entry.line);
        wait = pass(entry);
        onTheirWay[j].push(entry);
      }
    }
    reader.atBoundary = row.endByte !== undefined;
    if (row.endByte !== undefined) {
      range.byte = Math.min(reader.base + row.endByte, /** @type {number} */ (range.stop));
      range.line = reader.opened.records.linesRead();
    }
    const backlog = report.rejectsBacklog();
    if (wait === undefined) return backlog;
    return backlog === undefined ? wait : wait.then(() => backlog);
  }

  /** Widens range j's span to `key`, if the spans stay apart. @param {number} j @param {string} key @param {number} line */
  function keep(j, key, line) {
    const range = ranges[j];
    const order = /** @type {(a: string, b: string) => number} */ (compare);
    if (range.min !== undefined && range.max !== undefined && order(key, range.min) >= 0 && order(key, range.max) <= 0) return;
    for (let k = j - 1; k >= 0; k--) {
      const below = ranges[k].max;
      if (below === undefined) continue;
      if (order(below, key) >= 0) throw outOfOrder(line, j, k, key);
      break;
    }
    for (let k = j + 1; k < ranges.length; k++) {
      const above = ranges[k].min;
      if (above === undefined) continue;
      if (order(key, above) >= 0) throw outOfOrder(line, j, k, key);
      break;
    }
    if (range.min === undefined || order(key, range.min) < 0) range.min = key;
    if (range.max === undefined || order(key, range.max) > 0) range.max = key;
  }

  /**
   * The error for a key of range j that range k's span (a neighbour's) does not leave room for: it names the
   * range among whose keys the key lies, if one's span holds it, else the neighbour it passes.
   * @param {number} line @param {number} j @param {number} k @param {string} key
   */
  function outOfOrder(line, j, k, key) {
    const order = /** @type {(a: string, b: string) => number} */ (compare);
    const among = ranges.findIndex((range, m) => m !== j && range.min !== undefined && range.max !== undefined && order(key, range.min) >= 0 && order(key, range.max) <= 0);
    const where = among === -1 ? `${k < j ? 'below the last' : 'above the first'} key range ${k + 1} has read` : `among the keys range ${among + 1} has read`;
    return new SpreadOrderError(
      `spread: the key of line ${line} (range ${j + 1} of ${ranges.length}) lies ${where}, so the file is not sorted by the table's key and reading it in ${ranges.length} places could write an older row of a key over a newer one. The rows written so far are in order. Import it without spread (leave spread out; shuffleWindow spreads rows of any order), or sort the file by the table's key first`,
    );
  }
}

/**
 * The rows on their way, shared among the ranges in proportion to the bytes each has left, so that they
 * end together: a range held back on a hot partition gets a larger share of what that partition takes as
 * it falls behind, and the ranges ahead leave room (equal shares let the laggards finish alone, on a few
 * partitions, at the end). At least a call's 25 rows each: a range held with fewer could wait on a call
 * that never fills.
 * @param {number[]} bytesLeft  of each range still read
 * @param {number} rowsInFlight
 * @returns {number[]}
 */
export function shareRows(bytesLeft, rowsInFlight) {
  const total = bytesLeft.reduce((sum, bytes) => sum + bytes, 0);
  return bytesLeft.map((bytes) => Math.max(BATCH_SIZE, Math.ceil((rowsInFlight * bytes) / Math.max(1, total))));
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

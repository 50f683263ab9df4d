/**
 * One segment of an import job: where it starts (the object's start, a shard's range, or a checkpoint),
 * the source's bytes, records, items, the batch writer, and its end. It either reaches the end of its
 * bytes and returns the job's (or shard's) summary, whose books balance (rowsRead = written + rejected +
 * duplicatesCollapsed), or, past `stopBy`, stops at a record boundary, lets every write in flight end,
 * and returns a checkpoint for the next segment.
 */
import { runningInLambda } from '../config/index.js';
import { KEY_ID_FORM, keyIdReader } from '../items/key-id.js';
import { createShuffleWindow } from '../items/shuffle.js';
import { supersede } from '../items/superseded.js';
import { openBytes } from '../source/open-bytes.js';
import { createBatchWriter, rowsPerCall } from '../write/batch-writer.js';
import { watchWarmThroughput } from '../write/warm-watch.js';
import { checkKeyTypes, checkTable, tableKeysOf } from '../write/table-check.js';
import { checkRecoverable, tableFacts } from '../write/table-facts.js';
import { ConfigError, JobError } from '../errors.js';
import { jobIdOf, segmentStart } from '../state/checkpoint.js';
import { changedWriteOption, writeOptionsOf } from '../state/write-options.js';
import { outputStoreFor } from '../state/output-store.js';
import { sourceFields, sourceId, sourceWhere } from '../source/source-name.js';
import { newRunName, replayKey } from '../state/object-keys.js';
import { readRows } from './read-rows.js';
import { readSpread } from './spread/read-spread.js';
import { planSpread } from '../plan/spread-plan.js';
import { keyOrderOf } from '../items/key-order.js';
import { startSegmentReport } from './segment-report.js';
import { checkNotRunningElsewhere, recordLatestJob } from '../state/job-status.js';
import { formatOf, rowStages } from './row-stages.js';
import { createCleanup } from './cleanup.js';
import { writePolicyFor } from '../write/write-policy.js';
import { optionsOf } from '../config/index.js';

/** @typedef {import('./segment-report.js').ImportSummary} ImportSummary */
/** @typedef {import('./segment-report.js').SegmentOutcome} SegmentOutcome */

/**
 * @typedef {object} ImportDeps
 * @property {import('../clients.js').Clients} clients
 * @property {import('../types.js').Logger} logger
 * @property {number} [stopBy]  performance.now() time after which the segment hands over
 * @property {number} [deadline]  performance.now() time the invocation ends (Lambda's); the segment stops
 *   reading early enough for the rows queued for the table to be written before it
 * @property {boolean} [publishMetrics]  CloudWatch metrics (EMF) each interval; default: in Lambda
 * @property {AbortSignal} [stop]  once aborted, the segment stops reading at the next record boundary and hands
 *   over as at stopBy (Ctrl-C on the command line)
 * @property {AbortSignal} [abandon]  once aborted, the writes going on are given up and their rows handed on, as
 *   at the deadline (a second Ctrl-C)
 */

/** @typedef {Readonly<import('../config/index.js').ImportConfig>} Config */
/** @typedef {ReturnType<typeof segmentStart>} Start */
/** @typedef {Awaited<ReturnType<typeof openBytes>>} Input */
/** @typedef {Awaited<ReturnType<typeof startSegmentReport>>} Report */
/** The ranges a spread reads; keyIds: the form of their key spans, absent in a checkpoint from before it. @typedef {{ keyIds: string | undefined, ranges: import('../plan/spread-plan.js').SpreadRange[], encoding: import('../config/values.js').Encoding | undefined }} SpreadRanges */
/** The header as read so far and the item builder that goes with it. @typedef {{ header: string[] | undefined, buildItem: import('./read-rows.js').BuildItem | undefined }} RowsSoFar */

/**
 * @param {Config} config  `config.checkpoint`, if set, is where this segment starts
 * @param {ImportDeps} deps
 * @returns {Promise<SegmentOutcome>}
 */
export async function runImport(config, deps) {
  const cleanup = createCleanup();
  try {
    return await importSegment(config, deps, cleanup);
  } finally {
    cleanup.release();
  }
}

/**
 * @param {Config} config @param {ImportDeps} deps
 * @param {ReturnType<typeof createCleanup>} cleanup  releases what the segment opens, once, wherever it ends
 * @returns {Promise<SegmentOutcome>}
 */
async function importSegment(config, { clients, logger, stopBy = Infinity, deadline = Infinity, publishMetrics = runningInLambda(), stop, abandon }, cleanup) {
  const start = segmentStart(config);
  const { description, facts, keys } = await checkTarget(config, clients.dynamodb, logger, start);
  const where = { jobId: start.jobId, shard: start.shard, segment: start.segment, ...sourceFields(config), table: config.table };
  const onReopen = (/** @type {Record<string, unknown>} */ event) => logger.warn('source re-opened', { ...where, ...event });
  const store = outputStoreFor(config, clients.s3);
  const input = await openBytes(clients.s3, config, start, onReopen);
  cleanup.defer(input.close);
  const { source } = input;
  const { format, body, empty } = await formatOf(config, start, input.body);
  // A file of no bytes has no header and no rows: no column types to check against the table.
  if (format === 'csv' && !empty) checkKeyTypes(description, config);
  if (!input.gzip && start.byte > source.contentLength) {
    throw new JobError(`the checkpoint starts at byte ${start.byte} of ${sourceWhere(config)}, which has ${source.contentLength}: it is not this file's checkpoint, or it was changed; run the job again from its start`);
  }
  const jobId = start.jobId ?? jobIdOf(config, source.etag);
  checkSameWriteOptions(config);
  await checkNotRunningElsewhere(store, config.statusPrefix, jobId, start.shard);
  // A job named here (not a shard, not a continuation) starts now: `status` by the file's name finds it.
  if (start.jobId === undefined) await recordLatestJob(store, config.statusPrefix, { source: sourceId(config), etag: source.etag, table: config.table, jobId, options: writeOptionsOf(config) });

  const shaping = { importTime: Date.parse(start.importTime), warn: (/** @type {string} */ message, /** @type {Record<string, unknown>} */ fields) => logger.warn(message, { ...where, jobId, ...fields }) };
  const stages = rowStages({ format, config, start, source, keys, shaping });
  /** @type {RowsSoFar} */
  const rows = { header: stages.header, buildItem: stages.buildItem };
  const spread = await spreadRangesOf(config, start, input, body, format, rows, stages.onHeader);
  // A spread opens a reader per range: the segment's own is not read.
  if (spread !== undefined) input.close();
  const report = await startSegmentReport({ config, store, logger, start, jobId, source, totalBytes: input.gzip ? undefined : source.contentLength, header: () => (format === 'csv' ? rows.header : ['record']), publishMetrics });
  const { writer, shuffle, tooLong } = startWriting({ config, clients, start, facts, keys, spread, report, deadline, abandon, cleanup, warn: shaping.warn });
  const stopNow = () => stop?.aborted === true || tooLong();
  try {
    // Rows the previous segment left to write go first: they are older than any row this segment reads.
    if (start.replay !== undefined) await writeReplay(store, start.replay, writer, keyIdReader(config));
    const pass = (/** @type {import('../types.js').Entry} */ entry) => shuffle.add(entry);
    const reading =
      spread === undefined
        ? await readRows({
            body,
            records: stages.records,
            buildItem: /** @type {import('./read-rows.js').BuildItem | undefined} */ (rows.buildItem),
            onHeader(fields) {
              rows.header = fields;
              return stages.onHeader(fields);
            },
            pass,
            report,
            firstByte: start.byte,
            stopBy,
            stopNow,
            bytesLeft: (bytesDone) => input.gzip || start.byte + bytesDone < source.end,
          })
        : await readSpreadSegment({ config, clients, source, format, keys, shaping, spread, rows, onReopen, pass, report, firstByte: start.byte, stopBy, stopNow, writer });
    await shuffle.drain();
    await writer.flush();
    cleanup.release();
    warnAbsentColumns(rows.buildItem, shaping);
    const readTo = reading.bytesDone === undefined ? undefined : { byte: start.byte + reading.bytesDone, line: stages.records.linesRead(), encoding: stages.records.encoding() };
    return await finishSegment({ config, start, jobId, store, logger, where, input, format, rows, spread, readTo, stoppedEarly: reading.stoppedEarly, writer, report, abandoned: abandon?.aborted === true });
  } catch (error) {
    // A failure anywhere, the rejects file's or the final status's included, leaves a failed status.
    input.close();
    // Stop reading, but let the calls already sent finish and be counted before failing (or, at the
    // deadline less the reserve, give them up, so that the failed status is still written).
    await writer.flush().catch(() => {});
    cleanup.release();
    await report.fail(error);
    throw error;
  }
}

/**
 * JSON Lines: the drop and rename names no line of the segment had (a CSV header's absence is refused).
 * @param {unknown} buildItem @param {import('../items/shaping.js').Shaping} shaping
 */
function warnAbsentColumns(buildItem, shaping) {
  const absent = /** @type {{ absentColumns?: () => string[] }} */ (buildItem ?? {}).absentColumns?.() ?? [];
  if (absent.length > 0) shaping.warn('no line had these attributes that drop or rename name: check their spelling (names are compared exactly)', { attributes: absent });
}

/**
 * The table: it exists with the keys the options name; the first segment checks its recovery (every
 * shard, as each must refuse under requirePitr before it writes; the first one says so).
 * @param {Config} config @param {import('@aws-sdk/client-dynamodb').DynamoDBClient} dynamodb
 * @param {import('../types.js').Logger} logger @param {Start} start
 */
async function checkTarget(config, dynamodb, logger, start) {
  const description = await checkTable(dynamodb, config);
  const facts = tableFacts(description);
  if (start.segment === 1) {
    const warn = start.shard === 0 ? (/** @type {string} */ message, /** @type {Record<string, unknown>} */ fields) => logger.warn(message, fields) : () => {};
    const pointInTimeRecovery = await checkRecoverable(dynamodb, config, facts, warn);
    if (start.shard === 0) logger.info('table', { table: config.table, ...facts, pointInTimeRecovery });
  }
  return { description, facts, keys: tableKeysOf(description) };
}

/**
 * The ranges a spread reads: those a previous segment carried on, or, at the start, `spread` ranges cut
 * from this segment's bytes (reading the header, which `rows` then holds). None for a compressed file.
 * @param {Config} config @param {Start} start @param {Input} input
 * @param {Awaited<ReturnType<typeof formatOf>>['body']} body @param {import('../config/values.js').Format} format
 * @param {RowsSoFar} rows @param {(header: string[]) => import('./read-rows.js').BuildItem} onHeader
 * @returns {Promise<SpreadRanges | undefined>}
 */
async function spreadRangesOf(config, start, input, body, format, rows, onHeader) {
  if (start.spread !== undefined) return { keyIds: start.spread.keyIds, ranges: start.spread.ranges, encoding: start.encoding };
  if (config.spread === 1 || input.gzip) return undefined;
  const { source } = input;
  const plan = await planSpread(body, { format, from: start.byte, line: start.line, end: source.end, ranges: config.spread, delimiter: config.delimiter, encoding: start.encoding ?? config.encoding, header: rows.header, where: sourceWhere(config) });
  if (rows.header === undefined && plan.header !== undefined) {
    rows.header = plan.header;
    rows.buildItem = onHeader(plan.header);
  }
  return { keyIds: KEY_ID_FORM, ranges: plan.ranges, encoding: plan.encoding };
}

/**
 * The writer, the shuffle window in front of it, and what gives the writes up before Lambda ends the
 * invocation: each released by the segment's cleanup.
 * @param {{ config: Config, clients: import('../clients.js').Clients, start: Start, facts: ReturnType<typeof tableFacts>, keys: import('../write/table-check.js').TableKeys,
 *   spread: SpreadRanges | undefined, report: Report, deadline: number, abandon: AbortSignal | undefined, cleanup: ReturnType<typeof createCleanup>,
 *   warn: (message: string, fields: Record<string, unknown>) => void }} options
 */
function startWriting({ config, clients, start, facts, keys, spread, report, deadline, abandon, cleanup, warn }) {
  // The pace starts at the table's known ceiling, or at an on-demand table's warm throughput, which it takes
  // at once (this shard's share), not where throttling would find it; an on-demand table without a maximum
  // grows past its warm throughput when pushed, and the pace probes for that.
  const startFrom = facts.writeCeiling ?? facts.warmWritesPerSecond;
  const startRate = startFrom === undefined ? undefined : startFrom / start.shards;
  const tableGrows = facts.billingMode === 'PAY_PER_REQUEST' && facts.writeCeiling === undefined;
  // Read in K places, a sorted file's rows fall on a few partitions at a time, and unevenly: the reader shifts
  // its rows to the partitions with room, which it can do only while the pace offers all the table takes.
  const unevenKeys = spread !== undefined && spread.ranges.length > 1;
  const policy = writePolicyFor({ adaptive: config.adaptiveConcurrency, startRate, tableGrows, unevenKeys });
  const { writeMode, versionColumn } = config;
  const writer = createBatchWriter({ ...optionsOf(config, ['write']), writeMode, versionColumn, keys, table: config.table, policy, client: clients.batchWrite, keyIdOf: keyIdReader(config), stats: report.stats, onReject: report.recordRejection, warn });
  /** @type {ReturnType<typeof createShuffleWindow<import('../types.js').Entry>>} */
  const shuffle = createShuffleWindow(config.shuffleWindow, (entry) => writer.add(entry), {
    keyOf: (entry) => entry.keyId,
    // A conditional write mode applies every row of a key in turn: none replaces another.
    onCollapse:
      writeMode === 'put'
        ? (older, newer) => {
            report.stats.duplicatesCollapsed++;
            supersede(newer, older);
          }
        : undefined,
  });
  // The hand-over must be made before Lambda ends the invocation, even if the drain estimate was wrong
  // (a table that stops answering): then the writes going on are given up and their rows handed on.
  const reserveMs = Math.min(HAND_OVER_RESERVE_MS, config.timeMarginMs / 2);
  const giveUpWrites = () => {
    writer.abandon();
    clients.batchWrite.destroy();
  };
  if (deadline !== Infinity) {
    const giveUp = setTimeout(giveUpWrites, Math.max(0, deadline - reserveMs - performance.now()));
    cleanup.defer(() => clearTimeout(giveUp));
  }
  if (abandon !== undefined) {
    abandon.addEventListener('abort', giveUpWrites, { once: true });
    cleanup.defer(() => abandon.removeEventListener('abort', giveUpWrites));
  }
  // As it grows, it says so in its warm throughput: the pace goes there at once (this shard's share).
  if (tableGrows && config.adaptiveConcurrency) {
    const warmWatch = watchWarmThroughput({ dynamodb: clients.dynamodb, table: config.table, from: facts.warmWritesPerSecond, onWarm: (units) => policy.pace.warm(units / start.shards) });
    cleanup.defer(() => warmWatch.stop());
  }
  const tooLong = drainTooLong({ deadline, reserveMs, maxWcu: config.maxWcu, stats: report.stats, queued: () => writer.queued() + shuffle.held() });
  return { writer, shuffle, tooLong };
}

/**
 * A spread segment's reading: a reader per range, their rows interleaved in key order.
 * @param {{ config: Config, clients: import('../clients.js').Clients, source: Input['source'], format: import('../config/values.js').Format,
 *   keys: import('../write/table-check.js').TableKeys, shaping: import('../items/shaping.js').Shaping, spread: SpreadRanges, rows: RowsSoFar, onReopen: (event: Record<string, unknown>) => void,
 *   pass: (entry: import('../types.js').Entry) => Promise<void> | undefined, report: Report, firstByte: number, stopBy: number, stopNow: () => boolean,
 *   writer: ReturnType<typeof createBatchWriter> }} options
 */
function readSpreadSegment({ config, clients, source, format, keys, shaping, spread, rows, onReopen, pass, report, firstByte, stopBy, stopNow, writer }) {
  return readSpread({
    ranges: spread.ranges,
    end: source.end,
    async open(range) {
      const opened = await openBytes(clients.s3, config, { byte: range.byte, end: source.end, etag: source.etag, gzip: false }, onReopen);
      const { records } = rowStages({ format, config, start: { line: range.line, byte: range.byte, header: rows.header, encoding: spread.encoding }, source, keys, shaping });
      return { records, body: opened.body, close: opened.close };
    },
    buildItem: /** @type {import('./read-rows.js').BuildItem} */ (rows.buildItem),
    // Generated keys are new for every row: no two rows share one, so no order needs keeping.
    compare: config.generateKey ? undefined : keyOrderOf(keys),
    pass,
    report,
    firstByte,
    stopBy,
    stopNow,
    pending: writer.pending,
    settled: writer.settled,
    // Half the rows the writer holds: a range's rows are then not queued behind a writer full of the
    // others', and the rows of a range on a hot partition, coming back throttled, hold it back sooner.
    rowsInFlight: (config.concurrency * rowsPerCall(config.writeMode)) / 2,
  });
}

/**
 * The segment's end: a hand-over (a checkpoint, with the rows whose writes were given up saved beside
 * it) when it stopped before the end of its bytes or left rows unwritten, else the summary.
 * @param {{ config: Config, start: Start, jobId: string, store: import('../state/output-store.js').OutputStore, logger: import('../types.js').Logger,
 *   where: Record<string, unknown>, input: Input, format: import('../config/values.js').Format, rows: RowsSoFar, spread: SpreadRanges | undefined,
 *   readTo: { byte: number, line: number, encoding: import('../config/values.js').Encoding | undefined } | undefined, stoppedEarly: boolean,
 *   writer: ReturnType<typeof createBatchWriter>, report: Report, abandoned: boolean }} segment
 * @returns {Promise<SegmentOutcome>}
 */
async function finishSegment({ config, start, jobId, store, logger, where, input, format, rows, spread, readTo, stoppedEarly, writer, report, abandoned }) {
  const { header } = rows;
  // Rows left over when the writes were given up are handed on with the checkpoint, read or not to the end.
  const left = writer.leftOver();
  if ((stoppedEarly || left.length > 0) && header !== undefined) {
    const at =
      readTo !== undefined
        ? { handOver: /** @type {const} */ (true), ...readTo, header, gzip: input.gzip, format }
        : { handOver: /** @type {const} */ (true), ...firstUnfinished(/** @type {SpreadRanges} */ (spread).ranges), header, gzip: false, encoding: spread?.encoding, format, spread: spreadToCarry(/** @type {SpreadRanges} */ (spread)) };
    if (left.length === 0) return await report.finish(at);
    const key = replayKey(config.statusPrefix, jobId, start.shard, start.segment, newRunName());
    await store.putJson(key, left);
    const reason = abandoned ? 'the writes going on were given up (a second Ctrl-C)' : 'the writes going on did not end before the time kept for the hand-over';
    logger.warn('writes handed over', { ...where, jobId, rows: left.length, reason });
    return await report.finish({ ...at, replay: { key, rows: left.length } });
  }
  return await report.finish({ handOver: false, note: compressedNote(config, input) });
}

/** The spread a checkpoint carries: its ranges with their cursors, and the form of their key spans. @param {SpreadRanges} spread */
const spreadToCarry = ({ keyIds, ranges }) => ({ keyIds, ranges });

/** What the summary says of a compressed file asked to be cut or spread. @param {Config} config @param {Input} input */
function compressedNote(config, input) {
  if (!input.gzip) return undefined;
  if (config.shards > 1 || config.bytesPerShard !== undefined) return `the file is ${input.compression}-compressed, which cannot be split: it ran as one shard${config.spread > 1 ? ', read in one place' : ''}`;
  if (config.spread > 1) return `the file is ${input.compression}-compressed, which cannot be entered mid-way: it was read in one place, not ${config.spread} (spread)`;
  return undefined;
}

/**
 * Where a spread segment's checkpoint says it is: the first range with bytes left (every range's cursor is
 * in `spread`). @param {import('../plan/spread-plan.js').SpreadRange[]} ranges
 */
function firstUnfinished(ranges) {
  const range = ranges.find((r) => r.byte < /** @type {number} */ (r.stop)) ?? ranges[ranges.length - 1];
  return { byte: Math.max(1, range.byte), line: Math.max(1, range.line) };
}

/**
 * Time kept after the drain for closing the rejects file, the final status and the hand-over's Invoke (at
 * most half the time margin).
 */
const HAND_OVER_RESERVE_MS = 5_000;

/**
 * Writes the rows a previous segment left (checkpoint.replay), in file order, before this segment reads.
 * Each row's keyId is read again from its item: rows saved by an earlier build carry keyIds of another
 * form (composite keys joined with a NUL, binaries as written), which this segment's rows would not meet.
 * @param {import('../state/output-store.js').OutputStore} store
 * @param {import('../state/checkpoint.js').Replay} replay @param {ReturnType<typeof createBatchWriter>} writer
 * @param {(item: import('../types.js').Item) => string} keyIdOf
 */
async function writeReplay(store, replay, writer, keyIdOf) {
  /** @type {import('../types.js').Entry[] | undefined} */
  const rows = await store.getJson(replay.key);
  if (!Array.isArray(rows) || rows.length !== replay.rows) {
    throw new JobError(`${store.where(replay.key)} should hold the ${replay.rows} rows the previous segment left to write; it is missing or was changed, so resuming here would lose them: run the job again from its start`);
  }
  for (const row of rows) {
    row.keyId = keyIdOf(JSON.parse(row.json));
    const wait = writer.add(row);
    if (wait !== undefined) await wait;
  }
}

/**
 * Whether the rows queued for the table (in the writer and the shuffle window) would take past the
 * deadline to write at the rate the table takes them now: then the reader stops, as at stopBy. With a
 * small maxWcu or a table that throttles hard, the writes in flight at stopBy could otherwise outlast the
 * time margin, and Lambda would end the segment before its checkpoint, again and again. The rate is the
 * segment's average, at most maxWcu; before a second has passed, maxWcu alone (or no estimate).
 * @param {{ deadline: number, reserveMs: number, maxWcu: number | undefined, stats: import('../observe/counters.js').Stats, queued: () => number }} options
 * @returns {() => boolean}
 */
function drainTooLong({ deadline, reserveMs, maxWcu, stats, queued }) {
  if (deadline === Infinity) return () => false;
  const started = performance.now();
  const writtenBefore = stats.written;
  return () => {
    const now = performance.now();
    const seconds = (now - started) / 1000;
    const measured = seconds >= 1 ? (stats.written - writtenBefore) / seconds : Infinity;
    const rate = Math.min(measured, maxWcu ?? Infinity);
    if (rate === Infinity) return false;
    const drainMs = rate > 0 ? (queued() / rate) * 1000 : Infinity;
    return now + drainMs > deadline - reserveMs;
  };
}

/**
 * A checkpoint goes on with the write options its job started with: the rows before it were read so, and
 * the rest read otherwise would not be the job it is the checkpoint of (a dropped fromRejects would reject
 * every row left as FIELD_COUNT).
 * @param {Readonly<import('../config/index.js').ImportConfig>} config
 */
function checkSameWriteOptions(config) {
  const saved = config.checkpoint?.options;
  if (saved === undefined) return;
  const changed = changedWriteOption(saved, writeOptionsOf(config));
  if (changed === undefined) return;
  throw new ConfigError(changed.name, changed.now, `the checkpoint's job was started with ${changed.name} ${JSON.stringify(changed.was)}, and the rows before the checkpoint were read so: resume with ${changed.name} ${JSON.stringify(changed.was)}, or import again from the start without the checkpoint`);
}

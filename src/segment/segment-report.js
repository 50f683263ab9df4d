/**
 * What one segment reports, wired in one place: its counters, its rejects file, its status object and the
 * throughput line (log, metrics, status), from its start to one `finish`, which closes the rejects file and
 * produces the final status with the summary (the job or shard is done) or with the checkpoint (it is handed
 * over), or `fail`, which records a failed segment.
 */
import { countRejection, createStats, summarize, totalsOf, unwrittenOf } from '../observe/counters.js';
import { createMetricsPublisher } from '../observe/metrics.js';
import { createRejectsWriter } from '../observe/rejects.js';
import { startThroughputLog } from '../observe/throughput.js';
import { checkpointAfter } from '../state/checkpoint.js';
import { writeOptionsOf } from '../state/write-options.js';
import { createStatusWriter, runnerOf } from '../state/job-status.js';
import { newRunName, rejectsKey, shardStatusKey } from '../state/object-keys.js';
import { sourceFields, sourceName } from '../source/source-name.js';

/** @typedef {import('../state/checkpoint.js').Checkpoint} Checkpoint */
/** @typedef {import('../types.js').Rejection} Rejection */
/**
 * @typedef {ReturnType<typeof summarize> & {
 *   jobId: string, bucket?: string, key?: string, file?: string, table: string, segments: number, reopens: number,
 *   rejectsObjects: string[], rejectSample: Array<{ line: number, reason: string }>,
 *   shard: number, shards: number, startedAt: string, ttlFrom?: string, note?: string
 * }} ImportSummary
 */
/** @typedef {{ done: true, summary: ImportSummary } | { done: false, checkpoint: Checkpoint }} SegmentOutcome */

/** How many rejections the summary lists by line (all of them are counted, and all are in the rejects file). */
const REJECT_SAMPLE = 20;

/**
 * @typedef {object} SegmentReportOptions
 * @property {Readonly<import('../config/index.js').ImportConfig>} config
 * @property {import('../state/output-store.js').OutputStore} store  where the rejects file and the status go
 * @property {import('../types.js').Logger} logger
 * @property {import('../state/checkpoint.js').SegmentStart} start
 * @property {string} jobId
 * @property {{ etag: string, contentLength: number, reopens: () => number }} source
 * @property {number | undefined} totalBytes  bytes the reader goes through, for a share read: the object's size (unknown when compressed)
 * @property {() => string[] | undefined} header  the file's header, once known (the rejects file repeats it)
 * @property {boolean} publishMetrics
 */

/** @param {SegmentReportOptions} options */
export async function startSegmentReport({ config, store, logger, start, jobId, source, totalBytes, header, publishMetrics }) {
  const { segment, shard, shards, rejectSample, rejectsObjects } = start;
  const context = { jobId, shard, segment, ...sourceFields(config), table: config.table };
  const stats = createStats(start.totals);
  stats.byte = start.byte;
  const rejects = createRejections(stats, rejectSample, createRejectsWriter({ store, key: rejectsKey(config.rejectsPrefix, sourceName(config), jobId, segment, shards > 1 ? shard : undefined, newRunName()), header }));
  const status = createStatusWriter({
    store,
    key: shardStatusKey(config.statusPrefix, jobId, shard),
    onError: (error) => logger.warn('job status not written', { ...context, error: String(error) }),
  });
  const metrics = await createMetricsPublisher(config.table, publishMetrics);
  const runner = runnerOf();
  const seconds = () => start.seconds + throughput.seconds();
  const reopens = () => start.reopens + source.reopens();
  /** The job's figures so far, as the status object and the summary show them. */
  const figures = () => ({
    jobId, ...sourceFields(config), table: config.table, shard, shards, startedAt: start.startedAt,
    // A filled TTL column's time, which every row's expiry counts from.
    ...(config.ttl?.after === undefined ? {} : { ttlFrom: start.importTime }),
    ...summarize(stats, seconds()), segments: segment, reopens: reopens(), rejectsObjects, rejectSample,
  });
  /** @param {import('../state/job-status.js').ShardState} state @param {Record<string, unknown>} [extra] */
  const statusNow = (state, extra) => ({ ...figures(), state, updatedAt: new Date().toISOString(), heartbeatMs: config.logIntervalMs, runner, ...extra });

  let advisedOnHotKeys = false;
  /** The first time the table throttles a hot key range, say what helps: spreading the rows, not slowing down. @param {Record<string, number>} byReason */
  function adviseOnHotKeys(byReason) {
    if (advisedOnHotKeys) return;
    const reason = Object.keys(byReason).find((name) => name.endsWith('KeyRangeThroughputExceeded'));
    if (reason === undefined) return;
    advisedOnHotKeys = true;
    logger.warn('hot key range', { ...context, reason: `${reason}: the rows of a few partition key values come together in the file, and their partition takes at most 1,000 WCU/s; a file sorted by the table's key can be read in several places at once (spread, e.g. 16), any other file reordered (shuffleWindow, e.g. 100000)` });
  }

  const throughput = startThroughputLog(
    stats,
    (line) => {
      logger.info('throughput', { jobId, shard, segment, ...line, bytes: totalBytes });
      adviseOnHotKeys(line.throttledCallsByReason);
      metrics?.(line);
      status.update(statusNow('running'));
    },
    config.logIntervalMs,
  );
  status.update(statusNow('running'));
  logger.info(segment === 1 ? 'import started' : 'import resumed', { ...context, bytes: source.contentLength, fromByte: start.byte, concurrency: config.concurrency });

  /** @type {Promise<void> | undefined} */
  let rejectsClosed;
  /** Closes the rejects file (its object joins the job's list, once) and stops the throughput line. */
  function closeRejects() {
    rejectsClosed ??= rejects.close().then((written) => {
      if (written !== undefined) rejectsObjects.push(written.key);
      if (written !== undefined && written.formulaCells > 0) {
        logger.warn('rejects file holds formulas', { ...context, rejectsObject: written.key, cells: written.formulaCells, advice: 'cells that start with =, +, - or @ run as formulas when a spreadsheet opens the file: open it as text (import it as data), never by double-click; the file keeps them as the source wrote them, for --from-rejects' });
      }
      throughput.stop();
    });
    return rejectsClosed;
  }

  return {
    stats,
    recordRejection: rejects.record,
    rejectRow: rejects.rejectRow,
    rejectsBacklog: rejects.backlog,

    /**
     * The segment's end: the job's (or shard's) summary, or, when it stopped early, the checkpoint the next
     * segment starts from.
     * @param {{ handOver: false, note?: string } | { handOver: true, byte: number, line: number, header: string[], gzip: boolean, encoding: import('../records/csv/text-encoding.js').Encoding | undefined, replay?: import('../state/checkpoint.js').Replay, spread?: import('../state/checkpoint.js').Spread }} end
     * @returns {Promise<SegmentOutcome>}
     */
    async finish(end) {
      await closeRejects();
      if (end.handOver) {
        const { handOver: _, ...at } = end;
        const checkpoint = checkpointAfter(start, { ...at, jobId, etag: source.etag, options: writeOptionsOf(config), seconds: seconds(), reopens: reopens(), totals: totalsOf(stats), rejectsObjects, rejectSample });
        await status.finish(statusNow('running', { handedOverAt: { byte: checkpoint.byte, line: checkpoint.line } }));
        logger.info('segment handed over', { ...context, byte: checkpoint.byte, line: checkpoint.line, rowsRead: stats.rowsRead, written: stats.written, rejected: stats.rejected });
        return { done: false, checkpoint };
      }
      /** @type {ImportSummary} */
      const summary = { ...figures(), ...(end.note === undefined ? {} : { note: end.note }) };
      await status.finish({ ...summary, state: 'done', updatedAt: new Date().toISOString(), runner });
      logger.info('summary', summary);
      return { done: true, summary };
    },

    /** The segment failed: the rejects file is closed if it can be, and the status says failed. @param {unknown} error */
    async fail(error) {
      await closeRejects().catch((rejectsError) => logger.error('rejects file failed', { ...context, error: String(rejectsError) }));
      throughput.stop();
      logger.error('import failed', { ...context, ...summarize(stats, throughput.seconds()), unwritten: unwrittenOf(stats), error: String(error) });
      await status.finish(statusNow('failed', { error: String(error) })).catch((statusError) => logger.error('job status not written', { ...context, error: String(statusError) }));
    },
  };
}

/**
 * A segment's rejections: counted (the writer counts its own), the first few kept for the summary, and
 * every one streamed to the rejects file.
 * @param {import('../observe/counters.js').Stats} stats
 * @param {Array<{ line: number, reason: string }>} sample  the job's sample so far
 * @param {ReturnType<typeof createRejectsWriter>} file
 */
function createRejections(stats, sample, file) {
  /** A rejection already counted: into the sample and the rejects file. @param {Rejection} rejection */
  function record(rejection) {
    if (sample.length < REJECT_SAMPLE) sample.push({ line: rejection.line, reason: rejection.reason });
    file.write(rejection);
  }
  return {
    record,
    /**
     * A row that cannot be written: counted, sampled and written to the rejects file.
     * @param {{ reason: import('../errors.js').RejectReason, message: string }} problem @param {number} line @param {string[]} fields
     */
    rejectRow(problem, line, fields) {
      countRejection(stats, problem.reason);
      record({ line, reason: problem.reason, message: problem.message, fields });
    },
    /** A promise to wait on while the rejects upload is behind, else undefined. */
    backlog: () => (file.backlogged() ? file.drained() : undefined),
    close: () => file.close(),
  };
}

/**
 * One segment of an import job: S3 object (from a checkpoint's byte, if any) -> csv-parse -> items ->
 * batch writer, with a throughput line every interval. Rows that cannot be written go to the rejects
 * file. The segment either reaches the end of the object and returns the job's summary, whose books
 * balance (rowsRead = written + rejected + duplicatesCollapsed), or, past `stopBy`, stops at a record
 * boundary, lets every write in flight end, and returns a checkpoint for the next segment.
 */
import { createBatchWriter } from '../write/batch-writer.js';
import { jobIdFor } from './checkpoint.js';
import { createRecordParser } from '../records/csv-records.js';
import { createStatusWriter, runnerOf, shardStatusKey } from './job-status.js';
import { createRejectsWriter, rejectsKey } from '../observe/rejects.js';
import { createShuffleWindow } from '../items/shuffle.js';
import { createItemBuilder, keyIdReader, RowError } from '../items/item-builder.js';
import { runningInLambda } from '../config.js';
import { createMetricsPublisher } from '../observe/metrics.js';
import { openSource } from '../source/s3-object.js';
import { csvBytes } from '../source/compression.js';
import { checkTable } from '../write/table-check.js';
import { countRejection, createStats, startThroughputLog, summarize, totalsOf } from '../observe/counters.js';

/** @typedef {import('../config.js').ImportConfig} ImportConfig */
/** @typedef {import('./checkpoint.js').Checkpoint} Checkpoint */
/** @typedef {import('../write/batch-writer.js').Rejection} Rejection */
/**
 * @typedef {ReturnType<typeof summarize> & {
 *   jobId: string, bucket: string, key: string, table: string, segments: number, reopens: number,
 *   rejectsObjects: string[], rejectSample: Array<{ line: number, reason: string }>,
 *   shard: number, shards: number, startedAt: string, note?: string
 * }} ImportSummary
 */
/** @typedef {{ done: true, summary: ImportSummary } | { done: false, checkpoint: Checkpoint }} SegmentOutcome */

/** How many rejections the summary lists by line (all of them are counted, and all are in the rejects file). */
const REJECT_SAMPLE = 20;

/**
 * @typedef {object} Logger
 * @property {(message: string, fields: Record<string, unknown>) => void} info
 * @property {(message: string, fields: Record<string, unknown>) => void} warn
 * @property {(message: string, fields: Record<string, unknown>) => void} error
 */

/**
 * @typedef {object} ImportDeps
 * @property {import('../clients.js').Clients} clients
 * @property {Logger} logger
 * @property {number} [stopBy]  performance.now() time after which the segment hands over
 * @property {boolean} [publishMetrics]  CloudWatch metrics (EMF) each interval; default: in Lambda
 */

/**
 * @param {Readonly<ImportConfig>} config  `config.checkpoint`, if set, is where this segment starts
 * @param {ImportDeps} deps
 * @returns {Promise<SegmentOutcome>}
 */
export async function runImport(config, { clients, logger, stopBy = Infinity, publishMetrics = runningInLambda() }) {
  const resume = config.checkpoint;
  const shard = config.shard;
  const segment = (resume?.segments ?? 0) + 1;
  const startByte = resume?.byte ?? shard?.start ?? 0;
  const startedAt = resume?.startedAt ?? new Date().toISOString();
  const stats = createStats(resume?.totals);
  const rejectSample = [...(resume?.rejectSample ?? [])];
  const rejectsObjects = [...(resume?.rejectsObjects ?? [])];

  const shardIndex = shard?.index ?? 0;
  const shardCount = shard?.count ?? 1;
  const context = { jobId: resume?.jobId ?? shard?.jobId, shard: shardIndex, segment, bucket: config.bucket, key: config.key, table: config.table };
  await checkTable(clients.dynamodb, config);
  // A compressed file is read from its start by every segment (see source-encoding.js).
  const resumeGzip = resume?.gzip === true;
  const source = await openSource(clients.s3, config.bucket, config.key, {
    start: resumeGzip ? 0 : startByte,
    end: shard?.end,
    etag: resume?.etag ?? shard?.etag,
    idleTimeoutMs: config.readIdleTimeoutMs,
    maxReopens: config.maxReopens,
    onReopen: (event) => logger.warn('source re-opened', { ...context, ...event }),
  });
  const input = await csvBytes(source.body, { skip: resumeGzip ? startByte : 0 });
  const jobId = resume?.jobId ?? shard?.jobId ?? jobIdFor(config.bucket, config.key, source.etag);
  context.jobId = jobId;

  /** @type {string[] | undefined} */
  let header = resume?.header ?? shard?.header;
  const rejects = createRejectsWriter({
    s3: clients.s3,
    bucket: config.bucket,
    key: rejectsKey(config.rejectsPrefix, config.key, jobId, segment, shardCount > 1 ? shardIndex : undefined),
    header: () => header,
  });
  const recordRejection = (/** @type {Rejection} */ rejection) => {
    if (rejectSample.length < REJECT_SAMPLE) rejectSample.push({ line: rejection.line, reason: rejection.reason });
    rejects.write(rejection);
  };
  /** @param {{ reason: import('../items/item-builder.js').RejectReason, message: string }} error @param {number} line @param {string[]} fields */
  const rejectRow = (error, line, fields) => {
    countRejection(stats, error.reason);
    recordRejection({ line, reason: error.reason, message: error.message, fields });
  };

  const writer = createBatchWriter({
    client: clients.batchWrite,
    table: config.table,
    keyIdOf: keyIdReader(config),
    concurrency: config.concurrency,
    adaptive: config.adaptiveConcurrency,
    minConcurrency: config.minConcurrency,
    maxWcu: config.maxWcu,
    maxAttempts: config.maxAttempts,
    backoffBaseMs: config.backoffBaseMs,
    backoffCapMs: config.backoffCapMs,
    stats,
    onReject: recordRejection,
  });
  const metrics = await createMetricsPublisher(config.table, publishMetrics);
  const status = createStatusWriter({
    s3: clients.s3,
    bucket: config.bucket,
    key: shardStatusKey(config.statusPrefix, jobId, shardIndex),
    onError: (error) => logger.warn('job status not written', { ...context, error: String(error) }),
  });
  const runner = runnerOf();
  /** @param {import('./job-status.js').ShardState} state @param {Record<string, unknown>} [extra] */
  const statusNow = (state, extra) => ({
    jobId, shard: shardIndex, shards: shardCount, state, bucket: config.bucket, key: config.key, table: config.table,
    startedAt, updatedAt: new Date().toISOString(), segments: segment, runner,
    ...summarize(stats, (resume?.seconds ?? 0) + throughput.seconds()),
    rejectsObjects, rejectSample, ...extra,
  });
  const throughput = startThroughputLog(
    stats,
    (fields) => {
      logger.info('throughput', { jobId, shard: shardIndex, segment, ...fields });
      metrics?.(fields);
      status.update(statusNow('running'));
    },
    config.logIntervalMs,
  );
  status.update(statusNow('running'));
  logger.info(resume === undefined ? 'import started' : 'import resumed', { ...context, bytes: source.contentLength, fromByte: startByte, concurrency: config.concurrency });

  /** @type {ReturnType<typeof createShuffleWindow<import('../write/batch-writer.js').Entry>>} */
  const shuffle = createShuffleWindow(config.shuffleWindow, (entry) => writer.add(entry));
  const { parser, toRow, linesRead } = createRecordParser({ delimiter: config.delimiter, lineOffset: resume?.line ?? shard?.line ?? 0, fieldCount: header?.length });
  let buildItem = header === undefined ? undefined : createItemBuilder(header, config, source);
  // Bytes of this segment's stream up to the end of the last record handled: the checkpoint's position.
  let bytesDone = 0;
  let handOver = false;
  try {
    input.body.on('error', (error) => parser.destroy(error));
    input.body.pipe(parser);
    for await (const output of parser) {
      const row = toRow(output);
      if (row.fields === undefined) {
        stats.rowsRead++;
        rejectRow(row, row.line, row.partialFields);
        continue;
      }
      const { fields: record, line } = row;
      if (buildItem === undefined) {
        header = record;
        buildItem = createItemBuilder(record, config, source);
        continue;
      }
      stats.rowsRead++;
      let built;
      try {
        built = buildItem(record, line);
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        rejectRow(error, line, record);
      }
      if (built !== undefined) {
        const wait = shuffle.add({ json: built.json, keyId: built.keyId, line, fields: record });
        if (wait !== undefined) await wait;
      }
      if (rejects.backlogged()) await rejects.drained();
      bytesDone = row.endByte;
      if ((stats.rowsRead & 63) === 0 && performance.now() > stopBy) {
        handOver = input.gzip || startByte + bytesDone < source.end;
        if (handOver) break;
      }
    }
    await shuffle.drain();
    await writer.flush();
  } catch (error) {
    input.body.destroy();
    source.body.destroy();
    // Stop reading, but let the calls already sent finish and be counted before failing.
    await writer.flush().catch(() => {});
    await rejects.close().catch((rejectsError) => logger.error('rejects file failed', { ...context, error: String(rejectsError) }));
    throughput.stop();
    const unwritten = stats.rowsRead - stats.written - stats.rejected - stats.duplicatesCollapsed;
    logger.error('import failed', { ...context, ...summarize(stats, throughput.seconds()), unwritten, error: String(error) });
    await status.finish(statusNow('failed', { error: String(error) })).catch((statusError) => logger.error('job status not written', { ...context, error: String(statusError) }));
    throw error;
  }
  input.body.destroy();
  source.body.destroy();
  const written = await rejects.close();
  if (written !== undefined) rejectsObjects.push(written.key);
  throughput.stop();
  const seconds = (resume?.seconds ?? 0) + throughput.seconds();
  const reopens = (resume?.reopens ?? 0) + source.reopens();

  if (handOver && header !== undefined) {
    /** @type {Checkpoint} */
    const checkpoint = {
      jobId,
      etag: source.etag,
      byte: startByte + bytesDone,
      line: linesRead(),
      header,
      segments: segment,
      seconds,
      reopens,
      totals: totalsOf(stats),
      rejectsObjects,
      rejectSample,
      startedAt,
      ...(input.gzip ? { gzip: true } : {}),
    };
    await status.finish(statusNow('running', { handedOverAt: { byte: checkpoint.byte, line: checkpoint.line } }));
    logger.info('segment handed over', { ...context, byte: checkpoint.byte, line: checkpoint.line, rowsRead: stats.rowsRead, written: stats.written, rejected: stats.rejected });
    return { done: false, checkpoint };
  }
  const summary = {
    jobId, bucket: config.bucket, key: config.key, table: config.table, shard: shardIndex, shards: shardCount, startedAt,
    ...summarize(stats, seconds), segments: segment, reopens, rejectsObjects, rejectSample,
    ...(input.gzip && (config.shards > 1 || config.bytesPerShard !== undefined) ? { note: 'the file is gzip-compressed, which cannot be split: it ran as one shard' } : {}),
  };
  await status.finish({ ...summary, state: 'done', updatedAt: new Date().toISOString(), runner });
  logger.info('summary', summary);
  return { done: true, summary };
}

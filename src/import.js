/**
 * One import: S3 object -> csv-parse -> items -> batch writer, with a throughput line every interval
 * and a summary whose books balance: rowsRead = written + rejected + duplicatesCollapsed.
 */
import { createBatchWriter } from './batch-writer.js';
import { createRecordParser } from './csv-records.js';
import { createItemBuilder, keyIdReader, RowError } from './rows.js';
import { openSource } from './s3-source.js';
import { checkTable } from './table-check.js';
import { countRejection, createStats, startThroughputLog, summarize } from './throughput.js';

/** @typedef {import('./config.js').ImportConfig} ImportConfig */
/** @typedef {import('./batch-writer.js').Rejection} Rejection */
/** @typedef {ReturnType<typeof summarize> & { bucket: string, key: string, table: string, rejectSample: Array<{ line: number, reason: string }> }} ImportSummary */

/** How many rejections the summary lists by line (all of them are counted). */
const REJECT_SAMPLE = 20;

/**
 * @typedef {object} ImportDeps
 * @property {import('./clients.js').Clients} clients
 * @property {{ info: (message: string, fields: Record<string, unknown>) => void, error: (message: string, fields: Record<string, unknown>) => void }} logger
 * @property {(rejection: Rejection) => void} [onReject]  every rejected row, with its fields
 */

/**
 * @param {Readonly<ImportConfig>} config
 * @param {ImportDeps} deps
 * @returns {Promise<ImportSummary>}
 */
export async function runImport(config, { clients, logger, onReject }) {
  const stats = createStats();
  /** @type {Array<{ line: number, reason: string }>} */
  const rejectSample = [];
  const recordRejection = (/** @type {Rejection} */ rejection) => {
    if (rejectSample.length < REJECT_SAMPLE) rejectSample.push({ line: rejection.line, reason: rejection.reason });
    onReject?.(rejection);
  };
  const keyIdOf = keyIdReader(config);
  const writer = createBatchWriter({
    client: clients.dynamodb,
    table: config.table,
    keyIdOf,
    concurrency: config.concurrency,
    maxAttempts: config.maxAttempts,
    backoffBaseMs: config.backoffBaseMs,
    backoffCapMs: config.backoffCapMs,
    stats,
    onReject: recordRejection,
  });

  await checkTable(clients.dynamodb, config);
  const source = await openSource(clients.s3, config.bucket, config.key);
  const throughput = startThroughputLog(stats, (fields) => logger.info('throughput', fields), config.logIntervalMs);
  const context = { bucket: config.bucket, key: config.key, table: config.table };
  logger.info('import started', { ...context, bytes: source.contentLength, concurrency: config.concurrency });

  /** @param {RowError | { reason: import('./rows.js').RejectReason, message: string }} error @param {number} line @param {string[]} fields */
  const rejectRow = (error, line, fields) => {
    countRejection(stats, error.reason);
    recordRejection({ line, reason: error.reason, message: error.message, fields });
  };

  const { parser, toRow } = createRecordParser({ delimiter: config.delimiter });

  /** @type {ReturnType<typeof createItemBuilder> | undefined} */
  let buildItem;
  try {
    source.body.on('error', (error) => parser.destroy(error));
    source.body.pipe(parser);
    for await (const output of parser) {
      const row = toRow(output);
      if (row.fields === undefined) {
        stats.rowsRead++;
        rejectRow(row, row.line, row.partialFields);
        continue;
      }
      const { fields: record, line } = row;
      if (buildItem === undefined) {
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
        continue;
      }
      const wait = writer.add({ item: built.item, keyId: built.keyId, line, fields: record });
      if (wait !== undefined) await wait;
    }
    await writer.flush();
  } catch (error) {
    source.body.destroy();
    // Stop reading, but let the calls already sent finish and be counted before failing.
    await writer.flush().catch(() => {});
    throughput.stop();
    const unwritten = stats.rowsRead - stats.written - stats.rejected - stats.duplicatesCollapsed;
    logger.error('import failed', { ...context, ...summarize(stats, throughput.seconds()), unwritten, error: String(error) });
    throw error;
  }
  throughput.stop();
  const summary = { ...context, ...summarize(stats, throughput.seconds()), rejectSample };
  logger.info('summary', summary);
  return summary;
}

/**
 * A dry run: the whole file read and checked exactly as an import reads it (records, types, keys against
 * the table, item sizes), with nothing written to the table, and a report of what an import would do:
 * rows written and rejected (by reason, with their first lines), distinct keys, write capacity in the
 * table and in each index, what it would cost on demand (and what DynamoDB's Import from S3 would charge
 * for a new table), and how long it would take at the table's ceiling and at maxWcu.
 */
import { countRejection, createStats, round } from '../observe/counters.js';
import { startThroughputLog } from '../observe/throughput.js';
import { createKeyCount, EXACT_KEYS } from '../items/key-count.js';
import { createWriteCost } from '../write/write-cost.js';
import { openBytes } from '../source/open-bytes.js';
import { sourceFields, sourceWhere } from '../source/source-name.js';
import { isCollection } from '../config/index.js';
import { checkKeyTypes, checkTable, tableKeysOf } from '../write/table-check.js';
import { ConfigError } from '../errors.js';
import { formatOf, rowStages } from '../segment/row-stages.js';
import { ceilingOf, checkRecoverable, tableFacts } from '../write/table-facts.js';
import { jobIdOf, segmentStart } from '../state/checkpoint.js';
import { IMPORT_FROM_S3_USD_PER_GB, NEW_ON_DEMAND_WRITES_PER_SECOND, ON_DEMAND_USD_PER_MILLION_WRITES, PRICES_READ_ON } from './prices.js';
import { readRows } from '../segment/read-rows.js';
import { createItemRequests } from '../write/item-requests.js';
import { rowsPerCall } from '../write/batch-writer.js';

/** Lines listed per reject reason. */
const LINES_PER_REASON = 5;

/**
 * @param {Readonly<import('../config/index.js').ImportConfig>} config
 * @param {{ clients: import('../clients.js').Clients, logger: import('../types.js').Logger, stop?: AbortSignal }} deps  `stop`: report on the rows read so far
 */
export async function runDryRun(config, { clients, logger, stop }) {
  const started = performance.now();
  if (isCollection(config)) throw new ConfigError('dryRun', true, `a dry run reads one object, and ${sourceWhere(config)} names a job over many: dry-run one of its objects (key), or import without dryRun`);
  const table = await checkTable(clients.dynamodb, config);
  // As an import would: a table it would refuse (requirePitr) is refused, a warning is given.
  const facts = tableFacts(table);
  const pointInTimeRecovery = await checkRecoverable(clients.dynamodb, config, facts, (message, fields) => logger.warn(message, fields));
  const start = segmentStart({ checkpoint: undefined, shard: undefined, etag: config.etag });
  const input = await openBytes(clients.s3, config, start, (event) => logger.warn('source re-opened', { ...event }));
  const { format, body, empty } = await formatOf(config, start, input.body);
  // A file of no bytes has no header and no rows: no column types to check against the table.
  if (format === 'csv' && !empty) checkKeyTypes(table, config);
  const cost = createWriteCost(table);
  // The same records and items stages as an import's, so that the dry run rejects what the import would;
  // an item's JSON is read only for its secondary indexes.
  // A conditional write mode's rows are checked as their calls would be (a version to compare, an update that fits).
  const refusalOf = callRefusals(config, tableKeysOf(table));
  const shaping = { importTime: Date.parse(start.importTime), warn: (/** @type {string} */ message, /** @type {Record<string, unknown>} */ fields) => logger.warn(message, { dryRun: true, ...fields }) };
  const stages = rowStages({ format, config, start, source: input.source, keys: tableKeysOf(table), sized: true, json: cost.indexes.length > 0 || refusalOf !== undefined, shaping });
  const jobId = jobIdOf(config, input.source.etag);
  const totalBytes = input.gzip ? undefined : input.source.contentLength;
  const stats = createStats();
  const keys = createKeyCount();
  /** @type {Record<string, number[]>} */
  const rejectLines = Object.create(null);
  let itemBytes = 0;
  let largestItem = 0;
  const indexWcu = cost.indexes.map(() => 0);
  const indexItems = cost.indexes.map(() => 0);

  /** @param {{ reason: string, message: string }} problem @param {number} line */
  function reject(problem, line) {
    countRejection(stats, problem.reason);
    const lines = (rejectLines[problem.reason] ??= []);
    if (lines.length < LINES_PER_REASON) lines.push(line);
  }

  const throughput = startThroughputLog(stats, (line) => logger.info('throughput', { jobId, dryRun: true, ...line, bytes: totalBytes }), config.logIntervalMs);
  let reading;
  try {
    reading = await readRows({
      body,
      records: stages.records,
      buildItem: stages.buildItem,
      onHeader: stages.onHeader,
      pass(entry) {
        // Each row's own operation (a delete mode's, or an incremental export's Keys line). A delete's cost is
        // the size of the item it deletes, which the file does not hold: one unit at least.
        const deletes = entry.op === 'delete';
        const refusal = deletes ? undefined : refusalOf?.(entry);
        if (refusal !== undefined) {
          reject(refusal, entry.line);
          return undefined;
        }
        const row = deletes ? { itemBytes: 0, wcu: 1, refused: undefined } : cost.costOfWire(entry.json, entry.bytes, indexWcu, indexItems);
        if (row.refused !== undefined) {
          reject({ reason: 'REJECTED_BY_TABLE', message: row.refused }, entry.line);
          return undefined;
        }
        if (deletes) stats.deleted++;
        else stats.written++;
        stats.wcu += row.wcu;
        itemBytes += row.itemBytes;
        if (row.itemBytes > largestItem) largestItem = row.itemBytes;
        keys.add(entry.keyId);
        return undefined;
      },
      report: { stats, rejectRow: (problem, line) => reject(problem, line), rejectsBacklog: () => undefined },
      firstByte: 0,
      stopBy: Infinity,
      stopNow: () => stop?.aborted === true,
      bytesLeft: () => true,
    });
  } finally {
    input.close();
    throughput.stop();
  }

  const indexes = cost.indexes.map((index, x) => ({ name: index.name, kind: index.kind, items: indexItems[x], wcu: indexWcu[x], ceiling: index.writeCeiling }));
  const report = dryRunReport({ config, table, facts, pointInTimeRecovery, complete: !reading.stoppedEarly, jobId, format, stats, keys: keys.result(), rejectLines, itemBytes, largestItem, indexes, bytesRead: stats.byte, seconds: (performance.now() - started) / 1000 });
  logger.info('dry run', report);
  return report;
}

/**
 * @param {object} figures
 * @param {Readonly<import('../config/index.js').ImportConfig>} figures.config
 * @param {import('@aws-sdk/client-dynamodb').TableDescription} figures.table
 * @param {ReturnType<typeof tableFacts>} figures.facts
 * @param {boolean | undefined} figures.pointInTimeRecovery  undefined: it cannot be told
 * @param {boolean} figures.complete  false: stopped before the end of the file, the figures cover what was read
 * @param {string} figures.jobId
 * @param {import('../config/index.js').Format} figures.format
 * @param {import('../observe/counters.js').Stats} figures.stats  `written` and `deleted`: rows that would be put and deleted; `wcu`: the table's
 * @param {{ distinct: number, exact: boolean }} figures.keys
 * @param {Record<string, number[]>} figures.rejectLines
 * @param {number} figures.itemBytes
 * @param {number} figures.largestItem
 * @param {Array<{ name: string, kind: 'global' | 'local', items: number, wcu: number, ceiling: import('../write/table-facts.js').Ceiling | undefined }>} figures.indexes
 * @param {number} figures.bytesRead  of the (decompressed) file
 * @param {number} figures.seconds
 */
export function dryRunReport(figures) {
  // Plain JSON, as a Lambda answer is: the figures that do not apply (an on-demand cost on a provisioned table, a time at maxWcu without one) are left out.
  return /** @type {ReturnType<typeof reportOf>} */ (JSON.parse(JSON.stringify(reportOf(figures))));
}

/** @param {Parameters<typeof dryRunReport>[0]} figures */
function reportOf({ config, table, facts, pointInTimeRecovery, complete, jobId, format, stats, keys, rejectLines, itemBytes, largestItem, indexes, bytesRead, seconds }) {
  const rows = stats.written + stats.deleted;
  // Local indexes live in the table's partitions and draw on its capacity; global ones have their own.
  const tableWcu = stats.wcu + indexes.filter((index) => index.kind === 'local').reduce((sum, index) => sum + index.wcu, 0);
  const pricePerMillion = config.pricePerMillionWrites ?? ON_DEMAND_USD_PER_MILLION_WRITES;
  const totalWcu = stats.wcu + indexes.reduce((sum, index) => sum + index.wcu, 0);
  const onDemand = facts.billingMode === 'PAY_PER_REQUEST';
  const tableCeiling = ceilingOf(table) ?? (onDemand ? { perSecond: NEW_ON_DEMAND_WRITES_PER_SECOND, from: 'assumed for a new on-demand table: the table states no ceiling' } : undefined);
  const limits = [
    ...(tableCeiling === undefined ? [] : [{ limitedBy: `table ${config.table} (${tableCeiling.from})`, seconds: tableWcu / tableCeiling.perSecond, perSecond: tableCeiling.perSecond }]),
    ...indexes.filter((index) => index.kind === 'global' && index.ceiling !== undefined).map((index) => {
      const ceiling = /** @type {import('../write/table-facts.js').Ceiling} */ (index.ceiling);
      return { limitedBy: `index ${index.name} (${ceiling.from})`, seconds: index.wcu / ceiling.perSecond, perSecond: ceiling.perSecond };
    }),
  ];
  const slowest = limits.reduce((worst, limit) => (worst === undefined || limit.seconds > worst.seconds ? limit : worst), /** @type {(typeof limits)[number] | undefined} */ (undefined));
  const gigabytes = bytesRead / 2 ** 30;
  return {
    dryRun: true,
    complete,
    jobId,
    ...sourceFields(config),
    table: config.table,
    format,
    mode: config.mode,
    writeMode: config.writeMode,
    // BatchWriteItem calls of 25 rows (at most), or a conditional mode's call per row.
    calls: Math.ceil(rows / rowsPerCall(config.writeMode)),
    ...(config.writeMode === 'put' ? {} : { writeModeNote: WRITE_MODE_NOTES[config.writeMode] }),
    ...(stats.deleted > 0 ? { deleteNote: 'a delete costs the size of the item it deletes, which the file does not hold: write capacity, cost and time are each at least what is shown (1 WCU per key), index writes are not counted' } : {}),
    rowsRead: stats.rowsRead,
    wouldWrite: stats.written,
    wouldDelete: stats.deleted,
    wouldReject: stats.rejected,
    rejectedByReason: { ...stats.rejectedByReason },
    firstRejectedLines: rejectLines,
    balanced: stats.rowsRead === rows + stats.rejected,
    keys: {
      distinct: keys.distinct,
      exact: keys.exact,
      exactUpTo: EXACT_KEYS,
      // Rows whose key an earlier row of the file has: the later row wins, the table gains no item.
      repeatedRows: Math.max(0, rows - keys.distinct),
    },
    itemBytes: { total: itemBytes, largest: largestItem, average: stats.written === 0 ? 0 : Math.round(itemBytes / stats.written) },
    writeCapacity: { table: stats.wcu, indexes: indexes.map(({ name, kind, items, wcu }) => ({ name, kind, items, wcu })), total: totalWcu },
    tableNow: {
      billingMode: facts.billingMode,
      itemCount: facts.itemCount,
      writeCeiling: tableCeiling,
      pointInTimeRecovery,
    },
    cost: {
      onDemandUsd: onDemand ? round((totalWcu * pricePerMillion) / 1e6, 4) : undefined,
      pricePerMillionWrites: pricePerMillion,
      priceNote: config.pricePerMillionWrites === undefined ? `us-east-1's, read ${PRICES_READ_ON}; another region's: pricePerMillionWrites, --price-per-million-writes` : 'the price given in pricePerMillionWrites',
      provisionedNote: onDemand ? undefined : 'a provisioned table is paid by the hour for its capacity, whatever an import writes: see time',
      importFromS3Usd: round(gigabytes * IMPORT_FROM_S3_USD_PER_GB, 4),
      importFromS3Note: `DynamoDB's Import from S3 at ${IMPORT_FROM_S3_USD_PER_GB} USD per GB of source data (us-east-1, read ${PRICES_READ_ON}); it only creates new tables`,
    },
    time: {
      atTableCeiling: slowest === undefined ? undefined : { seconds: round(slowest.seconds, 1), writesPerSecond: slowest.perSecond, limitedBy: slowest.limitedBy },
      atMaxWcu: config.maxWcu === undefined ? undefined : { seconds: round(totalWcu / config.maxWcu, 1), maxWcu: config.maxWcu },
    },
    bytesRead,
    seconds: round(seconds, 3),
    rowsPerSecond: Math.round(stats.rowsRead / Math.max(seconds, 1e-3)),
  };
}

/** @typedef {ReturnType<typeof dryRunReport>} DryRunReport */

/**
 * What a dry run assumes of a conditional write mode: it does not read the table's items, so it cannot
 * tell which rows their conditions will skip, and counts each as the call it is.
 */
const WRITE_MODE_NOTES = {
  'if-absent': 'each row is a PutItem call of its own; a row whose key the table holds is skipped, and still consumes write capacity (DynamoDB charges a failed condition by the size of the item it found): capacity, cost and time assume each row costs its own size, as if none were skipped',
  newer: 'each row is a PutItem call of its own; a row not newer than the item is skipped, and still consumes write capacity (DynamoDB charges a failed condition by the size of the item it found): capacity, cost and time assume each row costs its own size, as if none were skipped',
  update: 'each row is an UpdateItem call of its own, which DynamoDB charges by the larger of the item before and after it: capacity, cost and time assume each row costs its own size, the least it can (items that grow, or are larger than the row, cost more)',
};

/**
 * How a dry run finds the rows a conditional mode's call would refuse (no version to compare, an update too
 * wide for DynamoDB's expression), if the mode can refuse any.
 * @param {Readonly<import('../config/index.js').ImportConfig>} config @param {import('../write/table-check.js').TableKeys} keys
 * @returns {((entry: import('../types.js').Entry) => { reason: string, message: string } | undefined) | undefined}
 */
function callRefusals(config, keys) {
  // if-absent's calls carry no version and set nothing: none is refused.
  if (config.writeMode === 'put' || config.writeMode === 'if-absent') return undefined;
  const requestOf = createItemRequests({ table: config.table, writeMode: config.writeMode, versionColumn: config.versionColumn, keys });
  return (entry) => {
    const request = requestOf(entry);
    return 'operation' in request ? undefined : request;
  };
}

/**
 * The end of an import, for people: a short table of the books, the rejects files and the job id. The
 * JSON summary (the last line in --json mode) carries the same figures.
 */
import { throttleReasons } from './live-view.js';
import { textTable } from './text-table.js';

/**
 * @typedef {object} SummaryFigures
 * @property {string} jobId
 * @property {number} rowsRead
 * @property {number} written
 * @property {number} [deleted]
 * @property {number} rejected
 * @property {Record<string, number>} [rejectedByReason]
 * @property {number} [duplicatesCollapsed]
 * @property {number} [skipped]
 * @property {Record<string, number>} [skippedByReason]
 * @property {number[]} [skippedLines]
 * @property {number} [wcuConsumed]
 * @property {number} [throttledItems]
 * @property {Record<string, number>} [throttledCallsByReason]
 * @property {number} [retries]
 * @property {number} seconds
 * @property {number} rowsPerSecond
 * @property {boolean} balanced
 * @property {string[]} [rejectsObjects]
 * @property {string} [note]
 */

/**
 * @param {SummaryFigures} summary
 * @param {object} where
 * @param {string} where.source  what was imported
 * @param {string} where.table
 * @param {(key: string) => string} where.locate  where a person finds a rejects file
 */
export function summaryText(summary, { source, table, locate }) {
  const n = (/** @type {number | undefined} */ value) => Math.round(value ?? 0).toLocaleString('en-US');
  const reasons = Object.entries(summary.rejectedByReason ?? {}).map(([reason, count]) => `${reason} ${n(count)}`).join(', ');
  const rows = [
    ['', '', ''],
    ['rows read', n(summary.rowsRead), ''],
    ['written', n(summary.written), ''],
    ...(summary.deleted ? [['deleted', n(summary.deleted), 'items whose keys the file names']] : []),
    ['rejected', n(summary.rejected), reasons],
    ['duplicates collapsed', n(summary.duplicatesCollapsed), 'a later row of the file has the same key'],
    ...(summary.skippedByReason === undefined ? [] : [['skipped', n(summary.skipped), skips(summary.skippedByReason, summary.skippedLines ?? [], n)]]),
    ['write capacity used', n(summary.wcuConsumed), 'WCU'],
    ['throttled items', n(summary.throttledItems), `${n(summary.retries)} calls re-sent${throttleReasons(summary.throttledCallsByReason)}`],
    ['books', summary.balanced ? 'balanced' : 'OPEN', summary.balanced ? `read = written${summary.deleted ? ' + deleted' : ''} + rejected + collapsed${summary.skippedByReason === undefined ? '' : ' + skipped'}` : 'rows are unaccounted for: see the log'],
  ];
  const lines = [
    `${source} → ${table}: ${summary.balanced ? 'done' : 'done, books open'} in ${summary.seconds.toFixed(1)} s, ${n(summary.rowsPerSecond)} rows/s`,
    ...textTable(rows, (column) => column === 1).slice(1).map((line) => `  ${line}`),
    `  job ${summary.jobId}`,
    ...(summary.rejectsObjects ?? []).map((key) => `  rejects ${locate(key)}`),
    ...(summary.note === undefined ? [] : [`  note: ${summary.note}`]),
  ];
  return lines.join('\n');
}

/** What the skipped row says: the reasons, and the first lines. @param {Record<string, number>} byReason @param {number[]} lines @param {(value: number) => string} n */
function skips(byReason, lines, n) {
  const total = Object.values(byReason).reduce((sum, count) => sum + count, 0);
  const reasons = Object.entries(byReason).map(([reason, count]) => `${reason} ${n(count)}`).join(', ');
  return `${reasons} (line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}${total > lines.length ? ', ...' : ''})`;
}

/** Which of a key's rows the table ends with, by write mode. */
const REPEATS = { put: 'the later row wins', 'if-absent': 'the first row wins (the others are skipped)', newer: 'the highest version wins', update: 'each is merged into the item in turn' };

/**
 * A dry run's report, for people.
 * @param {import('../dry-run/dry-run.js').DryRunReport} report
 * @param {{ source: string }} where
 */
export function dryRunText(report, { source }) {
  const n = (/** @type {number} */ value) => Math.round(value).toLocaleString('en-US');
  const usd = (/** @type {number} */ value) => `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
  const time = (/** @type {number} */ seconds) => (seconds < 120 ? `${seconds.toFixed(1)} s` : seconds < 7200 ? `${(seconds / 60).toFixed(1)} min` : `${(seconds / 3600).toFixed(1)} h`);
  const { keys } = report;
  const reasons = Object.entries(report.rejectedByReason).map(([reason, count]) => `${reason} ${n(count)} (line${count === 1 ? '' : 's'} ${report.firstRejectedLines[reason].join(', ')}${count > report.firstRejectedLines[reason].length ? ', ...' : ''})`);
  /** @type {string[][]} */
  const rows = [
    ['rows read', n(report.rowsRead), ''],
    ['would write', n(report.wouldWrite), `${report.wouldDelete > 0 ? `and delete ${n(report.wouldDelete)}; ` : ''}${n(keys.distinct)} distinct keys (${keys.exact ? 'exact' : `estimated: past ${n(keys.exactUpTo)} keys`})${keys.repeatedRows > 0 ? `; ${n(keys.repeatedRows)} rows repeat an earlier row's key: ${REPEATS[report.writeMode]}` : ''}`],
    ['would reject', n(report.wouldReject), reasons[0] ?? ''],
    ...reasons.slice(1).map((reason) => ['', '', reason]),
    ...(report.writeModeNote === undefined ? [] : [['write mode', report.writeMode, `${n(report.calls)} calls: ${report.writeModeNote}`]]),
    ['item size', `${n(report.itemBytes.average)} B`, `on average; largest ${n(report.itemBytes.largest)} B, ${(report.itemBytes.total / 1e6).toFixed(1)} MB in all`],
    ['write capacity', n(report.writeCapacity.table), `WCU in the table`],
    ...report.writeCapacity.indexes.map((index) => ['', n(index.wcu), `WCU in ${index.kind} index ${index.name} (${n(index.items)} items)`]),
    ...(report.writeCapacity.indexes.length > 0 ? [['', n(report.writeCapacity.total), 'WCU in all']] : []),
    ['cost', report.cost.onDemandUsd === undefined ? '-' : usd(report.cost.onDemandUsd), report.cost.onDemandUsd === undefined ? String(report.cost.provisionedNote) : `on demand at ${report.cost.pricePerMillionWrites} USD per million writes (${report.cost.priceNote})`],
    ['', usd(report.cost.importFromS3Usd), report.cost.importFromS3Note],
    ...(report.time.atTableCeiling === undefined ? [] : [['time', time(report.time.atTableCeiling.seconds), `at least, at ${n(report.time.atTableCeiling.writesPerSecond)} writes/s: ${report.time.atTableCeiling.limitedBy}`]]),
    ...(report.time.atMaxWcu === undefined ? [] : [[report.time.atTableCeiling === undefined ? 'time' : '', time(report.time.atMaxWcu.seconds), `at least, at --max-wcu ${n(report.time.atMaxWcu.maxWcu)}`]]),
    ['table now', report.tableNow.billingMode === 'PAY_PER_REQUEST' ? 'on demand' : 'provisioned', `${n(report.tableNow.itemCount)} items (DynamoDB refreshes this count about every six hours)`],
  ];
  return [
    `Dry run of ${source} → ${report.table}: nothing was written. Read in ${report.seconds.toFixed(1)} s (${n(report.rowsPerSecond)} rows/s).`,
    ...textTable([['', '', ''], ...rows], (column) => column === 1).slice(1).map((line) => `  ${line}`),
    `  job ${report.jobId}`,
  ].join('\n');
}

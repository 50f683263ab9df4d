/**
 * The end of an import, for people: a short table of the books, the rejects files and the job id. The
 * JSON summary (the last line in --json mode) carries the same figures.
 */
import { textTable } from './text-table.js';

/**
 * @typedef {object} SummaryFigures
 * @property {string} jobId
 * @property {number} rowsRead
 * @property {number} written
 * @property {number} rejected
 * @property {Record<string, number>} [rejectedByReason]
 * @property {number} [duplicatesCollapsed]
 * @property {number} [wcuConsumed]
 * @property {number} [throttledItems]
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
    ['rejected', n(summary.rejected), reasons],
    ['duplicates collapsed', n(summary.duplicatesCollapsed), 'a later row of the file has the same key'],
    ['write capacity used', n(summary.wcuConsumed), 'WCU'],
    ['throttled items', n(summary.throttledItems), `${n(summary.retries)} calls re-sent`],
    ['books', summary.balanced ? 'balanced' : 'OPEN', summary.balanced ? 'read = written + rejected + collapsed' : 'rows are unaccounted for: see the log'],
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

/**
 * Helpers shared by the tests that run whole imports.
 */
import { csvChunks } from '../../data-generator/people.js';

/** A generated person CSV, header included, as one string. @param {number} rows @param {number} seed */
export function generatedCsv(rows, seed) {
  return [...csvChunks({ rows, seed, sorted: false })].join('');
}

/** The handler's result, as the summary of one finished import. @param {unknown} result */
export const summaryOf = (result) => /** @type {import('../../src/segment/import-segment.js').ImportSummary} */ (result);

/**
 * A CSV of `rows` data rows with bad rows, multi-line rows and (if asked) rows that repeat the key of
 * the row before, at known places, and what it should give: the ids the table must hold, each once,
 * the lines rejected by reason, and how many good rows there are (duplicates included).
 * @param {number} rows
 * @param {{ duplicates?: boolean }} [options]
 */
export function mixedCsv(rows, { duplicates = false } = {}) {
  let csv = 'id,name,n\n';
  let line = 1;
  /** @type {string[]} */
  const good = [];
  /** @type {Record<string, number[]>} */
  const rejected = { FIELD_COUNT: [], INVALID_NUMBER: [] };
  let goodRows = 0;
  for (let i = 1; i <= rows; i++) {
    line++;
    if (duplicates && i % 700 === 0 && (i - 1) % 1000 !== 0 && (i - 1) % 1500 !== 0) {
      csv += `r${i - 1},"again ${i}",${i}\n`;
      goodRows++;
    } else if (i % 1000 === 0) {
      csv += `r${i},short\n`;
      rejected.FIELD_COUNT.push(line);
    } else if (i % 1500 === 0) {
      csv += `r${i},name ${i},not-a-number\n`;
      rejected.INVALID_NUMBER.push(line);
    } else if (i % 500 === 0) {
      csv += `r${i},"two\nlines ${i}",${i}\n`;
      good.push(`r${i}`);
      goodRows++;
      line++;
    } else {
      csv += `r${i},name ${i},${i}\n`;
      good.push(`r${i}`);
      goodRows++;
    }
  }
  return { csv, good, rejected, goodRows };
}

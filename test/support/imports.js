/**
 * Helpers shared by the tests that run whole imports.
 */
import { csvChunks } from '../../data-generator/generate.js';

/** A generated person CSV, header included, as one string. @param {number} rows @param {number} seed */
export function generatedCsv(rows, seed) {
  return [...csvChunks({ rows, seed, sorted: false })].join('');
}

/** The handler's result, as the summary of one finished import. @param {unknown} result */
export const summaryOf = (result) => /** @type {import('../../src/import.js').ImportSummary} */ (result);

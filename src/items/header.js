/**
 * The header as attribute names: every column named, no name twice, the key columns present, and every
 * typed column in it. A header that fails is a HeaderError: nothing can be imported until it is fixed.
 */
import { HeaderError } from '../errors.js';
import { sourceWhere } from '../source/source-name.js';

/** @param {string[]} names  trimmed @param {import('../config/index.js').ImportConfig} config */
export function checkHeader(names, config) {
  const where = sourceWhere(config);
  const seen = new Set();
  // Messages name columns by position and by the options' names only: a file without a header line
  // would otherwise put its first row's values in the logs.
  names.forEach((name, i) => {
    if (name === '') throw new HeaderError(`${where}: header column ${i + 1} has no name; every column needs one, it becomes the attribute name`);
    if (seen.has(name)) throw new HeaderError(`${where}: header columns ${names.indexOf(name) + 1} and ${i + 1} have the same name; attribute names must be unique`);
    seen.add(name);
  });
  const noHeader = `(the first line has ${names.length} column${names.length === 1 ? '' : 's'}${delimiterGuess(names, config.delimiter)}; if the file has no header line, add one)`;
  if (!config.generateKey && !seen.has(config.keyColumn)) {
    throw new HeaderError(`${where}: the header has no key column "${config.keyColumn}" ${noHeader}; set keyColumn to the column holding the table's partition key, or generateKey: true`);
  }
  if (config.generateKey && seen.has(config.keyColumn)) {
    throw new HeaderError(`${where}: generateKey is on but the header already has a "${config.keyColumn}" column; turn generateKey off to use it`);
  }
  if (config.sortKeyColumn !== undefined && !seen.has(config.sortKeyColumn)) {
    throw new HeaderError(`${where}: the header has no sort key column "${config.sortKeyColumn}" ${noHeader}; set sortKeyColumn to the column holding the table's sort key`);
  }
  for (const column of Object.keys(config.columnTypes)) {
    if (!seen.has(column) && column !== config.keyColumn) {
      throw new HeaderError(`${where}: columnTypes names "${column}", which is not in the header; name only columns of the header`);
    }
  }
}

/** Delimiters a one-column header may hide. */
const OTHER_DELIMITERS = [';', '\t', '|'];

/**
 * A header read as one column that holds another common delimiter was most likely cut by that one.
 * @param {string[]} names @param {string} delimiter
 */
function delimiterGuess(names, delimiter) {
  const guess = names.length === 1 ? OTHER_DELIMITERS.find((other) => other !== delimiter && names[0].includes(other)) : undefined;
  if (guess === undefined) return '';
  const spelled = guess === '\t' ? '"\\t"' : `"${guess}"`;
  return `, which holds ${spelled}: if the file is delimited by it, set delimiter to ${spelled}`;
}

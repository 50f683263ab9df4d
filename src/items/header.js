/**
 * The header as attribute names, and every option that names a column checked against it, in one place,
 * before any row is read: every column named, no name twice, each column an option names present (drop
 * and rename by the names the file gives them; the keys, types, the TTL and version columns as written,
 * after them). A header that cannot be read as names is a HeaderError; an option naming a column the
 * header lacks is a ConfigError of that option (a flag's mistake: the command exits 2). Names are compared
 * exactly: a column that differs only in case or spaces is named in the message, never taken for another.
 */
import { ConfigError, HeaderError } from '../errors.js';
import { sourceWhere } from '../source/source-name.js';
import { nestProblem } from './nest.js';

/**
 * The header as the item builder writes it: columns dropped by the names the file gives them, then the
 * others under their new names (rename); the keys, the types, the TTL column and nest name columns as
 * written. Checked here, so that the planner of shards refuses what a segment would.
 * @param {string[]} header  as read @param {import('../config/index.js').ImportConfig} config
 * @returns {{ names: string[], dropped: boolean[] }}  every column's written name, and which are dropped
 */
export function shapeHeader(header, config) {
  const fileNames = header.map((name) => name.trim());
  const where = sourceWhere(config);
  // A column left out (drop) is often personal data: one the header lacks is a mistake to refuse, not to pass over.
  for (const column of config.drop) {
    if (!fileNames.includes(column)) throw absentColumn('drop', config.drop.join(','), column, fileNames, where, 'name the columns to leave out as the header spells them');
  }
  for (const [from, to] of Object.entries(config.rename)) {
    if (!fileNames.includes(from)) throw absentColumn('rename', `${from}:${to}`, from, fileNames, where, 'name each column to rename as the header spells it');
  }
  const dropped = fileNames.map((name) => config.drop.includes(name));
  const names = fileNames.map((name) => config.rename[name] ?? name);
  checkHeader(names.filter((_, i) => !dropped[i]), config);
  return { names, dropped };
}

/** @param {string[]} names  trimmed, as written @param {import('../config/index.js').ImportConfig} config */
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
  const noHeader = `the first line has ${names.length} column${names.length === 1 ? '' : 's'}${delimiterGuess(names, config.delimiter)}; if the file has no header line, add one`;
  if (!config.generateKey && !seen.has(config.keyColumn)) {
    throw absentColumn('keyColumn', config.keyColumn, config.keyColumn, names, where, `${noHeader}; set keyColumn to the column holding the table's partition key, or generateKey: true`);
  }
  if (config.generateKey && seen.has(config.keyColumn)) {
    throw new ConfigError('generateKey', true, `${where}: the header already has a "${config.keyColumn}" column; turn generateKey off to use it`);
  }
  if (config.sortKeyColumn !== undefined && !seen.has(config.sortKeyColumn)) {
    throw absentColumn('sortKeyColumn', config.sortKeyColumn, config.sortKeyColumn, names, where, `${noHeader}; set sortKeyColumn to the column holding the table's sort key`);
  }
  const filled = config.ttl?.after === undefined ? undefined : config.ttl.column;
  for (const column of Object.keys(config.columnTypes)) {
    if (!seen.has(column) && column !== config.keyColumn && column !== filled) {
      throw absentColumn('columnTypes', `${column}:${config.columnTypes[column]}`, column, names, where, 'name only columns of the header, as written (after drop and rename)');
    }
  }
  checkShapes(names, config, where);
}

/**
 * An option names a column the header lacks: a ConfigError of that option, naming a column that differs
 * only in case or spaces if there is one. The header's names are the file's, not a row's values.
 * @param {string} option @param {unknown} value @param {string} column @param {string[]} names @param {string} where @param {string} fix
 */
function absentColumn(option, value, column, names, where, fix) {
  const fold = (/** @type {string} */ name) => name.toLowerCase().replace(/\s+/g, '');
  const near = names.find((name) => fold(name) === fold(column));
  const hint = near === undefined ? '' : ` (it has "${near}": names are compared exactly, case and spaces too)`;
  return new ConfigError(option, value, `${where}: the header has no column "${column}"${hint}; ${fix}`);
}

/**
 * The TTL column: read from the header, or (with a duration) filled by the import, so not in it; and the
 * names nested (nest) without a conflict, the attributes the import adds (a generated key, a filled TTL
 * column) among them. Columns are named by position, as above.
 * @param {string[]} names @param {import('../config/index.js').ImportConfig} config @param {string} where
 */
function checkShapes(names, config, where) {
  const { ttl } = config;
  if (ttl !== undefined && ttl.after === undefined && !names.includes(ttl.column)) {
    throw absentColumn('ttl', ttl.column, ttl.column, names, where, `name the column that holds the expiry times as written (after drop and rename), or fill it with "${ttl.column}:+30d"`);
  }
  if (ttl?.after !== undefined && names.includes(ttl.column)) {
    throw new ConfigError('ttl', `${ttl.column}:+${ttl.after}s`, `${where}: header column ${names.indexOf(ttl.column) + 1} is the TTL column "${ttl.column}", which ttl fills with the import's time plus ${ttl.after} s: drop that column (drop "${ttl.column}") to fill it, or read it (ttl "${ttl.column}" without a duration)`);
  }
  const { versionColumn } = config;
  if (versionColumn !== undefined && config.writeMode !== 'put' && !names.includes(versionColumn)) {
    throw absentColumn('versionColumn', versionColumn, versionColumn, names, where, "name the column that holds each row's version, as written (after drop and rename)");
  }
  if (!config.nest) return;
  const added = [...(config.generateKey ? [config.keyColumn] : []), ...(ttl?.after === undefined ? [] : [ttl.column])];
  const problem = nestProblem([...names, ...added]);
  if (problem === undefined) return;
  const column = (/** @type {number} */ i) => (i < names.length ? `header column ${i + 1}` : added[i - names.length] === config.ttl?.column ? `the TTL column "${config.ttl.column}"` : `the generated key column "${config.keyColumn}"`);
  if ('empty' in problem) throw new HeaderError(`${where}: with the "nest" option, ${column(problem.empty)} has an empty part between its dots (a..b, .a or a.): each part names a map or its member; rename it`);
  throw new HeaderError(`${where}: with the "nest" option, ${column(problem.inner)} would be a member of the map ${column(problem.outer)} names, which is an attribute of its own: rename one of them (the "rename" option), or drop one (the "drop" option)`);
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

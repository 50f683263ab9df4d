/**
 * The options that change what a job writes into the table: how its rows are read, typed and keyed, and
 * whether they are put or deleted. They are part of what a job is: its id is made from them (with the
 * source, its version and the table), and a checkpoint carries them, so that a run with other such
 * options is another job (never a finished one skipped) and a resume cannot read the rest otherwise.
 */

import { LATER_WRITE_DEFAULTS, WRITE_OPTIONS } from '../config/index.js';

export { WRITE_OPTIONS };

/** @typedef {import('../config/index.js').ImportConfig} ImportConfig */
/** Options that change what is written (`writes: true` in config/options.js). @typedef {import('../config/options.js').WriteOptionName} WriteOptionName */
/** @typedef {Record<WriteOptionName, unknown>} WriteOptions */

/**
 * The write options of a config, in one form: absent ones null, column types sorted by column, so that
 * two configs that write alike give equal JSON.
 * @param {Pick<ImportConfig, WriteOptionName>} config
 * @returns {WriteOptions}
 */
export function writeOptionsOf(config) {
  /** @type {Record<string, unknown>} */
  const options = {};
  for (const name of WRITE_OPTIONS) {
    // An option added later, absent or at its default, is not part of the job: ids made before it stay.
    const later = name in LATER_WRITE_DEFAULTS;
    if (later && (config[name] === undefined || JSON.stringify(config[name]) === JSON.stringify(LATER_WRITE_DEFAULTS[name]))) continue;
    options[name] = config[name] ?? null;
  }
  options.columnTypes = sortedByName(config.columnTypes);
  if (options.rename !== undefined) options.rename = sortedByName(/** @type {Record<string, string>} */ (options.rename));
  if (options.drop !== undefined) options.drop = [.../** @type {string[]} */ (options.drop)].sort();
  return /** @type {WriteOptions} */ (options);
}

/** A map's entries by name, in one order. @param {Record<string, unknown>} map */
const sortedByName = (map) => Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * The first write option whose value differs between two sets (a saved one may lack options added
 * after it was saved: those are compared with `laterDefaults`).
 * @param {Partial<WriteOptions>} saved @param {WriteOptions} now
 * @param {Partial<WriteOptions>} [laterDefaults]
 * @returns {{ name: WriteOptionName, was: unknown, now: unknown } | undefined}
 */
export function changedWriteOption(saved, now, laterDefaults = {}) {
  for (const name of WRITE_OPTIONS) {
    const was = name in saved ? saved[name] : name in LATER_WRITE_DEFAULTS ? undefined : laterDefaults[name];
    if (JSON.stringify(was) !== JSON.stringify(now[name])) return { name, was, now: now[name] };
  }
  return undefined;
}

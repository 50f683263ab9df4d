/**
 * Import options: each comes from the payload, then the environment, then its default (options.js), and
 * is checked once, before any I/O. A bad value throws a ConfigError naming the option, the value and
 * what is allowed.
 */
import { ConfigError } from '../errors.js';
import { checkPrefixesAllowed, checkSource, checkTableAllowed, crossCheck } from './checks.js';
import { DEFAULT_CONCURRENCY, OPTION_SPECS } from './options.js';
import { emptyToUndefined } from './values.js';

export { DEFAULT_CONCURRENCY, LATER_WRITE_DEFAULTS, MAX_SHARDS, WRITE_MODES, OPTION_NAMES, OPTION_VARIABLES, WRITE_OPTIONS } from './options.js';
export { isCollection, isManifestSummary, MANIFEST_SUMMARY, runningInLambda } from './source-kind.js';

/** @typedef {import('./values.js').Format} Format */
/** @typedef {import('./values.js').ColumnType} ColumnType */
/** @typedef {import('./options.js').OptionRow} OptionRow */
/** @typedef {import('./options.js').OptionGroup} OptionGroup */

/**
 * Every option as its parser returns it (options.js says what each is).
 * @typedef {{ -readonly [Row in OptionRow as Row['name']]: ReturnType<Row['parse']> }} ParsedOptions
 */

/**
 * The resolved options: the table's region defaults to the clients', the window's ceiling to the write mode's.
 * @typedef {Omit<ParsedOptions, 'tableRegion' | 'concurrency'> & { tableRegion: string, concurrency: number }} ImportConfig
 */

/**
 * The options of some groups: what a stage reads.
 * @template {OptionGroup} G
 * @typedef {Pick<ImportConfig, Extract<OptionRow, { group: G }>['name']>} OptionsOf
 */

const PAYLOAD_NAMES = OPTION_SPECS.filter((option) => option.payload !== false).map((option) => option.name);

/**
 * @param {Record<string, unknown>} payload  direct-invocation payload or one S3 event record's job
 * @param {Record<string, string | undefined>} env
 * @returns {Readonly<ImportConfig>}
 */
export function resolveConfig(payload, env) {
  const known = new Set(PAYLOAD_NAMES);
  for (const name of Object.keys(payload)) {
    if (!known.has(name)) throw new ConfigError(name, payload[name], `unknown option; known options are ${PAYLOAD_NAMES.join(', ')}`);
  }
  /** @type {Record<string, unknown>} */
  const config = {};
  for (const option of OPTION_SPECS) {
    const fromEnv = option.env === undefined ? undefined : emptyToUndefined(env[option.env]);
    const raw = payload[option.name] ?? fromEnv ?? option.fallback;
    const label = payload[option.name] === undefined && fromEnv !== undefined ? `${option.name} (env ${option.env})` : option.name;
    config[option.name] = option.parse(raw, label);
  }
  checkSource(config, payload);
  // Rejects and status go beside the source unless the deployment names a bucket of its own for them.
  config.outputBucket ??= config.bucket;
  config.tableRegion ??= config.region;
  config.concurrency ??= config.writeMode === 'put' ? DEFAULT_CONCURRENCY.batch : DEFAULT_CONCURRENCY.item;
  const result = /** @type {ImportConfig} */ (config);
  crossCheck(result);
  checkTableAllowed(payload.table, env.TABLE_NAME, result.allowedTables);
  checkPrefixesAllowed(payload, env);
  return Object.freeze(result);
}

/**
 * The options of some groups, for a stage that reads only those.
 * @template {OptionGroup} G
 * @param {Readonly<ImportConfig>} config @param {readonly G[]} groups
 * @returns {Readonly<OptionsOf<G>>}
 */
export function optionsOf(config, groups) {
  /** @type {Record<string, unknown>} */
  const slice = {};
  for (const option of OPTION_SPECS) if (groups.includes(/** @type {G} */ (option.group))) slice[option.name] = config[/** @type {keyof ImportConfig} */ (option.name)];
  return /** @type {OptionsOf<G>} */ (Object.freeze(slice));
}

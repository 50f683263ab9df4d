/**
 * The checks of options against each other, after each has been parsed alone: a source is named once,
 * options that need another have it, and none contradicts another.
 */
import { ConfigError } from '../errors.js';
import { isCollection, runningInLambda } from './source-kind.js';
import { SET_TYPES, ttlSpelled } from './values.js';

/** @typedef {import('./index.js').ImportConfig} ImportConfig */

/**
 * The function writes to its configured table (TABLE_NAME). A payload may name another one only if the
 * deployment lists it in ALLOWED_TABLES.
 * @param {unknown} requested @param {string | undefined} configured @param {string[]} allowed
 */
export function checkTableAllowed(requested, configured, allowed) {
  if (requested === undefined || configured === undefined || configured.trim() === '' || requested === configured) return;
  if (allowed.includes(/** @type {string} */ (requested))) return;
  throw new ConfigError('table', requested, `this function writes only to its table "${configured}"${allowed.length > 0 ? ` and to ${allowed.join(', ')}` : ''}; leave "table" out, or add the table to the ALLOWED_TABLES setting (and to the function's IAM policy)`);
}

/**
 * On a deployed stack, the function's role writes rejects and status only under the stack's prefixes
 * (REJECTS_PREFIX, STATUS_PREFIX): a payload naming others would fail at its first write, AccessDenied,
 * after rows were written. Refused before anything is read.
 * @param {Record<string, unknown>} payload @param {Record<string, string | undefined>} env
 */
export function checkPrefixesAllowed(payload, env) {
  if (!runningInLambda()) return;
  for (const [name, variable] of /** @type {const} */ ([['rejectsPrefix', 'REJECTS_PREFIX'], ['statusPrefix', 'STATUS_PREFIX']])) {
    const requested = payload[name];
    const granted = env[variable];
    if (requested === undefined || granted === undefined || granted === '' || (typeof requested === 'string' && requested.startsWith(granted))) continue;
    throw new ConfigError(name, requested, `the stack's role writes only under "${granted}" (${variable}): leave ${name} out of the payload, or name a prefix under it`);
  }
}

/**
 * An import reads one S3 object (bucket and key) or, off Lambda, one local file.
 * @param {Record<string, unknown>} config
 * @param {Record<string, unknown>} payload
 */
export function checkSource(config, payload) {
  if (config.prefix === undefined && /** @type {string[]} */ (config.suffix).length > 0) throw new ConfigError('suffix', config.suffix, 'filters the objects under a prefix: use it with "prefix"');
  if (payload.maxObjects !== undefined && !isCollection(/** @type {Pick<ImportConfig, 'prefix' | 'key'>} */ (config))) {
    throw new ConfigError('maxObjects', payload.maxObjects, 'bounds the objects of a job over a prefix or a DynamoDB export; this import reads one object or file: leave maxObjects out');
  }
  if (config.file !== undefined) {
    if (runningInLambda()) throw new ConfigError('file', config.file, 'a Lambda imports from S3: name the object with "bucket" and "key"');
    for (const name of ['bucket', 'key', 'prefix', 'versionId', 'etag']) {
      if (config[name] !== undefined) throw new ConfigError(name, config[name], `an import of the local file ${config.file} reads no S3 object: leave ${name} out, or import s3://bucket/key instead of the file`);
    }
    return;
  }
  if (config.outputDir !== undefined && runningInLambda()) throw new ConfigError('outputDir', config.outputDir, 'a Lambda writes its rejects and status to its output bucket (OUTPUT_BUCKET), not to a directory: leave outputDir out');
  if (config.prefix !== undefined) {
    if (config.bucket === undefined) throw new ConfigError('bucket', undefined, 'name the bucket whose prefix to import, e.g. {"bucket":"my-bucket","prefix":"imports/2026-11/"}');
    for (const name of ['key', 'versionId', 'etag']) {
      if (config[name] !== undefined) throw new ConfigError(name, config[name], `a job over the prefix "${config.prefix}" imports every object under it at its current version: leave ${name} out, or import one object with key instead of prefix`);
    }
    return;
  }
  for (const name of ['bucket', 'key']) {
    if (config[name] === undefined) throw new ConfigError(name, undefined, 'name the S3 object to import with "bucket" and "key", e.g. {"bucket":"my-bucket","key":"imports/people.csv"}');
  }
}

/** @param {ImportConfig} config */
export function crossCheck(config) {
  if (config.backoffCapMs < config.backoffBaseMs) {
    throw new ConfigError('backoffCapMs', config.backoffCapMs, `must be at least backoffBaseMs (${config.backoffBaseMs})`);
  }
  if (config.minConcurrency > config.concurrency) {
    throw new ConfigError('minConcurrency', config.minConcurrency, `must be at most concurrency (${config.concurrency})`);
  }
  if (config.shard !== undefined && config.checkpoint !== undefined && config.checkpoint.jobId !== config.shard.jobId) {
    throw new ConfigError('checkpoint', config.checkpoint.jobId, `belongs to another job than the shard (${config.shard.jobId}); pass them as the function sent them`);
  }
  if (config.sortKeyColumn === config.keyColumn) {
    throw new ConfigError('sortKeyColumn', config.sortKeyColumn, 'must differ from keyColumn');
  }
  for (const column of [config.keyColumn, config.sortKeyColumn]) {
    const type = column === undefined ? undefined : config.columnTypes[column];
    if (type !== undefined && type !== 'S' && type !== 'N' && type !== 'B') {
      throw new ConfigError('columnTypes', `${column}:${type}`, 'a key column can only be S, N or B');
    }
  }
  if (config.generateKey && (config.columnTypes[config.keyColumn] ?? 'S') !== 'S') {
    throw new ConfigError('generateKey', true, `generated keys are UUID strings, but keyColumn "${config.keyColumn}" is typed ${config.columnTypes[config.keyColumn]} in columnTypes`);
  }
  checkShaping(config);
  checkWriteMode(config);
  checkTtlAndNest(config);
  if (config.generateKey && config.mode === 'delete') {
    throw new ConfigError('generateKey', true, 'a delete names the keys of the items to delete: they come from the file, not generated; leave generateKey out');
  }
  if (config.shards > 1 && isCollection(config)) {
    throw new ConfigError('shards', config.shards, `a job over ${config.prefix !== undefined ? 'a prefix' : 'an export'} runs one shard per object; to cut its large uncompressed objects too, use bytesPerShard instead`);
  }
  if (config.fromRejects && config.spread > 1) {
    throw new ConfigError('spread', config.spread, 'a rejects file holds rows of any order: import it with spread 1 (leave spread out)');
  }
  if (config.fromRejects && config.delimiter !== ',') {
    throw new ConfigError('delimiter', config.delimiter, 'a rejects file is written with "," whatever the source\'s delimiter: leave delimiter out with fromRejects');
  }
  if (config.setSeparator === config.delimiter && Object.values(config.columnTypes).some((type) => SET_TYPES.has(type))) {
    throw new ConfigError('setSeparator', config.setSeparator, `must differ from the delimiter (${JSON.stringify(config.delimiter)}): a set cell would be cut into columns`);
  }
}

/**
 * Columns dropped and renamed against the keys: the key and sort key columns, and --types, name
 * attributes as written (after the renames); a column is dropped or renamed, not both.
 * @param {ImportConfig} config
 */
function checkShaping(config) {
  if (config.mode === 'delete' && config.nest) {
    throw new ConfigError('nest', true, 'a delete writes no attributes, only the keys of the items to delete, and keys are top-level: leave the "nest" option out');
  }
  const keys = [...(config.generateKey ? [] : [config.keyColumn]), ...(config.sortKeyColumn === undefined ? [] : [config.sortKeyColumn])];
  for (const column of config.drop) {
    if (column in config.rename) throw new ConfigError('drop', column, `"${column}" is also renamed: drop it or rename it, not both`);
    if (keys.includes(column) && !Object.values(config.rename).includes(column)) throw new ConfigError('drop', column, `"${column}" is a key column, which every item needs: leave it out of drop`);
  }
  const written = new Set(Object.values(config.rename));
  for (const column of Object.keys(config.columnTypes)) {
    if (config.drop.includes(column) && !written.has(column)) throw new ConfigError('columnTypes', `${column}:${config.columnTypes[column]}`, `"${column}" is left out by the "drop" option, so it has no type to give: leave it out of columnTypes, or out of the "drop" option`);
    if (column in config.rename && !written.has(column)) throw new ConfigError('columnTypes', `${column}:${config.columnTypes[column]}`, `"${column}" is renamed to "${config.rename[column]}", and types name columns as written: name it "${config.rename[column]}"`);
  }
  for (const [from, to] of Object.entries(config.rename)) {
    if (keys.includes(from) && from !== to && !Object.values(config.rename).includes(from)) {
      throw new ConfigError('rename', `${from}:${to}`, `renames the key column "${from}" away; the key is named as it is written, after the renames: name it "${to}" (keyColumn or sortKeyColumn)`);
    }
  }
}

/**
 * A write mode against the options it reads: `newer` needs a version column, which only it and
 * `update` read; a delete has no condition; the version is an attribute of the item, not its key.
 * @param {ImportConfig} config
 */
function checkWriteMode(config) {
  const { writeMode, versionColumn } = config;
  if (writeMode !== 'put' && config.mode === 'delete') {
    throw new ConfigError('writeMode', writeMode, 'a delete removes each row\'s item whatever it holds: leave writeMode out, or set mode to put');
  }
  if (writeMode === 'update' && config.nest) {
    throw new ConfigError('writeMode', writeMode, 'an update sets each attribute of a row whole: with the "nest" option a row\'s map (address.city) would replace the item\'s whole map, its other members lost; leave the "nest" option out, or set writeMode to put');
  }
  if (writeMode === 'newer' && versionColumn === undefined) {
    throw new ConfigError('versionColumn', undefined, 'writeMode newer writes a row only where its version is higher than the item\'s: name the column it compares with versionColumn');
  }
  if (versionColumn === undefined) return;
  if (writeMode !== 'newer' && writeMode !== 'update') {
    throw new ConfigError('versionColumn', versionColumn, `only writeMode newer and update compare versions (writeMode is ${writeMode}): set writeMode to newer, or leave versionColumn out`);
  }
  if (versionColumn === config.keyColumn || versionColumn === config.sortKeyColumn) {
    throw new ConfigError('versionColumn', versionColumn, 'is a key column, the same in the row and the item it would replace: name an attribute that grows with each change, e.g. updated_at');
  }
  if (config.drop.includes(versionColumn) && !Object.values(config.rename).includes(versionColumn)) {
    throw new ConfigError('versionColumn', versionColumn, 'is dropped by the "drop" option: a row needs its version to be compared; leave it out of the "drop" option');
  }
  if (versionColumn in config.rename && !Object.values(config.rename).includes(versionColumn)) {
    throw new ConfigError('versionColumn', versionColumn, `is renamed to "${config.rename[versionColumn]}"; the version is named as it is written: name it "${config.rename[versionColumn]}"`);
  }
  if (config.nest && versionColumn.includes('.')) {
    throw new ConfigError('versionColumn', versionColumn, 'with the "nest" option a dotted name becomes a member of a map, and the version compared is a top-level attribute: name one without a dot');
  }
  const type = config.columnTypes[versionColumn];
  if (type !== undefined && type !== 'N' && type !== 'S') {
    throw new ConfigError('columnTypes', `${versionColumn}:${type}`, 'the version column is compared as a number (N) or as text (S)');
  }
}

/**
 * The TTL column and nested names against the keys and types: a key is neither the TTL attribute nor
 * nested (DynamoDB's keys are top-level scalars), the TTL attribute is N and top-level, and a delete
 * (which writes keys only) has no TTL to write.
 * @param {ImportConfig} config
 */
function checkTtlAndNest(config) {
  const keys = [config.keyColumn, ...(config.sortKeyColumn === undefined ? [] : [config.sortKeyColumn])];
  const { ttl } = config;
  if (ttl !== undefined) {
    const spelled = ttlSpelled(ttl);
    if (keys.includes(ttl.column)) throw new ConfigError('ttl', spelled, `"${ttl.column}" is a key column; DynamoDB's TTL attribute is another attribute, written as N: name a column that is not keyColumn or sortKeyColumn`);
    const type = config.columnTypes[ttl.column];
    if (type !== undefined && type !== 'N') throw new ConfigError('columnTypes', `${ttl.column}:${type}`, `"${ttl.column}" is the TTL column, always written as N (epoch seconds): leave it out of columnTypes, or type it N`);
    if (config.mode === 'delete') throw new ConfigError('ttl', spelled, 'a delete writes no attributes, only the keys of the items to delete: leave the "ttl" option out');
    if (config.nest && ttl.column.includes('.')) throw new ConfigError('ttl', spelled, `with the "nest" option, "${ttl.column}" would be a member of a map, and DynamoDB's TTL attribute is a top-level one: rename the column to a name without a dot (rename "${ttl.column}:${ttl.column.replaceAll('.', '_')}") and name that`);
  }
  if (!config.nest) return;
  for (const option of /** @type {const} */ (['keyColumn', 'sortKeyColumn'])) {
    const column = config[option];
    if (column !== undefined && column.includes('.')) {
      throw new ConfigError(option, column, `with the "nest" option, a dotted name becomes a map, and a key is a top-level attribute: rename the column to a name without a dot (rename "${column}:${column.replaceAll('.', '_')}") and name that, or leave the "nest" option out`);
    }
  }
}

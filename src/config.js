/**
 * Import options: each comes from the payload, then the environment, then a default, and is checked
 * once, before any I/O. A bad value throws a ConfigError naming the option, the value and what is allowed.
 */
import path from 'node:path';
import { ConfigError } from './errors.js';
import { parseCheckpoint, parseShardSpec } from './job/checkpoint.js';
import { ENCODING_NAMES } from './records/csv/text-encoding.js';
import { ON_DEMAND_USD_PER_MILLION_WRITES } from './job/prices.js';

/**
 * A column's DynamoDB type: scalars as written (B as base64), M and L from a JSON cell, SS, NS and BS
 * from a cell whose members are cut by setSeparator.
 * @typedef {'S' | 'N' | 'BOOL' | 'B' | 'M' | 'L' | 'SS' | 'NS' | 'BS'} ColumnType
 */

/** How a file's records are written: CSV, JSON Lines, or DynamoDB JSON (an export's `{"Item": ...}` lines). @typedef {'csv' | 'jsonl' | 'dynamodb-json'} Format */

/**
 * @typedef {object} ImportConfig
 * @property {string | undefined} bucket  source bucket (unset for a local file)
 * @property {string | undefined} key     source object key (unset for a local file); a key ending in manifest-summary.json imports that DynamoDB export's data files
 * @property {string | undefined} prefix  import every object under this S3 key prefix, as one job (instead of key)
 * @property {string[]} suffix          with prefix: only keys ending in one of these (none: every object)
 * @property {number} maxObjects        with prefix or an export: most objects one job takes; more fail the job before it starts
 * @property {boolean} fromRejects      the file is a rejects file (fixed): its three leading columns (line, reason, message) are skipped
 * @property {string | undefined} file    a local file to import instead of an S3 object (off Lambda only), absolute
 * @property {string | undefined} outputDir  where a local file's rejects and job status go (default: its directory)
 * @property {string | undefined} versionId  the object version to import (versioned buckets; an S3 event names it)
 * @property {string | undefined} etag  the object version to import, by its ETag (an S3 event names it): another fails
 * @property {string} table             target DynamoDB table
 * @property {string} keyColumn         CSV column holding the table's partition key
 * @property {string | undefined} sortKeyColumn  CSV column holding the table's sort key, if it has one
 * @property {boolean} generateKey      fill keyColumn with a deterministic UUID instead of reading it
 * @property {Record<string, ColumnType>} columnTypes  per-column DynamoDB type; unlisted CSV columns are S, unlisted JSON attributes keep their JSON type
 * @property {Format | 'auto'} format  how the records are written ('auto': by the key's extension, then the first bytes)
 * @property {'omit' | 'null' | 'empty-string'} emptyCell  what an empty CSV cell becomes: no attribute, NULL, or an empty string (S columns)
 * @property {string} setSeparator      what cuts an SS, NS or BS cell into its members
 * @property {'put' | 'delete'} mode    put each row's item, or delete the item of each row's key
 * @property {string} delimiter         one-character CSV field delimiter
 * @property {import('./records/csv/text-encoding.js').EncodingOption} encoding  how the bytes are read as text ('auto': by the byte order mark)
 * @property {number} concurrency       BatchWriteItem calls in flight at most (the adaptive window's ceiling)
 * @property {boolean} adaptiveConcurrency  grow and cut the window with the table's answers (AIMD)
 * @property {number} minConcurrency    the adaptive window's floor
 * @property {number | undefined} maxWcu  most write capacity units to consume per second
 * @property {number} shuffleWindow     rows reordered at random before batching (0: file order)
 * @property {number} spread            byte ranges of the file read at once, their rows interleaved (1: in file order)
 * @property {number} maxAttempts       attempts per batch before its items are rejected
 * @property {number} backoffBaseMs     first backoff ceiling; doubles per attempt (full jitter; a spread import's stops at 16 x while the import writes: attempt-budget.js)
 * @property {number} backoffCapMs      largest backoff ceiling
 * @property {number} logIntervalMs     period of the throughput log line
 * @property {number} requestTimeoutMs  a BatchWriteItem call with no answer for this long is retried
 * @property {number} readIdleTimeoutMs an S3 body that sends nothing for this long is re-opened
 * @property {number} maxReopens        S3 re-opens in a row without progress before the import fails
 * @property {string} rejectsPrefix     where rejects files go in the output bucket
 * @property {boolean} requirePitr      refuse a table that holds items and has no point-in-time recovery (else a warning)
 * @property {boolean} dryRun           read and check the whole file, write nothing, report what an import would do and cost
 * @property {number} pricePerMillionWrites  USD per million on-demand write request units, for the dry run's cost
 * @property {number | undefined} segmentMs  longest an invocation reads before it hands over to a continuation
 * @property {number} timeMarginMs      Lambda time left at which an invocation stops reading and hands over
 * @property {import('./job/checkpoint.js').Checkpoint | undefined} checkpoint  where to resume a job
 * @property {number} shards            byte ranges to cut the file into, each imported by its own invocation
 * @property {number | undefined} bytesPerShard  shard a file past this size: one shard per this many bytes
 * @property {import('./job/checkpoint.js').ShardSpec | undefined} shard  the range this invocation imports (set by the planner)
 * @property {string} statusPrefix      where job status objects go in the output bucket
 * @property {string | undefined} outputBucket  where rejects files and job status go (OUTPUT_BUCKET; default: the source bucket)
 * @property {string[]} allowedTables   tables a payload may name besides TABLE_NAME
 * @property {'invoke' | 'in-process'} continuation  how a job goes on past one invocation's time
 * @property {string | undefined} idempotencyTable  DynamoDB table that makes a duplicated job payload a no-op
 * @property {string | undefined} runId  any value: runs a payload identical to one that completed, again
 * @property {string | undefined} lambdaEndpoint    endpoint override for self-invocation (tests)
 * @property {string} region            AWS region of the clients
 * @property {string} tableRegion       AWS region of the table (TABLE_REGION; default: region)
 * @property {string | undefined} dynamodbEndpoint  endpoint override (local mode)
 * @property {string | undefined} s3Endpoint        endpoint override (local mode)
 */

/** Most shards one job may have: each is a concurrent Lambda invocation. */
export const MAX_SHARDS = 1000;

/**
 * Every option: its payload name, environment variable, default and parser.
 * The parser gets the raw value (string from env, anything from the payload) and returns the typed one.
 * @type {Array<{ name: keyof ImportConfig, env?: string, fallback?: unknown, parse: (raw: unknown, name: string) => unknown }>}
 */
const OPTIONS = [
  { name: 'bucket', parse: optionalString },
  { name: 'key', parse: optionalString },
  { name: 'prefix', parse: (raw, name) => (raw === undefined ? undefined : keyPrefixOrEmpty(raw, name)) },
  { name: 'suffix', fallback: [], parse: suffixList },
  { name: 'maxObjects', env: 'MAX_OBJECTS', fallback: 1000, parse: integerIn(1, MAX_SHARDS) },
  { name: 'fromRejects', fallback: false, parse: boolean },
  { name: 'file', parse: localPath },
  { name: 'outputDir', parse: localPath },
  { name: 'versionId', parse: optionalString },
  { name: 'etag', parse: (raw, name) => (raw === undefined ? undefined : requiredString(raw, name).replaceAll('"', '')) },
  { name: 'table', env: 'TABLE_NAME', parse: tableName },
  { name: 'keyColumn', env: 'KEY_COLUMN', fallback: 'id', parse: requiredString },
  { name: 'sortKeyColumn', env: 'SORT_KEY_COLUMN', parse: optionalString },
  { name: 'generateKey', env: 'GENERATE_KEY', fallback: false, parse: boolean },
  { name: 'columnTypes', env: 'COLUMN_TYPES', fallback: {}, parse: columnTypes },
  { name: 'format', env: 'FILE_FORMAT', fallback: 'auto', parse: oneOf(['auto', 'csv', 'jsonl', 'dynamodb-json']) },
  { name: 'emptyCell', env: 'EMPTY_CELL', fallback: 'omit', parse: oneOf(['omit', 'null', 'empty-string']) },
  { name: 'setSeparator', env: 'SET_SEPARATOR', fallback: '|', parse: setSeparator },
  { name: 'mode', env: 'IMPORT_MODE', fallback: 'put', parse: oneOf(['put', 'delete']) },
  { name: 'delimiter', env: 'CSV_DELIMITER', fallback: ',', parse: delimiter },
  { name: 'encoding', env: 'CSV_ENCODING', fallback: 'auto', parse: encoding },
  { name: 'concurrency', env: 'CONCURRENCY', fallback: 32, parse: integerIn(1, 1024) },
  { name: 'adaptiveConcurrency', env: 'ADAPTIVE_CONCURRENCY', fallback: true, parse: boolean },
  { name: 'minConcurrency', env: 'MIN_CONCURRENCY', fallback: 1, parse: integerIn(1, 1024) },
  { name: 'maxWcu', env: 'MAX_WCU', parse: optional(integerIn(1, 10_000_000)) },
  { name: 'shuffleWindow', env: 'SHUFFLE_WINDOW', fallback: 0, parse: integerIn(0, 1_000_000) },
  { name: 'spread', env: 'SPREAD', fallback: 1, parse: integerIn(1, 64) },
  { name: 'maxAttempts', env: 'MAX_ATTEMPTS', fallback: 12, parse: integerIn(1, 100) },
  { name: 'backoffBaseMs', env: 'BACKOFF_BASE_MS', fallback: 25, parse: integerIn(1, 60_000) },
  { name: 'backoffCapMs', env: 'BACKOFF_CAP_MS', fallback: 5_000, parse: integerIn(1, 300_000) },
  { name: 'logIntervalMs', env: 'LOG_INTERVAL_MS', fallback: 1_000, parse: integerIn(100, 3_600_000) },
  { name: 'requestTimeoutMs', env: 'REQUEST_TIMEOUT_MS', fallback: 10_000, parse: integerIn(100, 120_000) },
  { name: 'readIdleTimeoutMs', env: 'READ_IDLE_TIMEOUT_MS', fallback: 10_000, parse: integerIn(100, 600_000) },
  { name: 'maxReopens', env: 'MAX_REOPENS', fallback: 5, parse: integerIn(0, 100) },
  { name: 'rejectsPrefix', env: 'REJECTS_PREFIX', fallback: 'rejects/', parse: keyPrefix },
  { name: 'dryRun', fallback: false, parse: boolean },
  { name: 'requirePitr', env: 'REQUIRE_PITR', fallback: false, parse: boolean },
  { name: 'pricePerMillionWrites', env: 'PRICE_PER_MILLION_WRITES', fallback: ON_DEMAND_USD_PER_MILLION_WRITES, parse: price },
  { name: 'segmentMs', env: 'SEGMENT_MS', parse: optional(integerIn(100, 900_000)) },
  { name: 'timeMarginMs', env: 'TIME_MARGIN_MS', fallback: 60_000, parse: integerIn(1_000, 600_000) },
  { name: 'checkpoint', parse: (raw, name) => (raw === undefined ? undefined : parseCheckpoint(raw, name)) },
  { name: 'shards', env: 'SHARDS', fallback: 1, parse: integerIn(1, MAX_SHARDS) },
  { name: 'bytesPerShard', env: 'BYTES_PER_SHARD', parse: optional(integerIn(1 << 20, Number.MAX_SAFE_INTEGER)) },
  { name: 'shard', parse: (raw, name) => (raw === undefined ? undefined : parseShardSpec(raw, name)) },
  { name: 'statusPrefix', env: 'STATUS_PREFIX', fallback: '_imports/', parse: keyPrefix },
  { name: 'allowedTables', env: 'ALLOWED_TABLES', fallback: '', parse: tableList },
  { name: 'continuation', env: 'CONTINUATION', parse: continuation },
  { name: 'idempotencyTable', env: 'IDEMPOTENCY_TABLE', parse: (raw, name) => (raw === undefined ? undefined : tableName(raw, name)) },
  { name: 'runId', parse: optionalString },
  { name: 'lambdaEndpoint', env: 'LAMBDA_ENDPOINT', parse: optionalUrl },
  { name: 'region', env: 'AWS_REGION', fallback: 'us-east-1', parse: requiredString },
  { name: 'tableRegion', env: 'TABLE_REGION', parse: optionalString },
  { name: 'outputBucket', env: 'OUTPUT_BUCKET', parse: optionalString },
  { name: 'dynamodbEndpoint', env: 'DYNAMODB_ENDPOINT', parse: optionalUrl },
  { name: 's3Endpoint', env: 'S3_ENDPOINT', parse: optionalUrl },
];

/** Options that only the deployment may set: a payload cannot point the function at another server. */
const ENV_ONLY = new Set(['region', 'tableRegion', 'outputBucket', 'dynamodbEndpoint', 's3Endpoint', 'allowedTables', 'continuation', 'lambdaEndpoint', 'idempotencyTable']);

export const OPTION_NAMES = OPTIONS.map((option) => option.name);

/** The environment variables options are read from. */
export const OPTION_VARIABLES = OPTIONS.flatMap((option) => (option.env === undefined ? [] : [option.env]));

/**
 * @param {Record<string, unknown>} payload  direct-invocation payload or one S3 event record's job
 * @param {Record<string, string | undefined>} env
 * @returns {Readonly<ImportConfig>}
 */
export function resolveConfig(payload, env) {
  const known = new Set(OPTION_NAMES);
  for (const name of Object.keys(payload)) {
    if (!known.has(/** @type {any} */ (name)) || ENV_ONLY.has(name)) {
      throw new ConfigError(name, payload[name], `unknown option; known options are ${OPTION_NAMES.filter((n) => !ENV_ONLY.has(n)).join(', ')}`);
    }
  }
  /** @type {Record<string, unknown>} */
  const config = {};
  for (const option of OPTIONS) {
    const fromEnv = option.env === undefined ? undefined : emptyToUndefined(env[option.env]);
    const raw = payload[option.name] ?? fromEnv ?? option.fallback;
    const label = payload[option.name] === undefined && fromEnv !== undefined ? `${option.name} (env ${option.env})` : option.name;
    config[option.name] = option.parse(raw, label);
  }
  checkSource(config, payload);
  // Rejects and status go beside the source unless the deployment names a bucket of its own for them.
  config.outputBucket ??= config.bucket;
  config.tableRegion ??= config.region;
  const result = /** @type {ImportConfig} */ (config);
  crossCheck(result);
  checkTableAllowed(payload.table, env.TABLE_NAME, result.allowedTables);
  return Object.freeze(result);
}

/**
 * The function writes to its configured table (TABLE_NAME). A payload may name another one only if the
 * deployment lists it in ALLOWED_TABLES.
 * @param {unknown} requested @param {string | undefined} configured @param {string[]} allowed
 */
function checkTableAllowed(requested, configured, allowed) {
  if (requested === undefined || configured === undefined || configured.trim() === '' || requested === configured) return;
  if (allowed.includes(/** @type {string} */ (requested))) return;
  throw new ConfigError('table', requested, `this function writes only to its table "${configured}"${allowed.length > 0 ? ` and to ${allowed.join(', ')}` : ''}; leave "table" out, or add the table to the ALLOWED_TABLES setting (and to the function's IAM policy)`);
}

/**
 * An import reads one S3 object (bucket and key) or, off Lambda, one local file.
 * @param {Record<string, unknown>} config
 * @param {Record<string, unknown>} payload
 */
function checkSource(config, payload) {
  if (config.prefix === undefined && /** @type {string[]} */ (config.suffix).length > 0) throw new ConfigError('suffix', config.suffix, 'filters the objects under a prefix: use it with "prefix"');
  if (payload.maxObjects !== undefined && !isCollection(/** @type {ImportConfig} */ (config))) {
    throw new ConfigError('maxObjects', payload.maxObjects, 'bounds the objects of a job over a prefix or a DynamoDB export; this import reads one object or file: leave maxObjects out');
  }
  if (config.file !== undefined) {
    if (runningInLambda()) throw new ConfigError('file', config.file, 'a Lambda imports from S3: name the object with "bucket" and "key"');
    for (const name of ['bucket', 'key', 'prefix', 'versionId', 'etag']) {
      if (config[name] !== undefined) throw new ConfigError(name, config[name], `an import of the local file ${config.file} reads no S3 object: leave ${name} out, or import s3://bucket/key instead of the file`);
    }
    return;
  }
  if (config.outputDir !== undefined) throw new ConfigError('outputDir', config.outputDir, 'only an import of a local file writes to a directory; an S3 import writes its rejects and status to the output bucket');
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
function crossCheck(config) {
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

/** @param {string | undefined} value */
function emptyToUndefined(value) {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** @param {unknown} raw @param {string} name */
function requiredString(raw, name) {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new ConfigError(name, raw, 'a non-empty string is required');
  }
  return raw;
}

/** @param {unknown} raw @param {string} name */
function optionalString(raw, name) {
  return raw === undefined ? undefined : requiredString(raw, name);
}

/** An absolute path, as the command line resolves it (a worker process may run elsewhere). @param {unknown} raw @param {string} name */
function localPath(raw, name) {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !path.isAbsolute(raw)) throw new ConfigError(name, raw, 'an absolute path is required (the command line resolves a relative one)');
  return raw;
}

/** @param {unknown} raw @param {string} name */
function tableName(raw, name) {
  if (raw === undefined) {
    throw new ConfigError(name, raw, 'name the target table in the payload ("table") or in the TABLE_NAME environment variable');
  }
  if (typeof raw !== 'string' || !/^[a-zA-Z0-9_.-]{3,255}$/.test(raw)) {
    throw new ConfigError(name, raw, 'a DynamoDB table name is 3-255 characters of a-z, A-Z, 0-9, "_", "-" and "."');
  }
  return raw;
}

/** @param {unknown} raw @param {string} name */
function keyPrefix(raw, name) {
  if (typeof raw !== 'string' || raw === '' || raw.startsWith('/') || !raw.endsWith('/')) {
    throw new ConfigError(name, raw, `use a key prefix that ends with "/" and does not start with one, such as "${name.startsWith('status') ? '_imports/' : 'rejects/'}"`);
  }
  return raw;
}

/** An S3 key prefix: any text, "" for the whole bucket, but not starting with "/" (S3 keys rarely do). @param {unknown} raw @param {string} name */
function keyPrefixOrEmpty(raw, name) {
  if (typeof raw !== 'string' || raw.startsWith('/')) throw new ConfigError(name, raw, 'use the key prefix of the objects to import, without a leading "/", e.g. "imports/2026-11/" ("" for the whole bucket)');
  return raw;
}

/** Key endings, as a list or separated by commas: ".csv,.csv.gz". @param {unknown} raw @param {string} name */
function suffixList(raw, name) {
  const list = typeof raw === 'string' ? raw.split(',').map((part) => part.trim()) : raw;
  if (!Array.isArray(list) || list.some((part) => typeof part !== 'string' || part === '')) throw new ConfigError(name, raw, 'list key endings separated by commas, e.g. ".csv,.csv.gz"');
  return list;
}

/**
 * A job over many objects: every object under a prefix, or every data file of a DynamoDB export (its
 * manifest-summary.json named as the key).
 * @param {Pick<ImportConfig, 'prefix' | 'key'>} config
 */
export const isCollection = (config) => config.prefix !== undefined || (config.key !== undefined && isManifestSummary(config.key));

/** @param {string} key */
export const isManifestSummary = (key) => key === MANIFEST_SUMMARY || key.endsWith(`/${MANIFEST_SUMMARY}`);

/** The file a DynamoDB export to S3 writes beside its data, naming them. */
export const MANIFEST_SUMMARY = 'manifest-summary.json';

/** @param {unknown} raw @param {string} name */
function tableList(raw, name) {
  const list = typeof raw === 'string' ? raw.split(',').map((t) => t.trim()).filter((t) => t !== '') : raw;
  if (!Array.isArray(list)) throw new ConfigError(name, raw, 'list table names separated by commas');
  return list.map((table) => tableName(table, name));
}

/** @param {unknown} raw @param {string} name */
function continuation(raw, name) {
  if (raw === undefined) {
    // In Lambda a job goes on in a new invocation; anywhere else (npm start, tests, sls invoke local) in this process.
    return runningInLambda() ? 'invoke' : 'in-process';
  }
  if (raw !== 'invoke' && raw !== 'in-process') throw new ConfigError(name, raw, 'use "invoke" (a new Lambda invocation) or "in-process"');
  return raw;
}

/** In Lambda, not under `sls invoke local`. */
export function runningInLambda() {
  return process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined && process.env.IS_LOCAL !== 'true';
}

/**
 * @template T
 * @param {(raw: unknown, name: string) => T} parse
 * @returns {(raw: unknown, name: string) => T | undefined}
 */
function optional(parse) {
  return (raw, name) => (raw === undefined ? undefined : parse(raw, name));
}

/** @param {unknown} raw @param {string} name */
function boolean(raw, name) {
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new ConfigError(name, raw, 'use true or false');
}

/** @param {string[]} allowed @returns {(raw: unknown, name: string) => string} */
function oneOf(allowed) {
  return (raw, name) => {
    if (typeof raw !== 'string' || !allowed.includes(raw)) throw new ConfigError(name, raw, `use one of ${allowed.map((value) => `"${value}"`).join(', ')}`);
    return raw;
  };
}

/** @param {unknown} raw @param {string} name */
function setSeparator(raw, name) {
  if (typeof raw !== 'string' || raw.length !== 1 || /[\r\n"]/.test(raw)) throw new ConfigError(name, raw, 'use one character other than a quote or a line break, such as "|" or ";"');
  return raw;
}

/** @param {unknown} raw @param {string} name */
function delimiter(raw, name) {
  const value = raw === '\\t' ? '\t' : raw;
  // ASCII only: the record splitter finds delimiters byte by byte (by code unit in UTF-16).
  if (typeof value !== 'string' || value.length !== 1 || value === '"' || value === '\n' || value === '\r' || value.charCodeAt(0) > 0x7f || value === '\0') {
    throw new ConfigError(name, raw, 'use one ASCII character other than a quote or a line break, such as "," ";" "|" or "\\t"');
  }
  return value;
}

/** @param {unknown} raw @param {string} name */
function encoding(raw, name) {
  const found = typeof raw === 'string' ? ENCODING_NAMES.get(raw.trim().toLowerCase()) : undefined;
  if (found === undefined) {
    throw new ConfigError(name, raw, 'use "auto" (the default: UTF-8, or UTF-16LE when the file starts with its byte order mark), "utf-8", "utf-16le", "windows-1252" (files saved by Excel on Windows) or "latin1"');
  }
  return /** @type {import('./records/csv/text-encoding.js').EncodingOption} */ (found);
}

/**
 * @param {number} min
 * @param {number} max
 * @returns {(raw: unknown, name: string) => number}
 */
function integerIn(min, max) {
  return (raw, name) => {
    const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(name, raw, `use a whole number from ${min} to ${max}`);
    }
    return value;
  };
}

/** A price in USD: a number above 0 (a string from the environment or the command line). @param {unknown} raw @param {string} name */
function price(raw, name) {
  const value = typeof raw === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1_000) {
    throw new ConfigError(name, raw, `use the price in USD per million write request units of the table's region, such as ${ON_DEMAND_USD_PER_MILLION_WRITES} (us-east-1)`);
  }
  return value;
}

/** @param {unknown} raw @param {string} name */
function optionalUrl(raw, name) {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) {
    throw new ConfigError(name, raw, 'use an http:// or https:// URL, such as http://127.0.0.1:8000');
  }
  return raw;
}

const COLUMN_TYPES = new Set(['S', 'N', 'BOOL', 'B', 'M', 'L', 'SS', 'NS', 'BS']);
const SET_TYPES = new Set(['SS', 'NS', 'BS']);

/**
 * Accepts `{"age": "N"}` or the string form `age:N,active:BOOL` (the only form an env var can hold).
 * @param {unknown} raw @param {string} name
 * @returns {Record<string, ColumnType>}
 */
function columnTypes(raw, name) {
  /** @type {Array<[string, unknown]>} */
  let pairs;
  if (typeof raw === 'string') {
    pairs = raw
      .split(',')
      .filter((part) => part.trim() !== '')
      .map((part) => {
        const at = part.lastIndexOf(':');
        if (at <= 0) throw new ConfigError(name, raw, `"${part}" is not column:TYPE; write e.g. "age:N,active:BOOL"`);
        return [part.slice(0, at).trim(), part.slice(at + 1).trim().toUpperCase()];
      });
  } else if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    pairs = Object.entries(raw).map(([column, type]) => [column, typeof type === 'string' ? type.toUpperCase() : type]);
  } else {
    throw new ConfigError(name, raw, 'use an object like {"age":"N","active":"BOOL"} or a string like "age:N,active:BOOL"');
  }
  // No prototype: a column named constructor, toString or __proto__ must not find Object's members.
  /** @type {Record<string, ColumnType>} */
  const types = Object.create(null);
  for (const [column, type] of pairs) {
    if (typeof type !== 'string' || !COLUMN_TYPES.has(type)) {
      throw new ConfigError(name, raw, `column "${column}" has type ${JSON.stringify(type)}; the types are S, N, BOOL, B (base64), M and L (a JSON cell), SS, NS and BS (members cut by setSeparator)`);
    }
    types[column] = /** @type {ColumnType} */ (type);
  }
  return types;
}

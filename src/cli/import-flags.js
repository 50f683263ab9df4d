/**
 * The import command's flags: one per import option (the Lambda payload's, with the same checks and
 * messages), and how a parsed command line becomes a payload. A ConfigError names the option as the
 * payload spells it; on the command line it names the flag.
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { WRITE_OPTIONS } from '../job/write-options.js';

/**
 * Flags that map one to one onto import options: flag, option, value name, help.
 * @type {Array<[flag: string, option: string, value: string | undefined, help: string]>}
 */
export const OPTION_FLAGS = [
  ['--table', 'table', 'name', 'the DynamoDB table to write to (it must exist)'],
  ['--key', 'keyColumn', 'column', 'column holding the partition key (default: id)'],
  ['--sort-key', 'sortKeyColumn', 'column', 'column holding the sort key, if the table has one'],
  ['--generate-key', 'generateKey', undefined, 'fill --key with a deterministic UUID instead of reading it'],
  ['--types', 'columnTypes', 'list', 'column types, e.g. balance:N,active:BOOL,tags:SS,doc:M (S, N, BOOL, B, M, L, SS, NS, BS)'],
  ['--format', 'format', 'name', 'auto (default: by extension and first bytes), csv, jsonl or dynamodb-json'],
  ['--mode', 'mode', 'name', 'put (default), or delete: delete the item of each row\'s key'],
  ['--empty-cell', 'emptyCell', 'as', 'what an empty CSV cell becomes: omit (default), null or empty-string'],
  ['--set-separator', 'setSeparator', 'char', 'what cuts an SS, NS or BS cell into members (default "|")'],
  ['--delimiter', 'delimiter', 'char', 'field delimiter (default ","; "\\t" for tabs)'],
  ['--encoding', 'encoding', 'name', 'auto (default), utf-8, utf-16le, windows-1252 or latin1'],
  ['--concurrency', 'concurrency', 'n', 'most BatchWriteItem calls in flight (default 32)'],
  ['--min-concurrency', 'minConcurrency', 'n', 'the adaptive window\'s floor (default 1)'],
  ['--max-wcu', 'maxWcu', 'n', 'most write capacity units per second, for the whole job'],
  ['--shuffle-window', 'shuffleWindow', 'rows', 'rows reordered at random before batching (default 0)'],
  ['--spread', 'spread', 'ranges', 'a file sorted by the table\'s key read in this many places at once (default 1)'],
  ['--max-attempts', 'maxAttempts', 'n', 'attempts per batch before its items are rejected (default 12)'],
  ['--backoff-base-ms', 'backoffBaseMs', 'ms', 'first backoff ceiling (default 25)'],
  ['--backoff-cap-ms', 'backoffCapMs', 'ms', 'largest backoff ceiling (default 5000)'],
  ['--request-timeout-ms', 'requestTimeoutMs', 'ms', 'a call with no answer for this long is retried (default 10000)'],
  ['--read-idle-timeout-ms', 'readIdleTimeoutMs', 'ms', 'an S3 read that stalls this long is re-opened (default 10000)'],
  ['--log-interval-ms', 'logIntervalMs', 'ms', 'period of the throughput line (default 1000)'],
  ['--segment-ms', 'segmentMs', 'ms', 'take a checkpoint and go on every N ms (shows the resume path)'],
  ['--shards', 'shards', 'n', 'cut the file into N byte ranges, each imported by its own worker process'],
  ['--bytes-per-shard', 'bytesPerShard', 'bytes', 'shard a file past N bytes, one shard per N bytes'],
  ['--version-id', 'versionId', 'id', 'the S3 object version to import (versioned buckets)'],
  ['--suffix', 'suffix', 'list', 'with s3://bucket/prefix/: only keys ending so, e.g. .csv,.csv.gz'],
  ['--max-objects', 'maxObjects', 'n', 'with a prefix or an export: most objects one job takes (default 1000)'],
  ['--from-rejects', 'fromRejects', undefined, 'the file is a fixed rejects file: skip its line, reason and message columns'],
  ['--rejects-prefix', 'rejectsPrefix', 'prefix', 'where rejects files go (default rejects/)'],
  ['--status-prefix', 'statusPrefix', 'prefix', 'where job status goes (default _imports/)'],
  ['--output-dir', 'outputDir', 'dir', 'where a local file\'s rejects and status go (default: its directory)'],
  ['--require-pitr', 'requirePitr', undefined, 'refuse a table that holds items and has no point-in-time recovery'],
  ['--dry-run', 'dryRun', undefined, 'read and check the whole file, write nothing; report rows, rejects, keys, capacity, cost and time'],
  ['--price-per-million-writes', 'pricePerMillionWrites', 'usd', 'on-demand price for the dry run\'s cost (default: us-east-1\'s)'],
];

/** The flags that set write options (job/write-options.js): an import with others is another job. */
export const WRITE_FLAGS = OPTION_FLAGS.filter(([, option]) => /** @type {readonly string[]} */ (WRITE_OPTIONS).includes(option)).map(([flag]) => flag);

/** The flag that sets each option. */
const FLAG_OF = new Map(OPTION_FLAGS.map(([flag, option]) => [option, flag]));

/** The flag that sets an option, as a person types it. @param {string} option */
export const flagOf = (option) => FLAG_OF.get(option) ?? option;

/** Commander's name for a flag's value: --max-wcu is maxWcu. @param {string} flag */
export const attributeOf = (flag) => flag.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());

/**
 * The payload of an import from its source argument and parsed flags.
 * @param {string} source  s3://bucket/key, or a path
 * @param {Record<string, unknown>} flags  as commander parsed them
 * @param {string} [cwd]
 * @returns {Record<string, unknown>}
 */
export function payloadOf(source, flags, cwd = process.cwd()) {
  /** @type {Record<string, unknown>} */
  const payload = { ...sourceOf(source, cwd) };
  for (const [flag, option] of OPTION_FLAGS) {
    const value = flags[attributeOf(flag)];
    if (value === undefined) continue;
    payload[option] = option === 'outputDir' ? path.resolve(cwd, String(value)) : value;
  }
  if (payload.file === undefined && payload.outputDir !== undefined) {
    throw new ConfigError('--output-dir', flags.outputDir, 'only an import of a local file writes to a directory; an S3 import writes its rejects and status to the bucket');
  }
  return payload;
}

/**
 * s3://bucket/key is one object, s3://bucket/prefix/ (ending with "/") every object under the prefix, and
 * anything else a local path.
 * @param {string} source @param {string} cwd
 * @returns {{ bucket: string, key: string } | { bucket: string, prefix: string } | { file: string }}
 */
export function sourceOf(source, cwd) {
  if (source.startsWith('s3://')) {
    const rest = source.slice('s3://'.length);
    const slash = rest.indexOf('/');
    if (slash <= 0) {
      throw new ConfigError('source', source, 'name an object as s3://bucket/key, e.g. s3://my-bucket/imports/people.csv, or every object under a prefix as s3://my-bucket/imports/');
    }
    const bucket = rest.slice(0, slash);
    const key = rest.slice(slash + 1);
    return key === '' || key.endsWith('/') ? { bucket, prefix: key } : { bucket, key };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    throw new ConfigError('source', source, 'the source is s3://bucket/key or a path to a local file');
  }
  return { file: path.resolve(cwd, source) };
}

/**
 * The same error, naming the flag instead of the payload's option.
 * @param {unknown} error
 */
export function withFlagNames(error) {
  if (!(error instanceof ConfigError)) return error;
  const option = /** @type {string} */ (error.option).replace(/ \(env .*\)$/, '');
  const flag = FLAG_OF.get(option);
  if (flag === undefined) return error;
  const renamed = new ConfigError(flag, undefined, '');
  renamed.message = error.message.replace(`"${error.option}"`, flag).replaceAll(`${option} (`, `${flag} (`);
  return renamed;
}

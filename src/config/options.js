/**
 * Every import option, once: its payload name, environment variable, command-line flag, default, parser,
 * help and group. The config's type, the payload's checks, the command line's flags and help, the job's
 * identity and docs/options.md (`npm run docs`) are all made from this list. To add an option, add its
 * row here and read it in the stage that uses it.
 */
import { parseCheckpoint, parseShardSpec } from './job-values.js';
import {
  boolean, columnList, columnTypes, delimiter, encoding, etag, integerIn, keyPrefix, keyPrefixOrEmpty, localPath,
  oneOf, optional, optionalString, optionalUrl, price, renames, requiredString, setSeparator, suffixList, tableList, tableName, ttlOption,
} from './values.js';

/** How a row is written: `put` in BatchWriteItem calls, the others one conditional call per row. */
export const WRITE_MODES = /** @type {const} */ (['put', 'if-absent', 'newer', 'update']);

/**
 * The window's ceiling when `concurrency` is not set: calls of 25 rows, or of one (conditional modes:
 * enough one-row calls to keep a table busier than one process can, and no more, as each costs CPU;
 * the measurements are in docs/design/write-modes.md).
 */
export const DEFAULT_CONCURRENCY = { batch: 32, item: 64 };

/** Most shards one job may have: each is a concurrent Lambda invocation (or worker process). */
export const MAX_SHARDS = 1000;

/**
 * What an option is about; each stage reads the options of its groups.
 * @typedef {'source' | 'target' | 'rows' | 'write' | 'job' | 'deployment'} OptionGroup
 */

/**
 * Each group's heading, in the order the command line's help and docs/options.md show them.
 * @type {Record<OptionGroup, { title: string, note?: string }>}
 */
export const OPTION_GROUPS = {
  source: { title: 'Source' },
  target: { title: 'Table' },
  rows: { title: 'What a row becomes', note: 'another value is another job' },
  write: { title: 'Writing' },
  job: { title: 'The job' },
  deployment: { title: 'Deployment', note: "the function's environment only" },
};

/** A group's heading: its title, and its note in brackets. @param {OptionGroup} group */
export function groupHeading(group) {
  const { title, note } = OPTION_GROUPS[group];
  return note === undefined ? title : `${title} (${note})`;
}

/** An option's flag as help and docs spell it: with its value's name, if it takes one. @param {{ flag: string, value?: string }} spec */
export const flagSpelling = ({ flag, value }) => (value === undefined ? flag : `${flag} <${value}>`);

/**
 * One option. `payload: false`: only the deployment sets it (a payload cannot point the function at
 * another server). `writes: true`: a run with another value writes other items, so the value is part of
 * the job's identity (state/write-options.js). `shown`: the default as help shows it, where the value is
 * not what a person would type.
 * @typedef {object} OptionSpec
 * @property {string} name
 * @property {OptionGroup} group
 * @property {string} help  one line for the command line's help
 * @property {string} [docs]  the longer meaning docs/options.md gives, where help is too short for it
 * @property {(raw: unknown, name: string) => unknown} parse
 * @property {string} [env]
 * @property {string} [flag]
 * @property {string} [value]  the flag's value, as help names it; absent: a flag without a value (true)
 * @property {unknown} [fallback]
 * @property {string} [shown]
 * @property {false} [payload]
 * @property {true} [writes]
 * @property {unknown} [later]  a write option added after job ids were first made: at this value (its
 *   default) it is left out of a job's id and write options, so that the ids of earlier jobs stay
 */

export const OPTIONS = /** @type {const} */ ([
  // Where the rows come from.
  { name: 'bucket', group: 'source', parse: optionalString, help: 'source bucket (unset for a local file)' },
  { name: 'key', group: 'source', parse: optionalString, help: 'source object key; a key ending in manifest-summary.json imports that DynamoDB export\'s data files' },
  { name: 'prefix', group: 'source', parse: optional(keyPrefixOrEmpty), help: 'import every object under this key prefix, as one job (instead of key)', docs: "every object under this key prefix, as one job (`\"\"`: the whole bucket) ([Many objects](formats.md#many-objects-a-prefix-or-a-whole-export))" },
  { name: 'suffix', group: 'source', flag: '--suffix', value: 'list', fallback: [], shown: 'every object', parse: suffixList, help: 'with a prefix: only keys ending so, e.g. .csv,.csv.gz' },
  { name: 'maxObjects', group: 'source', env: 'MAX_OBJECTS', flag: '--max-objects', value: 'n', fallback: 1000, parse: integerIn(1, MAX_SHARDS), help: 'with a prefix or an export: most objects one job takes; more fail the job before it starts' },
  { name: 'file', group: 'source', parse: localPath, help: 'a local file to import instead of an S3 object (off Lambda only), absolute' },
  { name: 'outputDir', group: 'source', flag: '--output-dir', value: 'dir', shown: 'the file\'s directory', parse: localPath, help: 'where a local file\'s rejects and status go' },
  { name: 'versionId', group: 'source', flag: '--version-id', value: 'id', parse: optionalString, help: 'the S3 object version to import (versioned buckets; an S3 event names it)' },
  { name: 'etag', group: 'source', parse: optional(etag), help: 'the object version to import, by its ETag (an S3 event names it): another fails' },
  { name: 'readIdleTimeoutMs', group: 'source', env: 'READ_IDLE_TIMEOUT_MS', flag: '--read-idle-timeout-ms', value: 'ms', fallback: 10_000, parse: integerIn(100, 600_000), help: 'an S3 read that sends nothing for this long is re-opened' },
  { name: 'maxReopens', group: 'source', env: 'MAX_REOPENS', flag: '--max-reopens', value: 'n', fallback: 5, parse: integerIn(0, 100), help: 'S3 re-opens in a row without progress before the import fails' },

  // Where they go.
  { name: 'table', group: 'target', env: 'TABLE_NAME', flag: '--table', value: 'name', parse: tableName, help: 'the DynamoDB table to write to (it must exist)' },

  // What a row becomes. These write options are in the order job ids were first made from them.
  { name: 'mode', group: 'rows', writes: true, env: 'IMPORT_MODE', flag: '--mode', value: 'name', fallback: 'put', parse: oneOf(/** @type {const} */ (['put', 'delete'])), help: 'put each row\'s item, or delete the item of each row\'s key', docs: "`put` each row's item, or `delete` the item of each row's key (only the key columns are read)" },
  { name: 'format', group: 'rows', writes: true, env: 'FILE_FORMAT', flag: '--format', value: 'name', fallback: 'auto', parse: oneOf(/** @type {const} */ (['auto', 'csv', 'jsonl', 'dynamodb-json'])), help: 'csv, jsonl or dynamodb-json; auto: by the name\'s extension, then the first bytes', docs: "`csv`, `jsonl` (JSON Lines), `dynamodb-json` (an export's `{\"Item\": ...}` lines), or `auto`: by the name's extension, then the first bytes" },
  { name: 'keyColumn', group: 'rows', writes: true, env: 'KEY_COLUMN', flag: '--key', value: 'column', fallback: 'id', parse: requiredString, help: 'column holding the table\'s partition key' },
  { name: 'sortKeyColumn', group: 'rows', writes: true, env: 'SORT_KEY_COLUMN', flag: '--sort-key', value: 'column', parse: optionalString, help: 'column holding the table\'s sort key, if it has one' },
  { name: 'generateKey', group: 'rows', writes: true, env: 'GENERATE_KEY', flag: '--generate-key', fallback: false, parse: boolean, help: 'fill the key column with a deterministic UUID instead of reading it' },
  { name: 'columnTypes', group: 'rows', writes: true, env: 'COLUMN_TYPES', flag: '--types', value: 'list', fallback: {}, shown: 'CSV columns S, JSON attributes their JSON type', parse: columnTypes, help: 'column types, e.g. balance:N,active:BOOL,tags:SS,doc:M (S, N, BOOL, B, M, L, SS, NS, BS)', docs: "`{\"age\":\"N\",\"vip\":\"BOOL\"}` or `age:N,vip:BOOL`; types S, N, BOOL, B (base64), M and L (a JSON cell), SS, NS and BS (members cut by `setSeparator`); key columns S, N or B ([Formats, types and deletes](formats.md#formats-types-and-deletes))" },
  { name: 'emptyCell', group: 'rows', writes: true, env: 'EMPTY_CELL', flag: '--empty-cell', value: 'as', fallback: 'omit', parse: oneOf(/** @type {const} */ (['omit', 'null', 'empty-string'])), help: 'what an empty CSV cell becomes: omit (no attribute), null or empty-string', docs: "what an empty CSV cell becomes: `omit` (no attribute), `null` (NULL), `empty-string` (`\"\"`, for S columns; other types are omitted)" },
  { name: 'setSeparator', group: 'rows', writes: true, env: 'SET_SEPARATOR', flag: '--set-separator', value: 'char', fallback: '|', parse: setSeparator, help: 'what cuts an SS, NS or BS cell into members' },
  { name: 'delimiter', group: 'rows', writes: true, env: 'CSV_DELIMITER', flag: '--delimiter', value: 'char', fallback: ',', parse: delimiter, help: 'CSV field delimiter, one ASCII character ("\\t" for tabs)' },
  { name: 'encoding', group: 'rows', writes: true, env: 'CSV_ENCODING', flag: '--encoding', value: 'name', fallback: 'auto', parse: encoding, help: 'utf-8, utf-16le, windows-1252 or latin1; auto: UTF-8, or UTF-16LE after its byte order mark' },
  { name: 'fromRejects', group: 'rows', writes: true, flag: '--from-rejects', fallback: false, parse: boolean, help: 'the file is a fixed rejects file: skip its line, reason and message columns' },
  { name: 'drop', group: 'rows', writes: true, later: [], flag: '--drop', value: 'columns', fallback: [], shown: 'none', parse: columnList, help: 'columns (as the file names them) not written, e.g. notes,internal_id' },
  { name: 'rename', group: 'rows', writes: true, later: {}, flag: '--rename', value: 'list', fallback: {}, shown: 'none', parse: renames, help: 'columns written under other names, e.g. user_id:id,mail:email (the key, --types and --sort-key name them as renamed)' },
  { name: 'writeMode', group: 'rows', writes: true, later: 'put', flag: '--write-mode', value: 'mode', fallback: 'put', parse: oneOf(WRITE_MODES), help: 'put (overwrite), if-absent (insert only), newer (where --version-column is higher) or update (merge into the item)', docs: "`put`: each row's item replaces the table's (BatchWriteItem, 25 rows a call); `if-absent`: written only where the table has no item with its key; `newer`: only where the table has none, or its `versionColumn` is lower than the row's; `update`: the row's attributes merged into the item (UpdateItem SET; with `versionColumn`, only where it is lower). A row whose condition fails is skipped, not rejected; the conditional modes send one call per row ([Write modes](write-modes.md))" },
  { name: 'versionColumn', group: 'rows', writes: true, later: undefined, flag: '--version-column', value: 'column', parse: optionalString, help: 'with --write-mode newer or update: the column compared (N, or S as ISO 8601 text); a row is written only where the item\'s is lower', docs: "with `writeMode` `newer` (required) or `update`: the attribute compared, as written (after renames); N compared as numbers, S as text (ISO 8601 times in one zone and precision sort as text does). A row without it, or with another type, is rejected (`INVALID_VERSION`)" },
  { name: 'ttl', group: 'rows', writes: true, later: undefined, flag: '--ttl', value: 'column[:+30d]', shown: 'none', parse: optional(ttlOption), help: 'the TTL column, written as N in epoch seconds from numbers or ISO 8601 dates; column:+30d fills it with the import\'s time plus 30 days (+Nd, +Nh, +Nm, +Ns)', docs: "the table's TTL attribute, written as N in epoch seconds: a column of whole seconds or ISO 8601 dates (`expires`), or the import's time plus a duration for every row (`expires:+30d`; +Nd, +Nh, +Nm or +Ns) ([TTL](formats.md#a-ttl-column))" },
  { name: 'nest', group: 'rows', writes: true, later: false, flag: '--nest', fallback: false, parse: boolean, help: 'dotted names (address.city) become nested maps (address: {city})', docs: "dotted CSV headers and JSON Lines attribute names (`address.city`) become nested maps (`address: {city}`), any depth ([Nested maps](formats.md#nested-maps-from-dotted-names))" },

  // How fast, and how hard to try.
  { name: 'concurrency', group: 'write', env: 'CONCURRENCY', flag: '--concurrency', value: 'n', shown: `${DEFAULT_CONCURRENCY.batch}; ${DEFAULT_CONCURRENCY.item} with a conditional --write-mode`, parse: optional(integerIn(1, 1024)), help: 'most calls in flight (the adaptive window\'s ceiling)', docs: `most calls in flight, the adaptive window's ceiling: ${DEFAULT_CONCURRENCY.batch} BatchWriteItem calls of 25 rows by default, ${DEFAULT_CONCURRENCY.item} one-row calls with a conditional \`writeMode\`` },
  { name: 'adaptiveConcurrency', group: 'write', env: 'ADAPTIVE_CONCURRENCY', fallback: true, parse: boolean, help: 'grow and cut the window with the table\'s answers (AIMD)', docs: "AIMD window (grows while calls succeed whole, halves on throttling) and adaptive pace (rate learned from the table); `false` keeps the window at `concurrency`, unpaced" },
  { name: 'minConcurrency', group: 'write', env: 'MIN_CONCURRENCY', flag: '--min-concurrency', value: 'n', fallback: 1, parse: integerIn(1, 1024), help: 'the adaptive window\'s floor' },
  { name: 'maxWcu', group: 'write', env: 'MAX_WCU', flag: '--max-wcu', value: 'n', shown: 'no cap', parse: optional(integerIn(1, 10_000_000)), help: 'most write capacity units per second, for the whole job', docs: "most write capacity units consumed per second, to leave headroom on a table that serves traffic; for a sharded job, the whole job's (each shard gets its share). Under a cap below 500, a call carries at most a twentieth of a second's worth (at least one item), so that no second passes the cap by more than 5% plus one item" },
  { name: 'shuffleWindow', group: 'write', env: 'SHUFFLE_WINDOW', flag: '--shuffle-window', value: 'rows', fallback: 0, parse: integerIn(0, 1_000_000), help: 'rows reordered at random before batching, for files sorted by partition key (memory grows with it)', docs: "rows reordered at random before batching, for files sorted by partition key (hot partitions). Memory grows with it: each held row of the generator's ~200 bytes takes about 1 KB of heap, and peak RSS was 225 MB at 10,000, 375 MB at 100,000 and 1,230 MB at 1,000,000 on Node.js 22, the Lambda runtime (194, 300 and 1,206 MB on Node.js 20; bench machine, against the sink). Rows with one key may then land in any order" },
  { name: 'spread', group: 'write', env: 'SPREAD', flag: '--spread', value: 'ranges', fallback: 1, parse: integerIn(1, 64), help: 'a file sorted by the table\'s key read in this many places at once, their rows interleaved', docs: "for a file sorted by the table's key: read it in this many byte ranges at once (2-64) and interleave their rows, so that the writes go to that many stretches of the key space (partitions) instead of one, with memory for that many read buffers only. Cut on record boundaries; a run of one key is never cut. The rows of a key keep their file order: a row whose key lies among another range's keys (the file is not sorted after all) stops the import there with `SPREAD_UNSORTED`, before it is written. A compressed file is read in one place (the summary says so)" },
  { name: 'maxAttempts', group: 'write', env: 'MAX_ATTEMPTS', flag: '--max-attempts', value: 'n', fallback: 12, parse: integerIn(1, 100), help: 'attempts per batch before its items are rejected', docs: "failed attempts per batch before its items are rejected; throttling while the import as a whole still writes does not count (the batch waits its turn)" },
  { name: 'backoffBaseMs', group: 'write', env: 'BACKOFF_BASE_MS', flag: '--backoff-base-ms', value: 'ms', fallback: 25, parse: integerIn(1, 60_000), help: 'first backoff ceiling; doubles per attempt (full jitter)', docs: "first backoff ceiling; doubles each retry (with `spread`, up to 16 x while the import as a whole writes)" },
  { name: 'backoffCapMs', group: 'write', env: 'BACKOFF_CAP_MS', flag: '--backoff-cap-ms', value: 'ms', fallback: 5_000, parse: integerIn(1, 300_000), help: 'largest backoff ceiling' },
  { name: 'requestTimeoutMs', group: 'write', env: 'REQUEST_TIMEOUT_MS', flag: '--request-timeout-ms', value: 'ms', fallback: 10_000, parse: integerIn(100, 120_000), help: 'a call with no answer for this long is retried' },

  // The job: its checks, reports, saved state and how it is cut.
  { name: 'dryRun', group: 'job', flag: '--dry-run', fallback: false, parse: boolean, help: 'read and check the whole file, write nothing; report rows, rejects, keys, capacity, cost and time' },
  { name: 'requirePitr', group: 'job', env: 'REQUIRE_PITR', flag: '--require-pitr', fallback: false, parse: boolean, help: 'refuse a table that holds items and has no point-in-time recovery (else a warning)' },
  { name: 'pricePerMillionWrites', group: 'job', env: 'PRICE_PER_MILLION_WRITES', flag: '--price-per-million-writes', value: 'usd', shown: 'us-east-1\'s on-demand price', parse: optional(price), help: 'USD per million on-demand write request units, for the dry run\'s cost', docs: "USD per million on-demand write request units, for the dry run's cost (us-east-1's, read 2026-11-24, in src/dry-run/prices.js)" },
  { name: 'logIntervalMs', group: 'job', env: 'LOG_INTERVAL_MS', flag: '--log-interval-ms', value: 'ms', fallback: 1_000, parse: integerIn(100, 3_600_000), help: 'period of the throughput line' },
  { name: 'rejectsPrefix', group: 'job', env: 'REJECTS_PREFIX', flag: '--rejects-prefix', value: 'prefix', fallback: 'rejects/', parse: keyPrefix, help: 'where rejects files go in the output bucket' },
  { name: 'statusPrefix', group: 'job', env: 'STATUS_PREFIX', flag: '--status-prefix', value: 'prefix', fallback: '_imports/', parse: keyPrefix, help: 'where job status objects go in the output bucket' },
  { name: 'segmentMs', group: 'job', env: 'SEGMENT_MS', flag: '--segment-ms', value: 'ms', parse: optional(integerIn(100, 900_000)), help: 'longest a segment reads before it takes a checkpoint and hands over to the next' },
  { name: 'timeMarginMs', group: 'job', env: 'TIME_MARGIN_MS', fallback: 60_000, parse: integerIn(1_000, 600_000), help: 'Lambda time left at which an invocation stops reading and hands over' },
  { name: 'shards', group: 'job', env: 'SHARDS', flag: '--shards', value: 'n', fallback: 1, parse: integerIn(1, MAX_SHARDS), help: 'cut the file into N byte ranges, each imported by its own invocation (worker process)', docs: "cut the file into this many byte ranges, each imported by its own invocation (1-1000); not with a prefix or an export (one shard per object)" },
  { name: 'bytesPerShard', group: 'job', env: 'BYTES_PER_SHARD', flag: '--bytes-per-shard', value: 'bytes', parse: optional(integerIn(1 << 20, Number.MAX_SAFE_INTEGER)), help: 'shard a file past this size: one shard per this many bytes', docs: "shard any uncompressed file past this size, one shard per this many bytes (at least 1 MiB); in a prefix or export job, each object past it" },
  { name: 'shardConcurrency', group: 'job', env: 'SHARD_CONCURRENCY', flag: '--shard-concurrency', value: 'n', shown: 'every shard at once', parse: optional(integerIn(1, MAX_SHARDS)), help: 'shards imported at once (on AWS, the Distributed Map\'s MaxConcurrency); maxWcu is divided between them' },
  { name: 'toleratedFailurePercentage', group: 'job', env: 'TOLERATED_FAILURE_PERCENTAGE', fallback: 0, parse: integerIn(0, 100), help: 'on AWS, the share of shards that may fail, in percent, before the job fails (the Distributed Map\'s ToleratedFailurePercentage)' },
  { name: 'checkpoint', group: 'job', parse: optional(parseCheckpoint), help: 'where to resume a job, as the function logged or sent it' },
  { name: 'shard', group: 'job', parse: optional(parseShardSpec), help: 'the range this invocation imports (set by the planner)' },
  { name: 'runId', group: 'job', flag: '--run-id', value: 'id', parse: optionalString, help: 'any value: runs a payload identical to one that completed, again (a job of its own)' },

  // The deployment's: the function's environment sets them, a payload cannot.
  { name: 'allowedTables', group: 'deployment', payload: false, env: 'ALLOWED_TABLES', fallback: '', shown: 'none', parse: tableList, help: 'tables a payload may name besides TABLE_NAME' },
  { name: 'region', group: 'deployment', payload: false, env: 'AWS_REGION', fallback: 'us-east-1', parse: requiredString, help: 'AWS region of the clients' },
  { name: 'tableRegion', group: 'deployment', payload: false, env: 'TABLE_REGION', shown: 'region', parse: optionalString, help: 'AWS region of the table', docs: "the table's region, when it is not the function's" },
  { name: 'outputBucket', group: 'deployment', payload: false, env: 'OUTPUT_BUCKET', shown: 'the source bucket', parse: optionalString, help: 'where rejects files and job status go', docs: "where rejects files, job plans, status and hand-over rows go (the deployment sets it)" },
  { name: 'dynamodbEndpoint', group: 'deployment', payload: false, env: 'DYNAMODB_ENDPOINT', parse: optionalUrl, help: 'DynamoDB endpoint override (local servers; `--endpoint-url` on the command line)', docs: "endpoint overrides (local mode); a payload cannot set them. The SDK's own `AWS_ENDPOINT_URL_DYNAMODB` (or `AWS_ENDPOINT_URL`, or `endpoint_url` in the config file) also works: every DynamoDB call, BatchWriteItem included, goes where it says; `DYNAMODB_ENDPOINT` wins over it" },
  { name: 's3Endpoint', group: 'deployment', payload: false, env: 'S3_ENDPOINT', parse: optionalUrl, help: 'S3 endpoint override (local servers)', docs: "endpoint overrides (local mode); a payload cannot set them. The SDK's own `AWS_ENDPOINT_URL_DYNAMODB` (or `AWS_ENDPOINT_URL`, or `endpoint_url` in the config file) also works: every DynamoDB call, BatchWriteItem included, goes where it says; `DYNAMODB_ENDPOINT` wins over it" },
]);

/** @typedef {(typeof OPTIONS)[number]} OptionRow */
/** @typedef {OptionRow['name']} OptionName */

/** The rows as plain specs, for code that reads any row's fields. */
export const OPTION_SPECS = /** @type {readonly OptionSpec[]} */ (OPTIONS);

export const OPTION_NAMES = OPTIONS.map((option) => option.name);

/** The environment variables options are read from. */
export const OPTION_VARIABLES = OPTION_SPECS.flatMap((option) => (option.env === undefined ? [] : [option.env]));

/** The options that change what is written, in the order job ids are made from them. */
export const WRITE_OPTIONS = OPTION_SPECS.filter((option) => option.writes).map((option) => /** @type {WriteOptionName} */ (option.name));

/** Write options added later, with the value at which a job's id leaves them out. */
export const LATER_WRITE_DEFAULTS = /** @type {Record<string, unknown>} */ (Object.fromEntries(OPTION_SPECS.flatMap((option) => ('later' in option ? [[option.name, option.later]] : []))));

/** @typedef {Extract<OptionRow, { writes: true }>['name']} WriteOptionName */

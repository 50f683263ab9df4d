#!/usr/bin/env node
/**
 * `npm start`: the whole import on this machine. Starts dynalite and the S3 emulator, uploads a
 * generated CSV (or --file), runs the Lambda handler on it, checks the table, prints the summary as
 * the last line of stdout, and stops the servers.
 */
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { resolveConfig } from '../src/config/index.js';
import { uploadStream, writeCsv } from '../data-generator/people.js';
import { jobIdOfObject } from '../src/state/job-status.js';
import { countItems, startLocalSession, tableKeysOf } from './servers.js';

const HELP = `Usage: npm start -- [options]

Runs an import end to end on local servers (dynalite, an open-source DynamoDB, and an S3 emulator on 127.0.0.1).

Input (one of):
  --rows N              generate N person rows (default 100000)
  --file PATH           import this CSV instead

Import options (the same as the Lambda payload's):
  --key COLUMN          column holding the partition key (default id)
  --sort-key COLUMN     column holding the sort key, if the table has one
  --generate-key        fill --key with a deterministic UUID instead of reading it
  --types LIST          column types, e.g. balance:N,active:BOOL (others are S)
  --delimiter CHAR      field delimiter (default ",", "\\t" for tabs)
  --concurrency N       BatchWriteItem calls in flight (default 32)
  --max-attempts N      attempts per batch before its items are rejected (default 12)
  --backoff-base-ms N   first backoff ceiling (default 25)
  --backoff-cap-ms N    largest backoff ceiling (default 5000)
  --log-interval-ms N   throughput line period (default 1000)
  --segment-ms N        hand over to a continuation every N ms (shows the 15-minute path; default off)
  --shards N            cut the file into N byte ranges, each imported by its own worker process
  --bytes-per-shard N   shard a file past N bytes, one shard per N bytes
  --max-wcu N           most write capacity units per second, for the whole job (split across shards)
  --rejects-prefix P    where rejects files go in the bucket (default rejects/)
  --help                this text`;

/** Flags that map one to one onto import options. */
const OPTION_FLAGS = {
  key: 'keyColumn',
  'sort-key': 'sortKeyColumn',
  types: 'columnTypes',
  delimiter: 'delimiter',
  concurrency: 'concurrency',
  'max-attempts': 'maxAttempts',
  'backoff-base-ms': 'backoffBaseMs',
  'backoff-cap-ms': 'backoffCapMs',
  'log-interval-ms': 'logIntervalMs',
  'segment-ms': 'segmentMs',
  shards: 'shards',
  'bytes-per-shard': 'bytesPerShard',
  'max-wcu': 'maxWcu',
  'rejects-prefix': 'rejectsPrefix',
};

const BUCKET = 'local-imports';
const TABLE = 'local-items';
const IDEMPOTENCY_TABLE = 'local-idempotency';

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      rows: { type: 'string' },
      file: { type: 'string' },
      'generate-key': { type: 'boolean' },
      help: { type: 'boolean', default: false },
      ...Object.fromEntries(Object.keys(OPTION_FLAGS).map((flag) => [flag, { type: /** @type {const} */ ('string') }])),
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (values.file !== undefined && values.rows !== undefined) throw new Error('use either --rows or --file, not both');
  if (values.file !== undefined && !existsSync(values.file)) throw new Error(`--file: no such file "${values.file}"`);
  const rows = Number(values.rows ?? 100_000);
  if (!Number.isInteger(rows) || rows < 0) throw new Error(`--rows must be a whole number of at least 0, got "${values.rows}"`);

  /** @type {Record<string, unknown>} */
  const options = {};
  for (const [flag, option] of Object.entries(OPTION_FLAGS)) {
    const value = /** @type {Record<string, unknown>} */ (values)[flag];
    if (value !== undefined) options[option] = value;
  }
  if (values['generate-key']) options.generateKey = true;
  if (values.file === undefined && options.columnTypes === undefined) options.columnTypes = 'balance:N,active:BOOL';
  const key = values.file === undefined ? 'imports/people.csv' : `imports/${path.basename(values.file)}`;
  const payload = { bucket: BUCKET, key, ...options };
  // Every option is checked before a server starts.
  const config = resolveConfig({ ...payload, table: TABLE }, {});

  const log = (/** @type {string} */ message) => process.stderr.write(`${message}\n`);
  const servers = await startLocalSession(BUCKET, log);
  try {
    await servers.createTable(TABLE, tableKeysOf(config));
    log(`dynalite at ${servers.dynamodbEndpoint}, S3 emulator at ${servers.s3Endpoint}; table ${TABLE}, bucket ${BUCKET}`);

    const file = values.file;
    if (file !== undefined) {
      log(`Uploading ${file} to s3://${BUCKET}/${key}...`);
      await uploadStream(servers.s3, BUCKET, key, (body) => pipeline(createReadStream(file), body));
    } else {
      log(`Generating ${rows.toLocaleString('en-US')} rows into s3://${BUCKET}/${key}...`);
      await uploadStream(servers.s3, BUCKET, key, (body) => writeCsv(body, { rows, seed: 42, sorted: false }));
    }

    const jobId = await jobIdOfObject(servers.s3, { ...config, bucket: BUCKET, key });
    log(`Job ${jobId}; in another terminal, while this runs: npm run status -- ${jobId} --watch`);

    // As on Lambda, a duplicated invocation of a job is a no-op (src/dispatch/idempotency.js).
    await servers.createTable(IDEMPOTENCY_TABLE);
    Object.assign(process.env, servers.env, { TABLE_NAME: TABLE, IDEMPOTENCY_TABLE });
    const { handler } = await import('../src/handler.js');
    log('Importing (one JSON line a second, then the summary)...');
    const summary = /** @type {Record<string, unknown> & { written: number }} */ (await handler(payload));

    const items = await countItems(servers.dynamodb, TABLE).catch((error) => {
      throw new Error(`counting the items in ${TABLE} failed: ${error.message}\nthe local DynamoDB's last output:\n${servers.dynamodbOutput()}`);
    });
    const expected = values.file === undefined ? rows : summary.written;
    log(`Check: the table holds ${items.toLocaleString('en-US')} items; expected ${expected.toLocaleString('en-US')}: ${items === expected ? 'OK' : 'MISMATCH'}`);
    // /usr/bin/time reports the largest process of the tree, which may be the local DynamoDB's: say ours.
    log(`Importer process peak RSS: ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
    process.stdout.write(`${JSON.stringify({ ...summary, tableItems: items })}\n`);
    if (items !== expected) process.exitCode = 1;
  } finally {
    await servers.close();
  }
}

main().catch((error) => {
  process.stderr.write(`npm start failed: ${error.message}\n`);
  process.exit(1);
});

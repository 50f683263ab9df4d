#!/usr/bin/env node
/**
 * `npm run burst -- --invocations N [--rows R] [--shard] [--compare] [--stage S]`: N imports at once.
 *
 * It generates N files of R rows (or, with --shard, one file of N x R rows cut into N shards), starts
 * every invocation at once, prints the aggregate rows/s every second from the jobs' status objects, and
 * ends with a table: rows/s of each invocation, in total, throttled items and time.
 *
 * Locally (the default) the invocations are worker processes against DynamoDB Local and the S3
 * emulator, and the table is checked to hold every row; --compare then imports the same rows in one
 * invocation, for the ratio. With --stage it uploads to the deployed stack's bucket (under burst/, which
 * does not trigger the function) and invokes the deployed function asynchronously, N times.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { disjointSeed, uploadStream, writeCsv } from '../data-generator/people.js';
import { MAX_SHARDS, resolveConfig } from '../src/config/index.js';
import { planJob, shardPayloads } from '../src/plan/job-plan.js';
import { cutsAtKeyRuns } from '../src/segment/key-runs.js';
import { startLocalWorkers } from '../src/dispatch/local-map.js';
import { jobIdOfObject, readJobStatus } from '../src/state/job-status.js';
import { bucketStore } from '../src/state/output-store.js';
import { fourDigits } from '../src/state/object-keys.js';
import { textTable } from '../src/cli/text-table.js';
import { countItems, startLocalSession } from '../local/servers.js';

const HELP = `Usage: npm run burst -- --invocations N [options]

Starts N imports at once and prints their aggregate rows/s every second, then a table.

  --invocations N   imports started at once (1-${MAX_SHARDS})
  --rows R          rows per invocation (default 100000)
  --shard           one file of N x R rows cut into N shards, instead of N files
  --compare         then import the same N x R rows in one invocation, for the ratio (local only)
  --concurrency C   BatchWriteItem calls in flight per invocation (default: the function's, 32)
  --stage STAGE     run on AWS: the deployed stack of this stage (bucket csv-import-<stage>-<region>-source,
                    function csv-import-<stage>-import), with your default credentials
  --region REGION   with --stage (default: AWS_REGION, else us-east-1)`;

const LOCAL_BUCKET = 'local-imports';
const STATUS_PREFIX = '_imports/';
const SEED = 42;
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @typedef {object} Burst
 * @property {number} invocations
 * @property {number} rows           per invocation
 * @property {boolean} shard
 * @property {number | undefined} concurrency
 */

async function main() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      invocations: { type: 'string' },
      rows: { type: 'string', default: '100000' },
      shard: { type: 'boolean', default: false },
      compare: { type: 'boolean', default: false },
      concurrency: { type: 'string' },
      stage: { type: 'string' },
      region: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(`${HELP}\n`);
  const invocations = wholeNumber('--invocations', values.invocations, 1, MAX_SHARDS);
  const rows = wholeNumber('--rows', values.rows, 1, 100_000_000);
  const concurrency = values.concurrency === undefined ? undefined : wholeNumber('--concurrency', values.concurrency, 1, 1024);
  if (values.compare && values.stage !== undefined) throw new Error('--compare runs locally only; on AWS, run a burst with --invocations 1 for the single-invocation figure');
  const burst = { invocations, rows, shard: values.shard, concurrency };
  if (values.stage !== undefined) await runOnAws(burst, values.stage, values.region ?? process.env.AWS_REGION ?? 'us-east-1');
  else await runLocally(burst, values.compare);
}

/** @param {string} flag @param {string | undefined} raw @param {number} min @param {number} max */
function wholeNumber(flag, raw, min, max) {
  const value = Number(raw);
  if (raw === undefined || !Number.isInteger(value) || value < min || value > max) throw new Error(`${flag} must be a whole number from ${min} to ${max}, got ${raw === undefined ? 'nothing' : `"${raw}"`}\n\n${HELP}`);
  return value;
}

/** @param {string} message */
const log = (message) => process.stderr.write(`${message}\n`);

/**
 * The files of a burst: N parts with rows that differ from part to part, or one file for --shard.
 * @param {Burst} burst @param {string} prefix
 */
function filesOf(burst, prefix) {
  if (burst.shard) return [{ key: `${prefix}all.csv`, rows: burst.invocations * burst.rows, seed: SEED }];
  return Array.from({ length: burst.invocations }, (_, part) => ({
    key: `${prefix}part-${fourDigits(part + 1)}.csv`,
    rows: burst.rows,
    seed: disjointSeed(SEED, part, burst.rows),
  }));
}

/**
 * @param {S3Client} s3 @param {string} bucket @param {Array<{ key: string, rows: number, seed: number }>} files
 * @param {string} table  the table they are imported into (a job is one file into one table)
 * @returns {Promise<string[]>} the job id of each file
 */
async function uploadFiles(s3, bucket, files, table) {
  const jobIds = [];
  for (const file of files) {
    log(`Generating ${file.rows.toLocaleString('en-US')} rows into s3://${bucket}/${file.key}...`);
    await uploadStream(s3, bucket, file.key, (body) => writeCsv(body, { rows: file.rows, seed: file.seed, sorted: false }));
    // The payloads name no write options: the job is the defaults' (a stack that sets KEY_COLUMN or COLUMN_TYPES names another).
    jobIds.push(await jobIdOfObject(s3, { ...resolveConfig({ bucket, key: file.key, table }, {}), bucket, key: file.key }));
  }
  return jobIds;
}

/**
 * @param {Burst} burst @param {boolean} compare
 */
async function runLocally(burst, compare) {
  const servers = await startLocalSession(LOCAL_BUCKET, log);
  try {
    const run = Date.now().toString(36);
    const logDirectory = path.join(root, '.cache', 'burst', run);
    mkdirSync(logDirectory, { recursive: true });
    const table = `burst-${run}`;
    await servers.createTable(table);
    const files = filesOf(burst, `burst/${run}/`);
    const jobIds = await uploadFiles(servers.s3, LOCAL_BUCKET, files, table);
    Object.assign(process.env, servers.env, { TABLE_NAME: table });
    const common = { bucket: LOCAL_BUCKET, table, ...(burst.concurrency === undefined ? {} : { concurrency: burst.concurrency }) };

    /** @type {Array<Record<string, unknown>>} */
    let payloads = files.map((file) => ({ ...common, key: file.key }));
    if (burst.shard) {
      log(`Planning ${burst.invocations} shards...`);
      const payload = { ...payloads[0], shards: burst.invocations };
      const config = resolveConfig(payload, process.env);
      const plan = await planJob(config, { s3: servers.s3, dynamodb: servers.dynamodb }, bucketStore(servers.s3, LOCAL_BUCKET), { cutsAtKeyRuns });
      // Planned without a pause: never a PlanPaused.
      if (plan === undefined || 'planning' in plan) throw new Error('the file is too small to shard');
      payloads = shardPayloads(payload, plan, config.maxWcu);
    }
    log(`Starting ${payloads.length} worker processes at once (their logs: ${path.relative(process.cwd(), logDirectory)}/)...`);
    const result = await watchLocalWorkers(servers.s3, payloads, jobIds, logDirectory);
    printTable(result, burst);

    const expected = burst.invocations * burst.rows;
    const items = await countItems(servers.dynamodb, table);
    log(`Check: the table holds ${items.toLocaleString('en-US')} items; expected ${expected.toLocaleString('en-US')}: ${items === expected ? 'OK' : 'MISMATCH'}`);
    if (items !== expected || !result.balanced) process.exitCode = 1;

    /** @type {Record<string, unknown>} */
    const figures = { invocations: burst.invocations, shard: burst.shard, rows: expected, seconds: result.seconds, rowsPerSecond: result.rowsPerSecond, throttledItems: result.throttledItems, tableItems: items };
    if (compare) {
      const single = await compareWithOne(servers, burst, run, logDirectory);
      Object.assign(figures, { singleRowsPerSecond: single.rowsPerSecond, singleSeconds: single.seconds, speedup: Math.round((result.rowsPerSecond / single.rowsPerSecond) * 100) / 100 });
      log(`One invocation, ${expected.toLocaleString('en-US')} rows: ${single.rowsPerSecond.toLocaleString('en-US')} rows/s in ${single.seconds} s; the burst: ${result.rowsPerSecond.toLocaleString('en-US')} rows/s (${figures.speedup} x)`);
    }
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    await servers.close();
  }
}

/**
 * The same rows in one invocation, into a fresh table.
 * @param {import('../local/servers.js').LocalServers} servers @param {Burst} burst @param {string} run @param {string} logDirectory
 */
async function compareWithOne(servers, burst, run, logDirectory) {
  const table = `single-${run}`;
  await servers.createTable(table);
  process.env.TABLE_NAME = table;
  const rows = burst.invocations * burst.rows;
  // Its own key, hence its own job id and status: a copy of the sharded file (same seed), or as many rows as the parts.
  const key = `burst/${run}/single.csv`;
  const [jobId] = await uploadFiles(servers.s3, LOCAL_BUCKET, [{ key, rows, seed: SEED }], table);
  log(`Importing ${rows.toLocaleString('en-US')} rows in one worker process...`);
  const payload = { bucket: LOCAL_BUCKET, key, table, ...(burst.concurrency === undefined ? {} : { concurrency: burst.concurrency }) };
  const result = await watchLocalWorkers(servers.s3, [payload], [jobId], logDirectory, 'single');
  const items = await countItems(servers.dynamodb, table);
  if (items !== rows) throw new Error(`the single-invocation import left ${items} items of ${rows} in ${table}`);
  return result;
}

/**
 * @typedef {object} BurstResult
 * @property {Array<{ name: string, rows: number, written: number, rejected: number, seconds: number, rowsPerSecond: number, throttledItems: number, state: string }>} invocations
 * @property {number} written
 * @property {number} seconds        from the start of the first invocation to the end of the last
 * @property {number} rowsPerSecond  written / seconds
 * @property {number} throttledItems
 * @property {boolean} balanced
 */

/**
 * Starts the workers, prints the aggregate every second, and collects the final status.
 * @param {S3Client} s3 @param {Array<Record<string, unknown>>} payloads @param {string[]} jobIds
 * @param {string} logDirectory @param {string} [name]
 * @returns {Promise<BurstResult>}
 */
async function watchLocalWorkers(s3, payloads, jobIds, logDirectory, name = 'worker') {
  const descriptors = payloads.map((_, i) => openSync(path.join(logDirectory, `${name}-${fourDigits(i + 1)}.log`), 'a'));
  const startedAt = Date.now();
  const workers = startLocalWorkers(payloads, { output: (i) => descriptors[i] });
  let finished = false;
  const exits = workers.done.finally(() => {
    finished = true;
  });
  try {
    await watch(s3, LOCAL_BUCKET, jobIds, startedAt, () => finished);
    const failed = (await exits).filter((exit) => exit.code !== 0).length;
    if (failed > 0) log(`${failed} of ${payloads.length} workers failed; see their logs in ${logDirectory}`);
  } finally {
    for (const fd of descriptors) closeSync(fd);
  }
  return collect(s3, LOCAL_BUCKET, jobIds, startedAt);
}

/**
 * Prints one aggregate line a second until `over()` or every job is done or failed.
 * @param {S3Client} s3 @param {string} bucket @param {string[]} jobIds @param {number} startedAt @param {() => boolean} over
 */
async function watch(s3, bucket, jobIds, startedAt, over) {
  // Shards update their status once a second each, out of step: rows/s over the last few seconds reads steadier.
  const samples = [{ at: startedAt, written: 0 }];
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const statuses = await Promise.all(jobIds.map((jobId) => readJobStatus(bucketStore(s3, bucket), STATUS_PREFIX, jobId).catch(() => undefined)));
    const shards = statuses.flatMap((status) => status?.shards ?? []);
    const written = shards.reduce((sum, shard) => sum + shard.written, 0);
    const at = Date.now();
    samples.push({ at, written });
    if (samples.length > 4) samples.shift();
    const since = samples[0];
    const line = {
      elapsedSeconds: Math.round((at - startedAt) / 100) / 10,
      written,
      rowsPerSecond: Math.round(((written - since.written) * 1000) / (at - since.at)),
      averageRowsPerSecond: Math.round((written * 1000) / (at - startedAt)),
      throttledItems: shards.reduce((sum, shard) => sum + (shard.throttledItems ?? 0), 0),
      running: shards.filter((shard) => shard.state === 'running').length,
      done: shards.filter((shard) => shard.state === 'done').length,
      failed: shards.filter((shard) => shard.state === 'failed').length,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
    const settled = statuses.every((status) => status !== undefined && (status.total.state === 'done' || status.total.state === 'failed'));
    if (over() || settled) return;
  }
}

/**
 * @param {S3Client} s3 @param {string} bucket @param {string[]} jobIds @param {number} startedAt
 * @returns {Promise<BurstResult>}
 */
async function collect(s3, bucket, jobIds, startedAt) {
  const statuses = await Promise.all(jobIds.map((jobId) => readJobStatus(bucketStore(s3, bucket), STATUS_PREFIX, jobId)));
  const shards = statuses.flatMap((status) => status?.shards ?? []);
  const invocations = shards.map((shard, i) => ({
    name: shards.length === jobIds.length ? `job ${i + 1}` : `shard ${shard.shard + 1}`,
    rows: shard.rowsRead,
    written: shard.written,
    rejected: shard.rejected,
    seconds: shard.seconds ?? 0,
    rowsPerSecond: shard.rowsPerSecond ?? 0,
    throttledItems: shard.throttledItems ?? 0,
    state: shard.state,
  }));
  const endedAt = Math.max(...shards.map((shard) => Date.parse(shard.updatedAt) || 0));
  const seconds = Math.max(endedAt - startedAt, 1) / 1000;
  const written = invocations.reduce((sum, row) => sum + row.written, 0);
  return {
    invocations,
    written,
    seconds: Math.round(seconds * 10) / 10,
    rowsPerSecond: Math.round(written / seconds),
    throttledItems: invocations.reduce((sum, row) => sum + row.throttledItems, 0),
    balanced: statuses.every((status) => status?.total.balanced === true && status.total.state === 'done'),
  };
}

/** @param {BurstResult} result @param {Burst} burst */
function printTable(result, burst) {
  const n = (/** @type {number} */ value) => value.toLocaleString('en-US');
  const rows = [['invocation', 'state', 'rows', 'written', 'seconds', 'rows/s', 'throttled items']];
  for (const row of result.invocations) rows.push([row.name, row.state, n(row.rows), n(row.written), String(row.seconds), n(row.rowsPerSecond), n(row.throttledItems)]);
  rows.push(['total', result.balanced ? 'done' : 'NOT DONE', n(result.invocations.reduce((sum, row) => sum + row.rows, 0)), n(result.written), String(result.seconds), n(result.rowsPerSecond), n(result.throttledItems)]);
  log(`\n${burst.invocations} invocations${burst.shard ? ' (one file in shards)' : ''}, ${n(burst.rows)} rows each; total rows/s = rows written / time from the first start to the last end`);
  for (const line of textTable(rows, (c) => c >= 2)) log(line);
}


/**
 * The burst on AWS: the deployed function, invoked asynchronously, once per file or shard.
 * @param {Burst} burst @param {string} stage @param {string} region
 */
async function runOnAws(burst, stage, region) {
  const bucket = `csv-import-${stage}-${region}-source`;
  const functionName = `csv-import-${stage}-import`;
  const s3 = new S3Client({ region });
  const lambda = new LambdaClient({ region });
  const run = Date.now().toString(36);
  const files = filesOf(burst, `burst/${run}/`);
  // The demo stack's table (deploy/stack.cjs names it).
  const jobIds = await uploadFiles(s3, bucket, files, `csv-import-${stage}-items`);
  const extra = burst.concurrency === undefined ? {} : { concurrency: burst.concurrency };
  const payloads = burst.shard ? [{ bucket, key: files[0].key, shards: burst.invocations, ...extra }] : files.map((file) => ({ bucket, key: file.key, ...extra }));
  log(`Invoking ${functionName} ${payloads.length === 1 && burst.shard ? `once, which starts ${burst.invocations} shards` : `${payloads.length} times`}, asynchronously...`);
  const startedAt = Date.now();
  await Promise.all(payloads.map((payload) => lambda.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: JSON.stringify(payload) }))));
  await watch(s3, bucket, jobIds, startedAt, () => false);
  const result = await collect(s3, bucket, jobIds, startedAt);
  printTable(result, burst);
  process.stdout.write(`${JSON.stringify({ invocations: burst.invocations, shard: burst.shard, rows: burst.invocations * burst.rows, seconds: result.seconds, rowsPerSecond: result.rowsPerSecond, throttledItems: result.throttledItems, balanced: result.balanced })}\n`);
  if (!result.balanced) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    process.stderr.write(`npm run burst failed: ${error.message}\n`);
    process.exit(1);
  });
}

/**
 * `import <source> --table T`: the Lambda's pipeline in this process, on an S3 object or a local file,
 * against AWS (the SDK's credentials and region: environment, profile, SSO), a DynamoDB-compatible server
 * (--endpoint-url) or, with --local, a local DynamoDB (dynalite) started for the run. A live view on a terminal, JSON lines otherwise (or with --json).
 * Ctrl-C stops reading at a record boundary, lets the writes in flight end and saves a checkpoint that
 * --resume goes on from; a second Ctrl-C gives those writes up too, and their rows go with the checkpoint.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { clientsFor } from '../clients.js';
import { isCollection, OPTION_VARIABLES, resolveConfig } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { isLoopback } from '../config/values.js';
import { runJob } from '../handler.js';
import { outputStoreFor } from '../state/output-store.js';
import { logger as jsonLogger } from '../observe/logger.js';
import { openFileSource } from '../source/file-object.js';
import { sourceWhere } from '../source/source-name.js';
import { checkResumable, readCheckpointFile, removeCheckpointFile, writeCheckpointFile } from './checkpoint-file.js';
import { outputPlaceOf, payloadOf, withFlagNames } from './import-flags.js';
import { createLiveView } from './live-view.js';
import { dryRunText, summaryText } from './summary-text.js';

/**
 * The exit codes of an import (2, a bad flag or option, is main.js's; 1 is any error).
 * FINISHED_WITH_REJECTS: every row read was written, collapsed or rejected, and some were rejected.
 */
export const EXIT = { OK: 0, FAILED: 1, FINISHED_WITH_REJECTS: 3, STOPPED: 130 };

/** The lines a job logs with its result: the command prints the result itself, once, last. */
const RESULT_MESSAGES = new Set(['summary', 'job summary', 'dry run']);

/** What the command takes from the environment besides the SDK's own settings: the region, endpoint overrides. */
const KEPT_VARIABLES = new Set(['AWS_REGION', 'DYNAMODB_ENDPOINT', 'S3_ENDPOINT']);

/**
 * @typedef {object} CommandFlags
 * @property {boolean} [json]
 * @property {boolean} [quiet]
 * @property {boolean} [local]
 * @property {string} [resume]
 * @property {string} [region]
 * @property {string} [profile]
 * @property {string} [localDir]
 * @property {string} [endpointUrl]
 * @property {string} [output]
 * @property {string} [outputDir]
 * @property {boolean} [dryRun]
 */

/**
 * @param {string | undefined} source  undefined: the one --resume's checkpoint names
 * @param {Record<string, unknown> & CommandFlags} flags
 * @param {{ resumeCommand: (checkpointFile: string) => string, command?: string[] }} how  the command line that
 *   resumes, and this command's arguments (without --resume), which a checkpoint file keeps
 * @returns {Promise<number>} the exit code
 */
export async function importCommand(source, flags, how) {
  const saved = flags.resume === undefined ? undefined : readCheckpointFile(flags.resume);
  if (saved !== undefined && flags.dryRun === true) throw new ConfigError('--dry-run', true, 'a dry run reads the whole file and resumes nothing: leave --resume out (the checkpoint file is kept for the import to go on)');
  const named = source ?? savedSource(saved);
  const payload = payloadOf(named, { ...flags, table: flags.table ?? saved?.table ?? missingTable() });
  const output = outputOf(flags, named);
  for (const [name, value] of Object.entries(output.payload)) payload[name] ??= value;
  // A resume goes on with the import's own options: those not given again come from its checkpoint.
  let outputBucket = output.bucket;
  for (const [name, value] of Object.entries(saved?.options ?? {})) {
    if (value === null) continue;
    if (name === 'outputBucket') outputBucket ??= /** @type {string} */ (value);
    else if (payload[name] === undefined) payload[name] = value;
  }
  if (flags.region === undefined && saved?.region !== undefined) flags.region = saved.region;
  if (flags.local && flags.resume !== undefined && flags.localDir === undefined) {
    throw new ConfigError('--resume', flags.resume, "--local's table is discarded when its run ends, so the rows written before the stop are gone: import again from the start with --local, or keep the local tables with --local-dir DIR (then a stop can be resumed)");
  }
  if (flags.localDir !== undefined && !flags.local) throw new ConfigError('--local-dir', flags.localDir, 'keeps the tables of --local between runs: add --local, or leave --local-dir out');
  if (flags.endpointUrl !== undefined) {
    if (flags.local) throw new ConfigError('--endpoint-url', flags.endpointUrl, '--local starts a local DynamoDB of its own: use one of --local and --endpoint-url');
    if (!URL.canParse(flags.endpointUrl) || !/^https?:$/.test(new URL(flags.endpointUrl).protocol)) throw new ConfigError('--endpoint-url', flags.endpointUrl, 'use the http:// or https:// URL of a DynamoDB-compatible server, such as http://127.0.0.1:8000');
    if (new URL(flags.endpointUrl).protocol === 'http:' && !isLoopback(new URL(flags.endpointUrl).hostname)) {
      throw new ConfigError('--endpoint-url', flags.endpointUrl, 'plain http:// sends the rows and a signed request in clear text: use https://, or http:// to a server on this machine (127.0.0.1, localhost, [::1])');
    }
  }
  if (saved !== undefined) payload.checkpoint = saved.checkpoint;
  // A file that cannot be read is said before anything starts.
  if (typeof payload.file === 'string') (await openFileSource(payload.file)).body.destroy();
  if (flags.profile !== undefined) process.env.AWS_PROFILE = flags.profile;
  // Only flags set import options here: a TABLE_NAME or CONCURRENCY left in the shell must not.
  for (const name of OPTION_VARIABLES) if (!KEPT_VARIABLES.has(name)) delete process.env[name];
  // A sharded job's workers log as the JSON logger does: with --quiet, their warnings and errors only.
  if (flags.quiet) process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  if (outputBucket !== undefined) process.env.OUTPUT_BUCKET = outputBucket;

  if (flags.endpointUrl !== undefined) process.env.DYNAMODB_ENDPOINT = flags.endpointUrl;
  const local = flags.local ? await startLocal(payload, flags.localDir === undefined ? undefined : path.resolve(flags.localDir)) : undefined;
  try {
    process.env.AWS_REGION = flags.region ?? (local === undefined ? await defaultRegion() : local.region);
    let config;
    try {
      config = resolveConfig(payload, process.env);
    } catch (error) {
      throw withFlagNames(error);
    }
    if (saved !== undefined) checkResumable(saved, /** @type {string} */ (flags.resume), config, localIdentity(flags));
    await local?.prepareTable(config);
    clientsFor(config); // the SDK's warnings, if any, come before the live view
    // A ConfigError found later (a prefix past --max-objects, a plan's options) names the flag too.
    const code = await runWithView(payload, config, flags, how).catch((error) => {
      throw withFlagNames(error);
    });
    await local?.reportTable(config);
    const finished = code === EXIT.OK || code === EXIT.FINISHED_WITH_REJECTS;
    if (finished && flags.resume !== undefined) removeCheckpointFile(flags.resume);
    return code;
  } finally {
    await local?.stop();
  }
}

/**
 * @param {Record<string, unknown>} payload
 * @param {import('../config/index.js').ImportConfig} config
 * @param {CommandFlags} flags
 * @param {{ resumeCommand: (checkpointFile: string) => string, command?: string[] }} how
 */
async function runWithView(payload, config, flags, how) {
  const where = sourceWhere(config);
  const sharded = config.shards > 1 || config.bytesPerShard !== undefined || isCollection(config);
  const live = !flags.json && !flags.quiet && process.stdout.isTTY === true && !sharded;
  const view = live ? createLiveView({ stream: process.stdout, label: `${config.dryRun ? 'dry run: ' : ''}${path.basename(where)} → ${config.table}`, dryRun: config.dryRun }) : undefined;
  const say = view?.say ?? ((/** @type {string} */ text) => process.stderr.write(`${text}\n`));
  const stop = new AbortController();
  const abandon = new AbortController();
  const onSignal = signalHandler({ sharded, dryRun: config.dryRun, stop, abandon, say, note: (text) => view?.setNote(text) });
  process.on('SIGINT', onSignal);
  let result;
  try {
    result = await runJob(payload, config, undefined, { log: view?.logger ?? linesLogger(flags.quiet === true), stop: stop.signal, abandon: abandon.signal });
  } catch (error) {
    // Shards stopped by Ctrl-C end as failed ones do: the job was stopped, not failed.
    if (!(sharded && stop.signal.aborted)) throw error;
    process.stderr.write(`Stopped: ${/** @type {Error} */ (error).message}\n`);
    return EXIT.STOPPED;
  } finally {
    process.off('SIGINT', onSignal);
    view?.stop();
  }
  const store = outputStoreFor(config, clientsFor(config).s3);

  const checkpoint = 'stopped' in result ? result.checkpoint : undefined;
  if (checkpoint !== undefined && flags.local && flags.localDir === undefined) {
    process.stderr.write(`Stopped at line ${checkpoint.line.toLocaleString('en-US')}. --local's table goes with this run, and the rows written with it: import again from the start, or add --local-dir DIR to keep the local table, so that a stopped import can be resumed.\n`);
    return 130;
  }
  if (checkpoint !== undefined) {
    const file = writeCheckpointFile(checkpoint, config, { endpoint: localIdentity(flags), command: how.command });
    const replay = checkpoint.replay;
    const lines = [
      `Stopped at line ${checkpoint.line.toLocaleString('en-US')} (byte ${checkpoint.byte.toLocaleString('en-US')}): ${stoppedBooks(checkpoint.totals)}.`,
      ...(replay === undefined
        ? []
        : [`${replay.rows.toLocaleString('en-US')} rows whose writes were given up are saved in ${store.where(replay.key)}; the resume writes them first (some may be in the table already: writing them again changes nothing).`]),
      `Checkpoint: ${file}`,
      'Resume with:',
      `  ${how.resumeCommand(file)}`,
    ];
    if (flags.json) process.stdout.write(`${JSON.stringify({ stopped: true, jobId: checkpoint.jobId, checkpointFile: file, byte: checkpoint.byte, line: checkpoint.line, rowsToReplay: replay?.rows ?? 0 })}\n`);
    process.stderr.write(`${lines.join('\n')}\n`);
    return EXIT.STOPPED;
  }
  if ('dryRun' in result) {
    if (live) process.stdout.write(`${dryRunText(result, { source: where })}\n`);
    else if (!flags.quiet) process.stdout.write(`${JSON.stringify(result)}\n`);
    if (!result.complete) return EXIT.STOPPED;
    return result.wouldReject > 0 ? EXIT.FINISHED_WITH_REJECTS : EXIT.OK;
  }
  const summary = /** @type {import('./summary-text.js').SummaryFigures} */ (/** @type {unknown} */ (result));
  if (live) process.stdout.write(`${summaryText(summary, { source: where, table: config.table, locate: store.where })}\n`);
  // Where the rejects files and the status are: the summary names the rejects by their keys there.
  else if (!flags.quiet) process.stdout.write(`${JSON.stringify({ ...result, output: store.where('') })}\n`);
  if (summary.balanced === false) return EXIT.FAILED;
  return summary.rejected > 0 ? EXIT.FINISHED_WITH_REJECTS : EXIT.OK;
}

/**
 * What each Ctrl-C (SIGINT) does. One import: the first stops reading at a record boundary and lets the
 * writes in flight end, the second gives them up (their rows go with the checkpoint), the third ends the
 * process. A sharded job: the first stops its workers and its planning, the third ends the process. A dry
 * run: the first stops it with a report of the rows read so far.
 * @param {{ sharded: boolean, dryRun: boolean, stop: AbortController, abandon: AbortController, say: (text: string) => void, note: (text: string) => void }} options
 */
function signalHandler({ sharded, dryRun, stop, abandon, say, note }) {
  let signals = 0;
  return () => {
    signals++;
    if (sharded) {
      // The job stops its workers (a Ctrl-C on a terminal has reached them too, as this process's group).
      if (signals >= 3) process.exit(130);
      if (stop.signal.aborted) return;
      stop.abort();
      say('The shards\' workers stop now. Run the same command again: shards that finished are skipped, the others run again from their start (rows written are written again, which changes nothing).');
      return;
    }
    if (dryRun) {
      stop.abort();
      say('Stopping the dry run: its report covers the rows read so far.');
      return;
    }
    if (!stop.signal.aborted) {
      stop.abort();
      note('stopping: draining');
      say('Stopping at the next record boundary; the writes in flight are let finish. Press Ctrl-C again to give them up.');
    } else if (!abandon.signal.aborted) {
      abandon.abort();
      note('stopping: writes given up');
      say('Giving up the writes in flight; their rows are saved with the checkpoint and written first on resume.');
    } else {
      process.exit(130);
    }
  };
}

/**
 * A stopped import's books so far, every count that has rows: read, written, deleted, rejected, collapsed,
 * skipped (the rows on their way when the writes were given up are in none: the checkpoint carries them).
 * @param {{ rowsRead: number, written: number, rejected: number, deleted?: number, duplicatesCollapsed?: number, skipped?: number }} totals
 */
export function stoppedBooks(totals) {
  const n = (/** @type {number} */ value) => value.toLocaleString('en-US');
  /** A count that has rows, said; none, left out. @param {number | undefined} count @param {string} what */
  const some = (count, what) => (count ? [`${n(count)} ${what}`] : []);
  return [
    `${n(totals.rowsRead)} rows read`,
    `${n(totals.written)} written`,
    ...some(totals.deleted, 'deleted'),
    `${n(totals.rejected)} rejected`,
    ...some(totals.duplicatesCollapsed, 'collapsed into a later row of their key'),
    ...some(totals.skipped, 'skipped by the write mode'),
  ].join(', ');
}

/**
 * The JSON lines' logger, as on Lambda, but for the result's line (printed by the command, last); with
 * --quiet, warnings and errors only.
 * @param {boolean} quiet
 * @returns {import('../types.js').Logger}
 */
function linesLogger(quiet) {
  return {
    info: (message, fields) => {
      if (!quiet && !RESULT_MESSAGES.has(message)) jsonLogger.info(message, fields);
    },
    warn: (message, fields) => jsonLogger.warn(message, fields),
    error: (message, fields) => jsonLogger.error(message, fields),
  };
}

/**
 * Where `--output` sends the rejects and the job's status: s3://bucket/prefix/ (the bucket, and rejects/
 * and _imports/ under the prefix), or a directory.
 * @param {CommandFlags} flags @param {string} source  as the command names it
 * @returns {{ payload: Record<string, unknown>, bucket?: string }}
 */
function outputOf({ output, outputDir }, source) {
  if (output === undefined) return { payload: {} };
  if (outputDir !== undefined) throw new ConfigError('--output', output, '--output-dir names a directory too: use one of them');
  const place = outputPlaceOf(output);
  if ('dir' in place) return { payload: { outputDir: place.dir } };
  if (!source.startsWith('s3://')) throw new ConfigError('--output', output, 'a local file\'s rejects and status go to a directory: --output DIR (or beside the file, by default)');
  return { bucket: place.bucket, payload: { rejectsPrefix: `${place.prefix}rejects/`, statusPrefix: `${place.prefix}_imports/` } };
}

/** The source a resume's checkpoint names, when the command names none. @param {ReturnType<typeof readCheckpointFile> | undefined} saved */
function savedSource(saved) {
  if (saved === undefined) throw new ConfigError('source', undefined, 'name the file or s3://bucket/key to import (or --resume a stopped import\'s checkpoint file)');
  return saved.source;
}

/** @returns {never} */
function missingTable() {
  throw new ConfigError('--table', undefined, 'name the existing DynamoDB table to import into: --table NAME');
}

/**
 * The region of the SDK's default chain (AWS_REGION, the profile's region, SSO).
 * @returns {Promise<string>}
 */
async function defaultRegion() {
  const probe = new DynamoDBClient({});
  try {
    return await probe.config.region();
  } catch {
    throw new ConfigError('--region', undefined, 'no AWS region is configured: pass --region us-east-1 (the table\'s region), set AWS_REGION, or use a profile that has one (--profile)');
  } finally {
    probe.destroy();
  }
}

/**
 * A local DynamoDB (and the S3 emulator) for this run, with the table created from the key options.
 * @param {Record<string, unknown>} payload
 * @param {string | undefined} directory  where the tables are kept between runs (undefined: in memory)
 */
async function startLocal(payload, directory) {
  if (payload.file === undefined) {
    throw new ConfigError('--local', true, 'the local S3 emulator starts empty on each run: import a local file with --local (the path instead of s3://...), or point S3_ENDPOINT at a running S3-compatible server');
  }
  const { startLocalServers, createTable, countItems, tableKeysOf, LOCAL_REGION } = await import('../../local/servers.js');
  const { DescribeTableCommand } = await import('@aws-sdk/client-dynamodb');
  process.stderr.write(`Starting a local DynamoDB (dynalite) on 127.0.0.1${directory === undefined ? '' : `, its tables in ${directory}`}...\n`);
  if (directory !== undefined) mkdirSync(directory, { recursive: true });
  const servers = await startLocalServers({ buckets: [], dynamodbPath: directory });
  process.env.DYNAMODB_ENDPOINT = servers.dynamodbEndpoint;
  process.env.S3_ENDPOINT = servers.s3Endpoint;
  return {
    region: LOCAL_REGION,
    /** @param {import('../config/index.js').ImportConfig} config */
    async prepareTable(config) {
      // A table kept from an earlier run (--local-dir) is written into as it is.
      const kept = directory !== undefined && (await servers.dynamodb.send(new DescribeTableCommand({ TableName: config.table })).then(() => true, () => false));
      if (!kept) await createTable(servers.dynamodb, config.table, tableKeysOf(config));
      process.stderr.write(`local DynamoDB at ${servers.dynamodbEndpoint}; table ${config.table} ${kept ? 'kept from an earlier run' : 'created'}\n`);
    },
    /** @param {import('../config/index.js').ImportConfig} config */
    async reportTable(config) {
      const items = await countItems(servers.dynamodb, config.table);
      process.stderr.write(`the local table ${config.table} holds ${items.toLocaleString('en-US')} item${items === 1 ? '' : 's'} (${directory === undefined ? 'discarded when this run ends' : `kept in ${directory}`})\n`);
    },
    stop: () => servers.stop(),
  };
}

/**
 * Where --local's tables are, for a checkpoint: its endpoint's port changes every run, its directory does not.
 * @param {CommandFlags} flags
 */
function localIdentity(flags) {
  return flags.local && flags.localDir !== undefined ? `local:${path.resolve(flags.localDir)}` : undefined;
}

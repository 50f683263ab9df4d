/**
 * `status <job | s3://bucket/key | file>`: a job's state, per shard and in total, from the status objects its
 * shards write: in a bucket (--bucket), in the directory of a local file's import (--dir,
 * or the file itself), or on the local servers of a running `npm start` or `npm run burst`.
 */
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import path from 'node:path';
import { latestJob, readJobStatus } from '../state/job-status.js';
import { etagOf } from '../source/s3-object.js';
import { bucketStore, directoryStore } from '../state/output-store.js';
import { openFileSource } from '../source/file-object.js';
import { jobIdOf } from '../state/checkpoint.js';
import { sourceId } from '../source/source-name.js';
import { resolveConfig } from '../config/index.js';
import { attributeOf, payloadOf, WRITE_FLAGS, withFlagNames } from './import-flags.js';
import { createRedraw } from './redraw.js';
import { textTable } from './text-table.js';
import { readLocalSession } from '../../local/session.js';

/**
 * @typedef {object} StatusFlags
 * @property {string} [bucket]
 * @property {string} [profile]
 * @property {string} [region]
 * @property {string} [dir]
 * @property {string} [table]
 * @property {string} prefix
 * @property {boolean} [watch]
 * @property {boolean} [json]
 */

/**
 * @param {string} job
 * @param {StatusFlags} flags
 * @returns {Promise<number>} the exit code: 2 when the job failed or was lost
 */
export async function statusCommand(job, flags) {
  if (flags.profile !== undefined) process.env.AWS_PROFILE = flags.profile;
  const target = await resolveTarget(job, flags);
  const redraw = createRedraw(process.stdout);
  for (;;) {
    const status = await readJobStatus(target.store, flags.prefix, target.jobId);
    if (status === undefined) {
      const hint = /^[0-9a-f-]{36}$/.test(job)
        ? 'check the job id and where it ran'
        : `check where it ran; an import with other ${WRITE_FLAGS.join(', ')} is another job: give the flags it ran with, or the job id it printed`;
      throw new Error(`${target.store.where(`${flags.prefix}${target.jobId}/`)} holds no status: ${hint} (a job writes its status once it starts)`);
    }
    if (flags.json) process.stdout.write(`${JSON.stringify(status)}\n`);
    else redraw(formatJobStatus(status, target.store.where));
    const { state } = status.total;
    const ended = state === 'done' || state === 'failed' || state === 'lost' || state === 'stopped';
    // A stopped job (Ctrl-C) is not a failed one: 130, as the import that was stopped exits.
    if (!flags.watch || ended) return state === 'failed' || state === 'lost' ? 2 : state === 'stopped' ? 130 : 0;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * @param {string} job
 * @param {StatusFlags} options
 * @returns {Promise<{ store: import('../state/output-store.js').OutputStore, jobId: string }>}
 */
async function resolveTarget(job, options) {
  const isJobId = /^[0-9a-f-]{36}$/.test(job);
  if (!isJobId && options.table === undefined) {
    throw new Error(`a job is one file into one table: name the table "${job}" was imported into with --table, or give the job id the import printed`);
  }
  if (!job.startsWith('s3://') && !isJobId) {
    // A local file: its job is its current version's, and its status is beside it.
    const file = path.resolve(job);
    const source = await openFileSource(file).catch(() => {
      throw new Error(`"${job}" is not a job id (a UUID such as 3f2a9c1e-...), s3://bucket/key, nor a file that can be read`);
    });
    source.body.destroy();
    const store = directoryStore(options.dir ?? path.dirname(file));
    return { store, jobId: await jobOfSource(store, job, source.etag, options) };
  }
  if (options.dir !== undefined && !job.startsWith('s3://')) return { store: directoryStore(path.resolve(options.dir)), jobId: job };
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  /** @type {S3Client} */
  let s3;
  let bucket = options.bucket;
  if (bucket !== undefined || job.startsWith('s3://')) {
    const endpoint = process.env.S3_ENDPOINT;
    s3 = new S3Client({ region, ...(endpoint ? { endpoint, forcePathStyle: true } : {}) });
  } else {
    const session = readLocalSession();
    if (session === undefined) {
      throw new Error('no local servers are running (status of a local job lives only while its npm start, npm run servers or npm run burst runs); for a job on AWS, add --on-aws --stack STACK (or the bucket its status is in: --bucket NAME)');
    }
    s3 = new S3Client({ region: session.region, endpoint: session.s3Endpoint, forcePathStyle: true, credentials: session.credentials });
    bucket = session.bucket;
  }
  if (job.startsWith('s3://')) {
    const [objectBucket, ...keyParts] = job.slice(5).split('/');
    const key = keyParts.join('/');
    const head = await s3.send(new HeadObjectCommand({ Bucket: objectBucket, Key: key })).catch((error) => {
      throw new Error(`cannot read ${job} (${error.name}); check the bucket and key`);
    });
    // The import's --output, when it had one: a directory, or another bucket.
    const store = options.dir !== undefined ? directoryStore(path.resolve(options.dir)) : bucketStore(s3, options.bucket ?? objectBucket);
    return { store, jobId: await jobOfSource(store, job, etagOf(head), options) };
  }
  if (!/^[0-9a-f-]{36}$/.test(job)) throw new Error(`"${job}" is not a job id (a UUID such as 3f2a9c1e-...) nor s3://bucket/key`);
  return { store: bucketStore(s3, /** @type {string} */ (bucket)), jobId: job };
}

/**
 * The job a source names: with write flags, the import of it into the table with those (an import of one
 * file with another --mode, --types or --key is another job, with its own status); without, the job last
 * started of it into the table, else the import with the defaults.
 * @param {import('../state/output-store.js').OutputStore} store
 * @param {string} job  s3://bucket/key or a path
 * @param {string} etag  the source's current version
 * @param {StatusFlags} flags
 */
async function jobOfSource(store, job, etag, flags) {
  /** @type {import('../config/index.js').ImportConfig} */
  let config;
  try {
    config = resolveConfig(payloadOf(job, /** @type {Record<string, unknown>} */ (flags)), {});
  } catch (error) {
    throw withFlagNames(error);
  }
  const named = WRITE_FLAGS.some((flag) => /** @type {Record<string, unknown>} */ (flags)[attributeOf(flag)] !== undefined);
  const latest = named ? undefined : await latestJob(store, flags.prefix, sourceId(config), etag, config.table);
  return latest?.jobId ?? jobIdOf(config, etag);
}

/**
 * @param {import('../state/job-status.js').JobStatus} status
 * @param {(key: string) => string} locate  where a person finds a rejects file
 */
export function formatJobStatus(status, locate) {
  const n = (/** @type {number | undefined} */ value) => (value ?? 0).toLocaleString('en-US');
  const plan = status.plan;
  const of = plan ?? status.shards[0];
  const name = plan?.prefix ?? of?.key;
  const source = of?.file ?? (name === undefined ? undefined : `s3://${of?.bucket}/${name}`);
  const objects = plan?.objects === undefined ? '' : `  ${plan.objects} object${plan.objects === 1 ? '' : 's'}`;
  const head = `job ${status.jobId}  ${source === undefined ? '' : `${source}  `}${status.total.state}${objects}  ${status.shards.length} shard${status.shards.length === 1 ? '' : 's'}${plan?.note ? `  (${plan.note})` : ''}`;
  // Rows written, deleted (a delete job's, an incremental export's) and skipped (a conditional write
  // mode's): a column for each that any shard has; a delete job's table shows no empty written column.
  const has = (/** @type {'written' | 'deleted' | 'skipped'} */ name) => status.shards.some((shard) => (shard[name] ?? 0) > 0) || (status.total[name] ?? 0) > 0;
  const counted = /** @type {Array<'written' | 'deleted' | 'skipped'>} */ ([...(has('written') || !has('deleted') ? ['written'] : []), ...(has('deleted') ? ['deleted'] : []), ...(has('skipped') ? ['skipped'] : [])]);
  const counts = (/** @type {{ written?: number, deleted?: number, skipped?: number, rejected?: number }} */ of) => [...counted.filter((name) => name !== 'skipped').map((name) => n(of[name])), n(of.rejected), ...(counted.includes('skipped') ? [n(of.skipped)] : [])];
  const rows = [['shard', 'state', 'rows read', ...counted.filter((name) => name !== 'skipped'), 'rejected', ...(counted.includes('skipped') ? ['skipped'] : []), 'rows/s', 'runner', 'rejects files / error']];
  for (const shard of status.shards) {
    const runner = shard.runner === undefined ? '' : 'pid' in shard.runner ? `pid ${shard.runner.pid}` : shard.runner.logStream;
    // In a job over many objects, each shard's line names its object.
    const object = plan?.shards[shard.shard]?.key;
    const detail = shard.error ?? [...(object === undefined ? [] : [object]), ...(shard.rejectsObjects ?? []).map(locate)].join(' ');
    rows.push([String(shard.shard + 1), shard.state, n(shard.rowsRead), ...counts(shard), n(shard.rowsPerSecond), runner, detail]);
  }
  const t = status.total;
  rows.push(['total', t.state, n(t.rowsRead), ...counts(t), n(t.rowsPerSecond), '', `${t.seconds} s, books ${t.balanced ? 'balanced' : 'open'}`]);
  // Columns right-aligned: rows read, the counts, rejected, rows/s.
  const ratePosition = 4 + counted.length;
  return [head, ...textTable(rows, (c) => c >= 2 && c <= ratePosition)].join('\n');
}

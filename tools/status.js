#!/usr/bin/env node
/**
 * `npm run status -- <job id | s3://bucket/key>`: a job's state, per shard and in total, from the status
 * objects its shards write to the source bucket. Works against AWS (--bucket or --stage) and against the
 * local servers of a running `npm start` or `npm run burst`.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { jobIdOfObject, readJobStatus } from '../src/job/job-status.js';
import { bucketStore } from '../src/job/output-store.js';
import { textTable } from './text-table.js';
import { readLocalSession } from '../local/session.js';

const HELP = `Usage: npm run status -- <job id | s3://bucket/key> [options]

Prints a job's state, rows read and written, rejects, rows/s and rejects files, per shard and in total.

  --bucket NAME     the bucket the job status is in (AWS, default credentials and region): the output
                    bucket of a deployment onto your own bucket (csv-import-<stage>-<region>-output,
                    or your bucket with outputInSourceBucket), the source bucket otherwise
  --stage STAGE     the demo stack's bucket: csv-import-<stage>-<region>-source
  --region REGION   with --stage (default: AWS_REGION, else us-east-1)
  --prefix P        the status prefix (default _imports/)
  --watch           print again every second until the job is done or failed
  --json            the status as JSON
Without --bucket or --stage, it asks the local servers of a running npm start or npm run burst.`;

async function main() {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      bucket: { type: 'string' },
      stage: { type: 'string' },
      region: { type: 'string' },
      prefix: { type: 'string', default: '_imports/' },
      watch: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(`${HELP}\n`);
  if (positionals.length !== 1) throw new Error(`name one job: a job id (as the import logged it) or s3://bucket/key\n\n${HELP}`);
  const target = await resolveTarget(positionals[0], values);
  for (;;) {
    const status = await readJobStatus(bucketStore(target.s3, target.bucket), values.prefix, target.jobId);
    if (status === undefined) {
      throw new Error(`s3://${target.bucket}/${values.prefix}${target.jobId}/ holds no status: check the job id and the bucket (a job writes its status once it starts)`);
    }
    if (values.json) process.stdout.write(`${JSON.stringify(status)}\n`);
    else process.stdout.write(`${formatJobStatus(status, target.bucket)}\n`);
    if (!values.watch || status.total.state === 'done' || status.total.state === 'failed' || status.total.state === 'lost') {
      if (status.total.state === 'failed' || status.total.state === 'lost') process.exitCode = 2;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * @param {string} job
 * @param {{ bucket?: string, stage?: string, region?: string }} options
 */
async function resolveTarget(job, options) {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  /** @type {S3Client} */
  let s3;
  let bucket = options.bucket ?? (options.stage === undefined ? undefined : `csv-import-${options.stage}-${region}-source`);
  if (bucket !== undefined || job.startsWith('s3://')) {
    const endpoint = process.env.S3_ENDPOINT;
    s3 = new S3Client({ region, ...(endpoint ? { endpoint, forcePathStyle: true } : {}) });
  } else {
    const session = readLocalSession();
    if (session === undefined) {
      throw new Error('no local servers are running (status of a local job lives only while its npm start or npm run burst runs); for AWS, add --bucket NAME or --stage STAGE');
    }
    s3 = new S3Client({ region: session.region, endpoint: session.s3Endpoint, forcePathStyle: true, credentials: session.credentials });
    bucket = session.bucket;
  }
  if (job.startsWith('s3://')) {
    const [objectBucket, ...keyParts] = job.slice(5).split('/');
    const key = keyParts.join('/');
    const jobId = await jobIdOfObject(s3, objectBucket, key).catch((error) => {
      throw new Error(`cannot read ${job} (${error.name}); check the bucket and key`);
    });
    return { s3, bucket: objectBucket, jobId };
  }
  if (!/^[0-9a-f-]{36}$/.test(job)) throw new Error(`"${job}" is not a job id (a UUID such as 3f2a9c1e-...) nor s3://bucket/key`);
  return { s3, bucket: /** @type {string} */ (bucket), jobId: job };
}

/**
 * @param {import('../src/job/job-status.js').JobStatus} status
 * @param {string} bucket
 */
export function formatJobStatus(status, bucket) {
  const n = (/** @type {number | undefined} */ value) => (value ?? 0).toLocaleString('en-US');
  const plan = status.plan;
  const head = `job ${status.jobId}  ${plan === undefined ? '' : `s3://${plan.bucket}/${plan.key}  `}${status.total.state}  ${status.shards.length} shard${status.shards.length === 1 ? '' : 's'}${plan?.note ? `  (${plan.note})` : ''}`;
  const rows = [['shard', 'state', 'rows read', 'written', 'rejected', 'rows/s', 'runner', 'rejects files / error']];
  for (const shard of status.shards) {
    const runner = shard.runner === undefined ? '' : 'pid' in shard.runner ? `pid ${shard.runner.pid}` : shard.runner.logStream;
    const detail = shard.error ?? (shard.rejectsObjects ?? []).map((key) => `s3://${bucket}/${key}`).join(' ');
    rows.push([String(shard.shard + 1), shard.state, n(shard.rowsRead), n(shard.written), n(shard.rejected), n(shard.rowsPerSecond), runner, detail]);
  }
  const t = status.total;
  rows.push(['total', t.state, n(t.rowsRead), n(t.written), n(t.rejected), n(t.rowsPerSecond), '', `${t.seconds} s, books ${t.balanced ? 'balanced' : 'open'}`]);
  return [head, ...textTable(rows, (c) => c >= 2 && c <= 5)].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    process.stderr.write(`npm run status failed: ${error.message}\n`);
    process.exit(1);
  });
}

/**
 * The `ddbload` command, run as a person runs it (a child process, in a pseudo-terminal for the live view)
 * against the local servers (an S3 object, or a local file), checked against the sequential oracle: the
 * table's items, the rejects files and the books. Ctrl-C and --resume, once and twice, end to end.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/handler.js';
import { commandLinePolicy } from '../../src/cli/iam-policy.js';
import { resolveConfig } from '../../src/config/index.js';
import { compare, scanTable, tableKeysFor } from '../oracle/differential.js';
import { expectedImport } from '../oracle/oracle.js';
import { generatedCsv, mixedCsv } from '../support/imports.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { createTable, scanAll, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';
import { MAIN, runCli, runCliOnTerminal } from '../support/run-cli.js';

const OPTIONS = { keyColumn: 'id', generateKey: false, columnTypes: /** @type {Record<string, any>} */ ({ n: 'N' }), delimiter: ',', shuffleWindow: 0 };

/** Every row of every rejects file under a directory (without their header lines). @param {string} dir */
function rejectsUnder(dir) {
  /** @type {string[][]} */
  const rows = [];
  const walk = (/** @type {string} */ at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.csv')) rows.push(...parse(readFileSync(full, 'utf8'), { relax_column_count: true }).slice(1));
    }
  };
  walk(path.join(dir, 'rejects'));
  return rows;
}

/** The JSON lines of an output, parsed. @param {string} stdout */
const jsonLines = (stdout) => stdout.trim().split('\n').map((line) => JSON.parse(line));

/**
 * The command run until its first throughput line shows a row written, then sent SIGINT (Ctrl-C).
 * @param {string[]} args @param {string} dir
 */
function stoppedOnceWriting(args, dir) {
  let signalled = false;
  return runCli(args, {
    cwd: dir,
    env: process.env,
    onStdout(text, child) {
      if (!signalled && /"message":"throughput".*"written":[1-9]/.test(text)) {
        signalled = true;
        child.kill('SIGINT');
      }
    },
  });
}

/** The pids of a local sharded import's shards that are running and have written. @param {string} dir */
function shardRunners(dir) {
  const statusDir = path.join(dir, '_imports');
  if (!existsSync(statusDir)) return [];
  const [job] = readdirSync(statusDir).filter((name) => name !== 'latest');
  if (job === undefined) return [];
  return readdirSync(path.join(statusDir, job))
    .filter((name) => name.startsWith('shard-') && name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(path.join(statusDir, job, name), 'utf8')))
    .filter((status) => status.state === 'running' && status.written > 0)
    .map((status) => /** @type {number} */ (status.runner.pid));
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the ddbload command', () => {
  const local = useLocalServers();
  const cleanup = useCleanups(local.env);
  /** A directory for the test's files, removed after it. */
  const workDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ddbload-'));
    cleanup(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  /**
   * Differences between what the oracle expects of these bytes and what the table and the rejects hold.
   * @param {Buffer} bytes @param {string} table @param {string[][]} rejects @param {Record<string, any>} summary
   */
  async function differencesFor(bytes, table, rejects, summary) {
    const items = await scanTable(local.env, table);
    return compare(expectedImport(bytes, OPTIONS), { summary, thrown: undefined, items, rejects, proxies: {} }, OPTIONS);
  }

  it('imports a local file in --json mode: the Lambda\'s JSON lines, its summary last, rejects beside the file', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(3_000, { duplicates: true });
    writeFileSync(path.join(dir, 'people.csv'), csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));

    const { code, stdout, stderr } = await runCli(['import', 'people.csv', '--table', table, '--types', 'n:N', '--json', '--log-interval-ms', '100'], { cwd: dir, env: process.env });
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(3); // finished, with rejected rows
    expect(stdout).not.toContain('\u001b['); // no escape codes
    const lines = jsonLines(stdout);
    const summary = lines.at(-1);
    expect(await differencesFor(Buffer.from(csv), table, rejectsUnder(dir), summary)).toEqual([]);

    // The same import through the Lambda's entry (the object in S3, another table): the same lines and summary.
    const lambdaTable = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    await upload(local.s3, 'cli/people.csv', csv);
    const payload = { bucket: TEST_BUCKET, key: 'cli/people.csv', table: lambdaTable, columnTypes: { n: 'N' } };
    const lambdaSummary = JSON.parse(JSON.stringify(await runJob(payload, resolveConfig(payload, process.env), undefined, { log: { info() {}, warn() {}, error() {} } })));
    const books = (/** @type {Record<string, unknown>} */ s) => ({ rowsRead: s.rowsRead, written: s.written, rejected: s.rejected, duplicatesCollapsed: s.duplicatesCollapsed, rejectedByReason: s.rejectedByReason, balanced: s.balanced, rejectSample: s.rejectSample });
    expect(books(summary)).toEqual(books(lambdaSummary));
    expect(Object.keys(summary).filter((name) => name !== 'file' && name !== 'output').sort()).toEqual(Object.keys(lambdaSummary).filter((name) => name !== 'bucket' && name !== 'key').sort());
    const throughput = lines.filter((line) => line.message === 'throughput');
    expect(throughput.length).toBeGreaterThan(0);
    for (const line of throughput) {
      expect(line).toMatchObject({ level: 'INFO', service: 'csv-import', jobId: summary.jobId, shard: 0, segment: 1 });
      expect(Object.keys(line)).toEqual(expect.arrayContaining(['rowsRead', 'written', 'rejected', 'rowsPerSecond', 'wcuPerSecond', 'throttledItems', 'window', 'byte', 'bytes']));
    }
    // The summary is printed once, last, not also as a log line.
    expect(lines.filter((line) => line.message === 'summary')).toEqual([]);
  });

  it('imports an S3 object with the SDK\'s default credentials and region', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(1_000);
    await upload(local.s3, 'cli/s3-source.csv', csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    // Credentials and region reach the command only through the environment, as from a profile or SSO.
    const { code, stdout } = await runCli(['import', `s3://${TEST_BUCKET}/cli/s3-source.csv`, '--table', table, '--types', 'n:N', '--json'], { cwd: dir, env: { ...process.env, TABLE_NAME: 'not-this-one', CONCURRENCY: 'not a number' } });
    expect(code).toBe(3); // finished, with rejected rows
    const summary = jsonLines(stdout).at(-1);
    expect(summary).toMatchObject({ bucket: TEST_BUCKET, key: 'cli/s3-source.csv', table, balanced: true });
    const rejects = [];
    for (const key of summary.rejectsObjects) {
      const { readRejects } = await import('../support/local.js');
      rejects.push(...(await readRejects(local.s3, key)).slice(1));
    }
    expect(await differencesFor(Buffer.from(csv), table, rejects, summary)).toEqual([]);
  });

  it('sends an S3 import\'s rejects and status elsewhere with --output: nothing is written to the source bucket', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(1_000);
    await upload(local.s3, 'cli/read-only/people.csv', csv);
    const { CreateBucketCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
    await local.s3.send(new CreateBucketCommand({ Bucket: 'ddbload-output' })).catch(() => undefined);
    const keysIn = async (/** @type {string} */ bucket, /** @type {string} */ prefix) => ((await local.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? []).map((object) => String(object.Key));
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    // What the import would write to the source bucket without --output: its rejects, its job's status,
    // and the record of the job last started of the object. (Other test files write to the bucket
    // meanwhile: its whole listing is not this test's to compare.)
    const { HeadObjectCommand } = await import('@aws-sdk/client-s3');
    const { latestJobKey } = await import('../../src/state/object-keys.js');
    const etag = String((await local.s3.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: 'cli/read-only/people.csv' }))).ETag).replaceAll('"', '');
    const latest = latestJobKey('_imports/', `${TEST_BUCKET}/cli/read-only/people.csv`, etag, table);
    const writtenToSource = async (/** @type {string} */ jobId) => [...(await keysIn(TEST_BUCKET, 'rejects/cli/read-only/')), ...(await keysIn(TEST_BUCKET, `_imports/${jobId}/`)), ...(await keysIn(TEST_BUCKET, latest))];

    const toBucket = await runCli(['import', `s3://${TEST_BUCKET}/cli/read-only/people.csv`, '--table', table, '--types', 'n:N', '--output', 's3://ddbload-output/runs/', '--json'], { cwd: dir, env: process.env });
    expect(toBucket.code, toBucket.stderr).toBe(3); // finished, with rejected rows
    const summary = jsonLines(toBucket.stdout).at(-1);
    expect(await writtenToSource(summary.jobId)).toEqual([]);
    expect(await keysIn('ddbload-output', 'runs/_imports/latest/')).not.toEqual([]);
    expect(summary.rejectsObjects.length).toBeGreaterThan(0);
    expect(summary.rejectsObjects.every((/** @type {string} */ key) => key.startsWith('runs/rejects/cli/read-only/people.csv/'))).toBe(true);
    expect(await keysIn('ddbload-output', `runs/_imports/${summary.jobId}/`)).not.toEqual([]);
    expect(summary.output).toBe('s3://ddbload-output/');
    const status = await runCli(['status', summary.jobId, '--bucket', 'ddbload-output', '--prefix', 'runs/_imports/', '--json'], { cwd: dir, env: process.env });
    expect(JSON.parse(status.stdout).total).toMatchObject({ state: 'done', rowsRead: summary.rowsRead, rejected: summary.rejected });
    // By the object's name, with the --output the import was given.
    const byName = await runCli(['status', `s3://${TEST_BUCKET}/cli/read-only/people.csv`, '--table', table, '--types', 'n:N', '--output', 's3://ddbload-output/runs/', '--json'], { cwd: dir, env: process.env });
    expect(JSON.parse(byName.stdout).total).toEqual(JSON.parse(status.stdout).total);

    const toDirectory = await runCli(['import', `s3://${TEST_BUCKET}/cli/read-only/people.csv`, '--table', table, '--types', 'n:N', '--output', 'out', '--json'], { cwd: dir, env: process.env });
    expect(toDirectory.code, toDirectory.stderr).toBe(3);
    expect(await writtenToSource(summary.jobId)).toEqual([]);
    expect(rejectsUnder(path.join(dir, 'out')).length).toBe(summary.rejected);
    // The check above can fail: without --output the same import writes each of those to the source bucket.
    const beside = await runCli(['import', `s3://${TEST_BUCKET}/cli/read-only/people.csv`, '--table', table, '--types', 'n:N', '--json'], { cwd: dir, env: process.env });
    expect(beside.code, beside.stderr).toBe(3);
    const written = await writtenToSource(summary.jobId);
    expect(written.filter((key) => key.startsWith('rejects/')).length).toBeGreaterThan(0);
    expect(written).toContain(latest);
    expect(written.some((key) => key.startsWith(`_imports/${summary.jobId}/`))).toBe(true);
    const bad = await runCli(['import', `s3://${TEST_BUCKET}/cli/read-only/people.csv`, '--table', table, '--output', 's3://ddbload-output/no-slash'], { cwd: dir, env: process.env });
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: 2, stderr: expect.stringContaining('name a bucket and a prefix ending with "/"') });
  });

  it('shows a live view on a terminal, then a summary table with the job and its rejects file', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(20_000, { duplicates: true });
    writeFileSync(path.join(dir, 'people.csv'), csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));

    const { code, output } = /** @type {{ code: number, output: string }} */ (await runCliOnTerminal(['import', 'people.csv', '--table', table, '--types', 'n:N', '--max-wcu', '8000', '--log-interval-ms', '200'], { cwd: dir, env: process.env }));
    expect(code).toBe(3); // finished, with rejected rows
    // Redrawn in place: cursor moves up and clears lines, several frames.
    expect(output).toMatch(/\u001b\[\d+A/);
    const frames = output.match(/people\.csv → [^\s]+ .*?\d+% of [\d.]+ MB/g) ?? [];
    expect(frames.length).toBeGreaterThan(2);
    expect(output).toMatch(/rows {2}read [\d,]+ {2}written [\d,]+ {2}rejected [\d,]+/);
    expect(output).toMatch(/rate {2}[\d,]+ rows\/s now, [\d,]+ avg {3}[\d,]+ WCU\/s now/);
    expect(output).toMatch(/pace {2}window \d+, \d+ in flight {3}throttled [\d,]+ items/);
    expect(output).toMatch(/ETA \d+:\d\d/);
    // The summary: books, the job id and the rejects file, and no JSON.
    const expected = expectedImport(Buffer.from(csv), OPTIONS);
    expect(output).toMatch(new RegExp(`rows read +${expected.rowsRead.toLocaleString('en-US')}`));
    expect(output).toMatch(new RegExp(`rejected +${expected.rejects.length.toLocaleString('en-US')} +FIELD_COUNT`));
    expect(output).toMatch(/books +balanced/);
    const jobId = /job ([0-9a-f-]{36})/.exec(output)?.[1];
    expect(jobId).toBeDefined();
    expect(output).toContain(`rejects ${path.join(dir, 'rejects', 'people.csv', String(jobId))}`);
    expect(output).not.toMatch(/^\{"level"/m);
    // The books as the summary table prints them, checked against the oracle's counts too.
    // The last match: the summary table's, after the live view's frames.
    const counted = (/** @type {string} */ label) => Number([...output.matchAll(new RegExp(`${label} +([\\d,]+)`, 'g'))].at(-1)?.[1].replaceAll(',', ''));
    const books = { rowsRead: expected.rowsRead, written: counted('written'), duplicatesCollapsed: counted('duplicates collapsed'), rejected: expected.rejects.length, balanced: true };
    expect(await differencesFor(Buffer.from(csv), table, rejectsUnder(dir), books)).toEqual([]);
  });

  it('stops on Ctrl-C at a record boundary, saves a checkpoint, and --resume finishes the job: every row once', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(12_000, { duplicates: true });
    writeFileSync(path.join(dir, 'people.csv'), csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    const args = ['import', 'people.csv', '--table', table, '--types', 'n:N', '--json', '--max-wcu', '3000', '--log-interval-ms', '200'];

    const first = await stoppedOnceWriting(args, dir);
    expect(first.code).toBe(130);
    const stopped = jsonLines(first.stdout).at(-1);
    expect(stopped).toMatchObject({ stopped: true, rowsToReplay: 0 });
    expect(first.stderr).toContain('Resume with:');
    const resume = /^ {2}(npx ddbload .*)$/m.exec(first.stderr)?.[1];
    expect(resume).toBe(`npx ddbload ${args.join(' ')} --resume ${stopped.checkpointFile}`);
    const partly = await scanTable(local.env, table);
    expect(partly.length).toBeGreaterThan(0);
    expect(partly.length).toBeLessThan(11_000);

    expect(path.basename(stopped.checkpointFile)).toMatch(new RegExp(`^${stopped.jobId}\\.[0-9a-f]{8}\\.checkpoint\\.json$`));

    // Another import than the one stopped is refused, each with the fix: another table, another reading of
    // the rows, another endpoint, a checkpoint edited by hand, --local (whose table is gone).
    const proxy = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT });
    cleanup(() => proxy.stop());
    const text = readFileSync(stopped.checkpointFile, 'utf8');
    const edited = path.join(dir, 'edited.checkpoint.json');
    writeFileSync(edited, text.replace(/"byte": (\d+)/, (_, byte) => `"byte": ${Number(byte) + 1}`));
    const refusals = [
      [['import', 'people.csv', '--table', 'another-table', '--resume', stopped.checkpointFile], process.env, `it is the checkpoint of ${path.join(dir, 'people.csv')} into ${table}`],
      [[...args, '--delimiter', ';', '--resume', stopped.checkpointFile], process.env, 'the import was stopped with --delimiter ,, and the rows it wrote were read so; resume with --delimiter , (this run is with --delimiter ;)'],
      [[...args.filter((arg) => arg !== '--types' && arg !== 'n:N'), '--types', 'n:S', '--resume', stopped.checkpointFile], process.env, 'the import was stopped with --types n:N, and'],
      [[...args, '--mode', 'delete', '--resume', stopped.checkpointFile], process.env, 'the import was stopped with --mode put, and'],
      [[...args, '--empty-cell', 'null', '--resume', stopped.checkpointFile], process.env, 'the import was stopped with --empty-cell omit, and'],
      [[...args, '--resume', stopped.checkpointFile], { ...process.env, DYNAMODB_ENDPOINT: proxy.endpoint }, `not on ${proxy.endpoint} in`],
      [[...args, '--resume', edited], process.env, 'its signature does not match: it was changed since the stopped import wrote it, or written by another user or machine'],
      [[...args, '--local', '--resume', stopped.checkpointFile], process.env, "--local's table is discarded"],
      [[...args, '--dry-run', '--resume', stopped.checkpointFile], process.env, 'a dry run reads the whole file and resumes nothing'],
    ];
    for (const [refusedArgs, env, message] of /** @type {Array<[string[], Record<string, string | undefined>, string]>} */ (refusals)) {
      const refused = await runCli(refusedArgs, { cwd: dir, env });
      expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 2, stderr: expect.stringContaining(message) });
    }
    expect(proxy.counts.calls).toBe(0);

    const second = await runCli([...args, '--resume', stopped.checkpointFile], { cwd: dir, env: process.env });
    expect(second.code).toBe(3); // finished, with rejected rows
    const summary = jsonLines(second.stdout).at(-1);
    expect(summary.segments).toBe(2);
    expect(await differencesFor(Buffer.from(csv), table, rejectsUnder(dir), summary)).toEqual([]);
    // Its checkpoint is of no more use once the import finished.
    expect(existsSync(stopped.checkpointFile)).toBe(false);
  });

  it('writes --ttl column:+30d and --nest, and a Ctrl-C and --resume later leave every row\'s expiry at the job\'s time', async () => {
    const dir = workDir();
    const rows = Array.from({ length: 12_000 }, (_, i) => `r${i},name ${i},city ${i % 9},${i % 2 === 0 ? '' : '0150'}`);
    writeFileSync(path.join(dir, 'people.csv'), `id,name,address.city,address.zip\n${rows.join('\n')}\n`);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    const args = ['import', 'people.csv', '--table', table, '--ttl', 'expires:+30d', '--nest', '--types', 'address.zip:N', '--json', '--max-wcu', '3000', '--log-interval-ms', '200'];
    const first = await stoppedOnceWriting(args, dir);
    expect(first.code).toBe(130);
    const stopped = jsonLines(first.stdout).at(-1);
    // A second later: a resume that took its own time would write other expiries.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = await runCli([...args, '--resume', stopped.checkpointFile], { cwd: dir, env: process.env });
    expect(second.code).toBe(0);
    const summary = jsonLines(second.stdout).at(-1);
    expect(summary).toMatchObject({ rowsRead: 12_000, written: 12_000, segments: 2, balanced: true });
    const expires = String(Math.floor(Date.parse(summary.ttlFrom) / 1000) + 30 * 86_400);
    const items = await scanTable(local.env, table);
    expect(items).toHaveLength(12_000);
    expect([...new Set(items.map((item) => item.expires.N))]).toEqual([expires]);
    expect(items.find((item) => item.id.S === 'r1')?.address).toEqual({ M: { city: { S: 'city 1' }, zip: { N: '150' } } });
    expect(items.find((item) => item.id.S === 'r2')?.address).toEqual({ M: { city: { S: 'city 2' } } });

    // Refused with the fix, before anything is read: a key as the TTL column, another type for it.
    const refused = await runCli(['import', 'people.csv', '--table', table, '--ttl', 'id', '--json'], { cwd: dir, env: process.env });
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 2, stderr: expect.stringContaining('"id" is a key column') });
    const typed = await runCli(['import', 'people.csv', '--table', table, '--ttl', 'expires', '--types', 'expires:S', '--json'], { cwd: dir, env: process.env });
    expect({ code: typed.code, stderr: typed.stderr }).toEqual({ code: 2, stderr: expect.stringContaining('always written as N (epoch seconds)') });
  });

  it('refuses a second run of a job while the first is running, and names the process to wait for', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(8_000);
    writeFileSync(path.join(dir, 'people.csv'), csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    const args = ['import', 'people.csv', '--table', table, '--types', 'n:N', '--json', '--max-wcu', '2000', '--log-interval-ms', '200'];

    /** @type {Promise<{ code: number | null, stdout: string, stderr: string }> | undefined} */
    let secondRun;
    let firstPid = 0;
    const first = await runCli(args, {
      cwd: dir,
      env: process.env,
      onStdout(text, child) {
        if (secondRun === undefined && /"message":"throughput".*"written":[1-9]/.test(text)) {
          firstPid = child.pid ?? 0;
          secondRun = runCli(args, { cwd: dir, env: process.env });
        }
      },
    });
    expect(first.code).toBe(3); // finished, with rejected rows
    const second = await /** @type {Promise<{ code: number | null, stdout: string, stderr: string }>} */ (secondRun);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is being run by process ${firstPid}`);
    const summary = jsonLines(first.stdout).at(-1);
    expect(await differencesFor(Buffer.from(csv), table, rejectsUnder(dir), summary)).toEqual([]);

    // Once the first has ended, the same command runs (and writes the same rows again, changing nothing).
    const again = await runCli(args, { cwd: dir, env: process.env });
    expect(again.code).toBe(3);
  });

  it('on a second Ctrl-C gives the writes in flight up, saves their rows, and --resume writes them first', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(6_000, { duplicates: true });
    writeFileSync(path.join(dir, 'people.csv'), csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    // From the 20th call on, nothing is answered: the drain after the first Ctrl-C cannot end.
    let hanging = true;
    const proxy = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT, hangCall: (call) => hanging && call >= 20 });
    cleanup(() => proxy.stop());
    const args = ['import', 'people.csv', '--table', table, '--types', 'n:N', '--json', '--request-timeout-ms', '60000', '--log-interval-ms', '200'];

    let signals = 0;
    const first = await runCli(args, {
      cwd: dir,
      env: { ...process.env, DYNAMODB_ENDPOINT: proxy.endpoint },
      onStdout(text, child) {
        if (signals === 0 && /"inFlight":[1-9]/.test(text) && proxy.counts.hangs > 0) {
          signals = 1;
          child.kill('SIGINT');
          setTimeout(() => {
            signals = 2;
            child.kill('SIGINT');
          }, 1_000);
        }
      },
    });
    expect(signals).toBe(2);
    expect(first.code).toBe(130);
    const stopped = jsonLines(first.stdout).at(-1);
    expect(stopped.rowsToReplay).toBeGreaterThan(0);
    expect(first.stderr).toMatch(/rows whose writes were given up are saved in .*replay-shard-0001-segment-0001-[0-9a-f]{8}\.json/);

    // The resume goes to the same endpoint (another would be refused), which answers again. The
    // checkpoint file alone is enough: its source, table and options (--types n:N) are the stopped import's.
    hanging = false;
    const second = await runCli(['import', '--resume', stopped.checkpointFile, '--json'], { cwd: dir, env: { ...process.env, DYNAMODB_ENDPOINT: proxy.endpoint } });
    expect(second.code).toBe(3); // finished, with rejected rows
    const summary = jsonLines(second.stdout).at(-1);
    expect(await differencesFor(Buffer.from(csv), table, rejectsUnder(dir), summary)).toEqual([]);
  });

  it('with --local, starts a local DynamoDB (dynalite) for the run, creates the table and imports into it', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(2_000, { duplicates: true });
    writeFileSync(path.join(dir, 'people.csv'), csv);
    const { DYNAMODB_ENDPOINT: _, S3_ENDPOINT: __, ...withoutServers } = process.env;
    const { code, stdout, stderr } = await runCli(['import', './people.csv', '--table', 'People', '--types', 'n:N', '--local', '--json'], { cwd: dir, env: withoutServers });
    expect(code).toBe(3); // finished, with rejected rows
    const summary = jsonLines(stdout).at(-1);
    const expected = expectedImport(Buffer.from(csv), OPTIONS);
    expect(summary).toMatchObject({ table: 'People', rowsRead: expected.rowsRead, rejected: expected.rejects.length, balanced: true });
    expect(stderr).toMatch(/local DynamoDB at http:\/\/127\.0\.0\.1:\d+; table People created/);
    expect(stderr).toContain(`the local table People holds ${expected.items.size.toLocaleString('en-US')} items (discarded when this run ends)`);
  });

  it('with --endpoint-url, writes to the DynamoDB-compatible server it names, and refuses a bad URL or one beside --local', async () => {
    const dir = workDir();
    writeFileSync(path.join(dir, 'few.csv'), 'id,n\na,1\nb,2\n');
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    // A server the user runs: here the local one behind a proxy that counts what reaches it.
    const proxy = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT });
    cleanup(() => proxy.stop());
    const { DYNAMODB_ENDPOINT: _, ...withoutEndpoint } = process.env;
    const imported = await runCli(['import', 'few.csv', '--table', table, '--types', 'n:N', '--endpoint-url', proxy.endpoint, '--region', 'us-east-1', '--json'], { cwd: dir, env: withoutEndpoint });
    expect(imported.code).toBe(0);
    expect(jsonLines(imported.stdout).at(-1)).toMatchObject({ written: 2, balanced: true });
    expect(proxy.counts.calls).toBe(1);
    for (const [args, message] of /** @type {Array<[string[], RegExp]>} */ ([
      [['--endpoint-url', 'localhost:8000'], /--endpoint-url[\s\S]*use the http:\/\/ or https:\/\/ URL of a DynamoDB-compatible server/],
      [['--endpoint-url', proxy.endpoint, '--local'], /--endpoint-url[\s\S]*--local starts a local DynamoDB of its own/],
      [['--local-dir', '.ddb'], /--local-dir[\s\S]*keeps the tables of --local between runs: add --local/],
    ])) {
      const refused = await runCli(['import', 'few.csv', '--table', table, ...args], { cwd: dir, env: withoutEndpoint });
      expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(message) });
    }
  });

  it('stops a dry run on Ctrl-C with a report of the rows read so far', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(150_000);
    writeFileSync(path.join(dir, 'big.csv'), csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    let signalled = false;
    const { code, stdout, stderr } = await runCli(['import', 'big.csv', '--table', table, '--types', 'n:N', '--dry-run', '--json', '--log-interval-ms', '100'], {
      cwd: dir,
      env: process.env,
      onStdout(text, child) {
        if (!signalled && text.includes('"message":"throughput"')) {
          signalled = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(code).toBe(130);
    expect(stderr).toContain('Stopping the dry run');
    const report = jsonLines(stdout).at(-1);
    expect(report).toMatchObject({ dryRun: true, complete: false, balanced: true });
    expect(report.rowsRead).toBeGreaterThan(0);
    expect(report.rowsRead).toBeLessThan(150_000);
  });

  it('prints a resume command that keeps the words after "--" as arguments', async () => {
    const { resumeCommand } = await import('../../src/cli/program.js');
    expect(resumeCommand(['import', '--table', 'T', '--resume', 'old.json', '--', '-odd name.csv'], '/tmp/a b.json')).toBe("npx ddbload import --table T --resume '/tmp/a b.json' -- '-odd name.csv'");
    expect(resumeCommand(['import', 'x.csv', '--table', 'T'], '/tmp/c.json')).toBe('npx ddbload import x.csv --table T --resume /tmp/c.json');
  });

  it('goes on to its end when its output\'s reader goes away (`... --json | head -1`): every row, and its exit code', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(4_000);
    writeFileSync(path.join(dir, 'people.csv'), csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    const child = spawn(process.execPath, [MAIN, 'import', 'people.csv', '--table', table, '--types', 'n:N', '--json', '--log-interval-ms', '100', '--max-wcu', '4000'], { cwd: dir, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(3); // finished, with rejected rows
    const expected = expectedImport(Buffer.from(csv), OPTIONS);
    expect((await scanTable(local.env, table)).length).toBe(expected.items.size);
  });

  it('exits 0 when every row was written, 3 when some were rejected; --quiet prints nothing; --version', async () => {
    const dir = workDir();
    writeFileSync(path.join(dir, 'good.csv'), 'id,n\na,1\nb,2\n');
    writeFileSync(path.join(dir, 'bad.csv'), 'id,n\nc,1\nd,not a number\n');
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    const good = await runCli(['import', 'good.csv', '--table', table, '--types', 'n:N', '--quiet'], { cwd: dir, env: process.env });
    expect({ code: good.code, stdout: good.stdout }).toEqual({ code: 0, stdout: '' });
    const bad = await runCli(['import', 'bad.csv', '--table', table, '--types', 'n:N', '--quiet'], { cwd: dir, env: process.env });
    expect({ code: bad.code, stdout: bad.stdout }).toEqual({ code: 3, stdout: '' });
    const json = await runCli(['import', 'bad.csv', '--table', table, '--types', 'n:N', '--json'], { cwd: dir, env: process.env });
    expect(json.code).toBe(3);
    expect(jsonLines(json.stdout).at(-1)).toMatchObject({ rowsRead: 2, written: 1, rejected: 1, rejectedByReason: { INVALID_NUMBER: 1 } });
    const dry = await runCli(['import', 'bad.csv', '--table', table, '--types', 'n:N', '--dry-run', '--json'], { cwd: dir, env: process.env });
    expect(dry.code).toBe(3);
    const version = await runCli(['--version'], { cwd: dir, env: process.env });
    expect({ code: version.code, stdout: version.stdout.trim() }).toEqual({ code: 0, stdout: JSON.parse(readFileSync('package.json', 'utf8')).version });
  });

  it('reads the status of a local file\'s import from beside the file', async () => {
    const dir = workDir();
    const { csv } = mixedCsv(2_000);
    writeFileSync(path.join(dir, 'small.csv'), csv);
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    expect((await runCli(['import', 'small.csv', '--table', table, '--types', 'n:N', '--json'], { cwd: dir, env: process.env })).code).toBe(3);
    const { code, stdout } = await runCli(['status', 'small.csv', '--table', table], { cwd: dir, env: process.env });
    expect(code).toBe(0);
    expect(stdout).toContain(path.join(dir, 'small.csv'));
    expect(stdout).toMatch(/total +done/);
    expect(stdout).toContain(path.join(dir, 'rejects', 'small.csv'));
  });

  it('names the flag and the fix for every bad command line', async () => {
    const dir = workDir();
    writeFileSync(path.join(dir, 'x.csv'), 'id\n1\n');
    await upload(local.s3, 'two-objects/a.csv', 'id\n1\n');
    await upload(local.s3, 'two-objects/b.csv', 'id\n2\n');
    const cases = [
      [['import', 'x.csv', '--table', 'People', '--max-objects', '5'], /Invalid option --max-objects: got "5"; bounds the objects of a job over a prefix or a DynamoDB export/],
      // Found while planning, after the options were checked: still the flag's name, never the payload's.
      [['import', `s3://${TEST_BUCKET}/two-objects/`, '--table', 'People', '--max-objects', '1'], /^(?![\s\S]*maxObjects)[\s\S]*--max-objects[\s\S]*holds 2 objects[\s\S]*raise --max-objects/],
      [['import', 'x.csv', '--table', 'People', '--max-wcuu', '5'], /unknown option '--max-wcuu'[\s\S]*Did you mean --max-wcu\?/],
      [['import', 'x.csv', '--table', 'People', '--max-wcu', '0'], /Invalid option --max-wcu: got "0"; use a whole number from 1 to/],
      [['import', 'x.csv', '--table', 'People', '--delimiter', '§'], /Invalid option --delimiter: got "§"; use one ASCII character/],
      [['import', 'x.csv', '--table', 'x'], /Invalid option --table: got "x"; a DynamoDB table name is 3-255 characters/],
      [['import', 'x.csv'], /"--table": got undefined; name the existing DynamoDB table to import into: --table NAME/],
      [['import', '--table', 'People'], /name the file or s3:\/\/bucket\/key to import \(or --resume a stopped import's checkpoint file\)/],
      [['import', 'x.csv', '--table', 'People', '--output', 's3://b/p/'], /a local file's rejects and status go to a directory: --output DIR/],
      [['import', 's3://bucket-only', '--table', 'People'], /name an object as s3:\/\/bucket\/key/],
      [['import', 'https://example.com/x.csv', '--table', 'People'], /the source is s3:\/\/bucket\/key or a path to a local file/],
      [['import', `s3://${TEST_BUCKET}/x.csv`, '--table', 'People', '--local'], /--local[\s\S]*import a local file with --local/],
      [['import', 'x.csv', '--table', 'People', '--resume', 'nothing-here.json'], /--resume[\s\S]*cannot read it as a checkpoint/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['iam-policy', '--stack', 'csv-import-dev', '--account', '12', '--region', 'us-east-1'], /Invalid option "--account": got "12"; an AWS account id is 12 digits/],
      [['iam-policy', '--account', '111122223333'], /required option '--stack <name>' not specified/],
    ];
    for (const [args, message] of /** @type {Array<[string[], RegExp]>} */ (cases)) {
      const { code, stderr } = await runCli(args, { cwd: dir, env: process.env });
      expect({ args, code, stderr }).toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
    }
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    const missing = await runCli(['import', 'no-such.csv', '--table', table, '--json'], { cwd: dir, env: process.env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${path.join(dir, 'no-such.csv')} does not exist; check the path`);
    const noTable = await runCli(['import', 'x.csv', '--table', 'no-such-table', '--json'], { cwd: dir, env: process.env });
    expect(noTable.code).toBe(1);
    expect(noTable.stderr).toContain('table "no-such-table" does not exist');
    // iam-policy prints the policy the IAM gate judges the command line's calls by.
    const policy = await runCli(['iam-policy', '--stack', 'csv-import-dev', '--account', '111122223333', '--region', 'eu-west-1'], { cwd: dir, env: process.env });
    expect(policy.code).toBe(0);
    expect(JSON.parse(policy.stdout)).toEqual(commandLinePolicy({ stack: 'csv-import-dev', region: 'eu-west-1', account: '111122223333', outputBucket: 'csv-import-dev-eu-west-1-source' }));
    const help = await runCli(['import', '--help'], { cwd: dir, env: process.env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('--max-wcu <n>');
  });

  it('refuses an option naming a column the header lacks: exit 2, the flag\'s name, before any row is written (issue 46)', async () => {
    const dir = workDir();
    writeFileSync(path.join(dir, 'people.csv'), 'id,SSN,name\n1,123-45-6789,Ann\n2,987-65-4321,Bob\n');
    writeFileSync(path.join(dir, 'semicolons.csv'), 'id;name\n1;Ann\n');
    const table = await createTable(local.dynamodb, tableKeysFor(OPTIONS));
    const cases = [
      [['people.csv', '--drop', 'ssn'], /Invalid option --drop: got "ssn"; [\s\S]*the header has no column "ssn" \(it has "SSN": names are compared exactly/],
      [['people.csv', '--rename', 'mail:email'], /Invalid option --rename: got "mail:email"; [\s\S]*no column "mail"/],
      [['people.csv', '--rename', 'name:a,name:b'], /--rename[\s\S]*"name" is renamed twice/],
      [['people.csv', '--types', 'balanse:N'], /Invalid option --types: got "balanse:N"; [\s\S]*no column "balanse"/],
      [['people.csv', '--drop', 'name', '--types', 'name:N'], /--types[\s\S]*"name" is left out by the "?--drop"? option|--types[\s\S]*left out by --drop/],
      [['people.csv', '--write-mode', 'newer', '--version-column', 'updated'], /Invalid option --version-column: got "updated"; [\s\S]*no column "updated"/],
      [['semicolons.csv'], /--key[\s\S]*no column "id"; the first line has 1 column, which holds ";": if the file is delimited by it, pass --delimiter ";"/],
    ];
    for (const [args, message] of /** @type {Array<[string[], RegExp]>} */ (cases)) {
      const { code, stderr } = await runCli(['import', ...args, '--table', table, '--json'], { cwd: dir, env: process.env });
      expect({ args, code, stderr }).toMatchObject({ code: 2, stderr: expect.stringMatching(message) });
      expect(stderr).not.toMatch(/123-45-6789|Ann/);
    }
    expect(await scanAll(local.dynamodb, table)).toEqual([]);
  });

  /**
   * A sharded import of 3,000 rows at 100 WCU/s a shard (about 15 s), until both shards' workers write.
   * @returns {Promise<{ dir: string, table: string, child: import('node:child_process').ChildProcess, pids: number[] }>}
   */
  async function shardsWriting() {
    const dir = workDir();
    writeFileSync(path.join(dir, 'slow.csv'), generatedCsv(3_000, 11));
    const table = await createTable(local.dynamodb);
    const child = spawn(process.execPath, [MAIN, 'import', 'slow.csv', '--table', table, '--shards', '2', '--max-wcu', '200', '--json'], { cwd: dir, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, stdio: 'ignore' });
    const deadline = Date.now() + 30_000;
    while (shardRunners(dir).length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const pids = shardRunners(dir);
    expect(pids).toHaveLength(2);
    return { dir, table, child, pids };
  }

  /** Waits up to 5 s for these processes to end; returns those still alive. @param {number[]} pids */
  async function aliveAfterAWhile(pids) {
    const stopBy = Date.now() + 5_000;
    while (pids.some(alive) && Date.now() < stopBy) await new Promise((resolve) => setTimeout(resolve, 50));
    return pids.filter(alive);
  }

  it('stops its shards\' workers when it is killed, and status shows their shards lost at once (issue 35, defect 9)', async () => {
    const { dir, table, child, pids } = await shardsWriting();
    child.kill('SIGKILL');
    expect(await aliveAfterAWhile(pids)).toEqual([]);
    const status = await runCli(['status', 'slow.csv', '--table', table], { cwd: dir, env: process.env });
    expect(status.code).toBe(2);
    expect(status.stdout).toMatch(/lost/);
    expect(status.stdout).toContain('ended without finishing it (killed)');
  });

  it('stops its shards\' workers on a SIGINT to it alone: the shards show stopped, not failed, and a re-run finishes (issue 46)', async () => {
    const { dir, table, child, pids } = await shardsWriting();
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT'); // kill -INT of the command's process, not its group: the workers get no signal of their own
    expect(await aliveAfterAWhile(pids)).toEqual([]);
    expect(await exited).toBe(130);
    const status = await runCli(['status', 'slow.csv', '--table', table], { cwd: dir, env: process.env });
    expect({ code: status.code, stdout: status.stdout }).toMatchObject({ code: 130, stdout: expect.stringMatching(/stopped \(Ctrl-C\) before it was done/) });
    expect(status.stdout).not.toMatch(/failed|SIGINT/);
    const again = await runCli(['import', 'slow.csv', '--table', table, '--shards', '2', '--json'], { cwd: dir, env: process.env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({ state: 'done', rowsRead: 3_000, balanced: true });
  });
});

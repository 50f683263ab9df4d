/**
 * A re-run does what it says (issue 35, defects 3 and 4): a job's write options are part of what the job
 * is, so a sharded re-run with another mode, other types or another key is another job, never a finished
 * one skipped; a run that finds every shard done says so; a checkpoint goes on only with the options its
 * job started with.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { handler, runJob } from '../../src/handler.js';
import { resolveConfig } from '../../src/config/index.js';
import { checkResumable, readCheckpointFile, writeCheckpointFile } from '../../src/cli/checkpoint-file.js';
import { jobIdFor } from '../../src/state/checkpoint.js';
import { writeOptionsOf } from '../../src/state/write-options.js';
import { generatedCsv } from '../support/imports.js';
import { createTable, readObject, scanAll, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';
import { startFaultProxy } from '../support/fault-proxy.js';

const { env, dynamodb, s3 } = useLocalServers();
const cleanup = useCleanups(env);
/** @type {{ push: (stop: () => Promise<void> | void) => void }} */
const cleanups = { push: cleanup };
const run = promisify(execFile);

/** @param {unknown} result */
const jobOf = (result) => /** @type {Record<string, any>} */ (result);

describe('a re-run of a job', () => {
  it('with another mode is another job: a sharded delete after a sharded put deletes every item (defect 3)', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'reruns/people.csv', generatedCsv(3_000, 35));
    const payload = { bucket: TEST_BUCKET, key: 'reruns/people.csv', table, shards: 2 };

    const put = jobOf(await handler(payload));
    expect(put).toMatchObject({ shards: 2, started: 2, alreadyDone: 0, written: 3_000, balanced: true });
    expect(await scanAll(dynamodb, table)).toHaveLength(3_000);

    // The same job again: nothing left to do, and the summary says so.
    const again = jobOf(await handler(payload));
    expect(again).toMatchObject({ jobId: put.jobId, started: 0, alreadyDone: 2 });
    expect(again.note).toMatch(/every shard of job .* was done by an earlier run with these options: nothing was read or written now/);

    const deleted = jobOf(await handler({ ...payload, mode: 'delete' }));
    expect(deleted.jobId).not.toBe(put.jobId);
    expect(deleted).toMatchObject({ started: 2, alreadyDone: 0, deleted: 3_000, written: 0, balanced: true });
    expect(await scanAll(dynamodb, table)).toHaveLength(0);

    // And a put after the delete puts them back.
    const putAgain = jobOf(await handler({ ...payload, runId: 'after the delete' }));
    expect(putAgain).toMatchObject({ started: 2, written: 3_000 });
    expect(await scanAll(dynamodb, table)).toHaveLength(3_000);
  });

  it('names another job for every write option, and the same job for options that only change speed', () => {
    const base = { file: '/tmp/people.csv', table: 'people' };
    const idOf = (/** @type {Record<string, unknown>} */ payload) => {
      const config = resolveConfig({ ...base, ...payload }, {});
      return jobIdFor('people.csv', 'etag', config.table, writeOptionsOf(config), config.runId);
    };
    const first = idOf({});
    const others = [{ mode: 'delete' }, { format: 'csv' }, { keyColumn: 'email' }, { sortKeyColumn: 'sk' }, { generateKey: true }, { columnTypes: 'age:N' }, { emptyCell: 'null' }, { setSeparator: ';' }, { delimiter: ';' }, { encoding: 'latin1' }, { fromRejects: true }, { runId: 'again' }];
    const ids = others.map(idOf);
    expect(new Set([first, ...ids]).size).toBe(others.length + 1);
    // Speed, order and where records go do not change what is written.
    for (const same of [{ concurrency: 4 }, { shuffleWindow: 1000 }, { spread: 4 }, { maxWcu: 100 }, { shards: 3 }, { rejectsPrefix: 'other/' }]) expect(idOf(same)).toBe(first);
    // Column types are one set however they are listed.
    expect(idOf({ columnTypes: 'a:N,b:BOOL' })).toBe(idOf({ columnTypes: { b: 'BOOL', a: 'N' } }));
  });
});

describe('a resume', () => {
  it('refuses a checkpoint file when --from-rejects was dropped (defect 4)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reruns-'));
    const file = path.join(dir, 'people.rejects.csv');
    writeFileSync(file, 'line,reason,message,id,name\n');
    const stopped = resolveConfig({ file, table: 'people', fromRejects: true }, {});
    const checkpoint = /** @type {import('../../src/state/checkpoint.js').Checkpoint} */ ({ jobId: 'j', etag: 'e', byte: 10, line: 1, header: ['id', 'name'], segments: 1, seconds: 1, reopens: 0, totals: /** @type {any} */ ({}), rejectsObjects: [], rejectSample: [] });
    const saved = writeCheckpointFile(checkpoint, stopped, { directory: dir });
    const now = resolveConfig({ file, table: 'people' }, {});
    expect(() => checkResumable(readCheckpointFile(saved), saved, now)).toThrow(/the import was stopped with --from-rejects, and the rows it wrote were read so; resume with --from-rejects \(this run is without --from-rejects\)/);
    expect(() => checkResumable(readCheckpointFile(saved), saved, stopped)).not.toThrow();
    // Values as typed, never the internal forms ("now undefined", {"column":"e","after":86400}).
    const withTtl = writeCheckpointFile(checkpoint, resolveConfig({ file, table: 'people', fromRejects: true, ttl: 'e:+1d' }, {}), { directory: dir });
    expect(() => checkResumable(readCheckpointFile(withTtl), withTtl, stopped)).toThrow(/stopped with --ttl e:\+86400s, and the rows it wrote were read so; resume with --ttl e:\+86400s \(this run is without --ttl\)$/);

    // Column types in another order are the same job; --local-dir's table is its directory, whatever port it listens on.
    const typed = (/** @type {unknown} */ columnTypes, /** @type {string} */ endpoint) => resolveConfig({ file, table: 'people', fromRejects: true, columnTypes }, { DYNAMODB_ENDPOINT: endpoint });
    const local = writeCheckpointFile(checkpoint, typed('a:N,b:BOOL', 'http://127.0.0.1:41999'), { directory: dir, endpoint: `local:${dir}/.ddb` });
    expect(() => checkResumable(readCheckpointFile(local), local, typed('b:BOOL,a:N', 'http://127.0.0.1:37509'), `local:${dir}/.ddb`)).not.toThrow();
    expect(() => checkResumable(readCheckpointFile(local), local, typed('b:BOOL,a:N', 'http://127.0.0.1:37509'), undefined)).toThrow(/not on http:\/\/127\.0\.0\.1:37509/);
  });

  it('refuses a payload checkpoint taken under other write options, before it writes anything (defect 4)', async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'reruns/resume.csv', generatedCsv(20_000, 36));
    const payload = { bucket: TEST_BUCKET, key: 'reruns/resume.csv', table, columnTypes: 'balance:N,active:BOOL' };
    const quiet = { info() {}, warn() {}, error() {} };
    // Stopped a little way in: the checkpoint carries the job's write options.
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const stopped = jobOf(await runJob(payload, resolveConfig(payload, process.env), undefined, { log: quiet, stop: stop.signal }));
    expect(stopped.stopped).toBe(true);
    expect(stopped.checkpoint.options).toEqual(writeOptionsOf(resolveConfig(payload, process.env)));
    const written = (await scanAll(dynamodb, table)).length;
    expect(written).toBeLessThan(20_000);

    for (const [other, message] of /** @type {const} */ ([[{ mode: 'delete' }, /started with mode "put"/], [{ columnTypes: 'balance:N' }, /started with columnTypes \{"active":"BOOL","balance":"N"\}/], [{ fromRejects: true }, /started with fromRejects false/]])) {
      const resumed = { ...payload, ...other, checkpoint: stopped.checkpoint };
      await expect(runJob(resumed, resolveConfig(resumed, process.env), undefined, { log: quiet })).rejects.toThrow(message);
    }
    expect(await scanAll(dynamodb, table)).toHaveLength(written);

    const resumed = { ...payload, checkpoint: stopped.checkpoint };
    const done = jobOf(await runJob(resumed, resolveConfig(resumed, process.env), undefined, { log: quiet }));
    expect(done).toMatchObject({ rowsRead: 20_000, written: 20_000, balanced: true });
  });
});

describe('a resume of rows handed over by an earlier build', () => {
  it('reads each saved row\'s keyId again from its item: an old form (a NUL join) neither collides nor fails to match', async () => {
    const table = await createTable(dynamodb, { partition: { name: 'pk', type: 'S' }, sort: { name: 'sk', type: 'S' } });
    // 200 keys, each four times in file order: the last row of each key must win.
    const rows = Array.from({ length: 800 }, (_, i) => `p${i % 200},s${i % 200},v${i}`);
    await upload(s3, 'reruns/replay.csv', ['pk,sk,v', ...rows, ''].join('\n'));
    const payload = { bucket: TEST_BUCKET, key: 'reruns/replay.csv', table, keyColumn: 'pk', sortKeyColumn: 'sk', requestTimeoutMs: 60_000, concurrency: 4 };
    // Calls past the second never answer: the stop gives their writes up, and their rows are saved to replay.
    const hanging = await startFaultProxy({ target: env.DYNAMODB_ENDPOINT, hangCall: (call) => call > 2 });
    cleanups.push(() => hanging.stop());
    process.env.DYNAMODB_ENDPOINT = hanging.endpoint;
    const stop = new AbortController();
    const abandon = new AbortController();
    setTimeout(() => stop.abort(), 300);
    setTimeout(() => abandon.abort(), 600);
    const quiet = { info() {}, warn() {}, error() {} };
    const stopped = jobOf(await runJob(payload, resolveConfig(payload, process.env), undefined, { log: quiet, stop: stop.signal, abandon: abandon.signal }));
    expect(stopped.checkpoint.replay?.rows).toBeGreaterThan(0);
    // As an earlier build saved them: keyIds joined with a NUL.
    const replayKey = stopped.checkpoint.replay.key;
    const saved = JSON.parse(await readObject(s3, replayKey));
    await upload(s3, replayKey, JSON.stringify(saved.map((/** @type {any} */ row) => ({ ...row, keyId: `${JSON.parse(row.json).pk.S}\u0000${JSON.parse(row.json).sk.S}` }))));
    // Half the items come back unprocessed: each must be matched to its row.
    const flaky = await startFaultProxy({ target: env.DYNAMODB_ENDPOINT, unprocessedItems: 0.5 });
    cleanups.push(() => flaky.stop());
    process.env.DYNAMODB_ENDPOINT = flaky.endpoint;
    const resumed = { ...payload, checkpoint: stopped.checkpoint };
    const done = jobOf(await runJob(resumed, resolveConfig(resumed, process.env), undefined, { log: quiet }));
    expect(done).toMatchObject({ rowsRead: 800, rejected: 0, balanced: true });
    const items = await scanAll(dynamodb, table);
    expect(items.map((item) => [item.pk.S, item.v.S]).sort()).toEqual(Array.from({ length: 200 }, (_, k) => [`p${k}`, `v${600 + k}`]).sort());
  });
});

describe('ddbload status of a job named by its file', () => {
  it('finds the job last started of it, or the one with the write flags given, and says what to give when it finds none', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reruns-status-'));
    const file = path.join(dir, 'people.csv');
    writeFileSync(file, generatedCsv(500, 37));
    const table = await createTable(dynamodb);
    const cli = (/** @type {string[]} */ args) => run(process.execPath, ['src/cli/main.js', ...args], { env: process.env }).then(({ stdout }) => ({ code: 0, stdout, stderr: '' }), (error) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }));
    const imported = await cli(['import', file, '--table', table, '--types', 'balance:N,active:BOOL', '--json']);
    expect(imported.code).toBe(0);
    const jobId = JSON.parse(imported.stdout.trim().split('\n').at(-1)).jobId;
    for (const flags of [[], ['--types', 'active:BOOL,balance:N']]) {
      const found = await cli(['status', file, '--table', table, ...flags]);
      expect(found).toMatchObject({ code: 0, stdout: expect.stringContaining(`job ${jobId}`) });
    }
    const missing = await cli(['status', file, '--table', table, '--mode', 'delete']);
    expect(missing.code).not.toBe(0);
    // Every write flag, the later ones (--drop, --rename, --write-mode, ...) after those ids were first made of.
    expect(missing.stderr).toMatch(/an import with other --mode, --format, --key, --sort-key, --generate-key, --types, --empty-cell, --set-separator, --delimiter, --encoding, --from-rejects, --drop, --rename, --write-mode, --version-column[^:]* is another job: give the flags it ran with, or the job id it printed/);
  });
});

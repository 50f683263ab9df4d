/**
 * `spread` against the sequential oracle: files sorted by the table's key (with runs of one key, rows the
 * import rejects between them, quoted line breaks and CRLF), read in 2-6 places at once, under the
 * differential test's faults, jitter and hand-overs, must leave exactly what a sequential import leaves.
 * A file that is not sorted stops with SPREAD_UNSORTED before an older row of a key can pass a newer one.
 * SPREAD_RUNS and SPREAD_SEED change the run's size and seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { gzipSync } from 'node:zlib';
import { handler } from '../../src/handler.js';
import { parseCheckpoint } from '../../src/config/job-values.js';
import { shareRows } from '../../src/segment/spread/scheduler.js';
import { createTable, scanAll, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';
import { featuresFrom, conditionsArbitrary } from './arbitraries.js';
import { runCase, saveFailure, scanTable } from './differential.js';

const local = useLocalServers();
const runs = Number(process.env.SPREAD_RUNS || 10);
const seed = Number(process.env.SPREAD_SEED || 20261124);

/** A key of the pool, as text, and its place in DynamoDB's order. @param {'S' | 'N'} type @param {number} index */
const keyText = (type, index) => (type === 'N' ? String(index * 7 - 40) : `k${String(index).padStart(3, '0')}`);

const rowArbitrary = fc.record({
  key: fc.nat(30),
  sort: fc.nat(3),
  repeat: fc.integer({ min: 1, max: 3 }),
  value: fc.constantFrom('plain', 'with space', '"quoted, comma"', '"line\nbreak"', '"crlf\r\ninside"', ''),
  // A row the import rejects: a field too few, an empty key, text after a closing quote (malformed CSV).
  bad: fc.noBias(fc.integer({ min: -12, max: 3 })).map((n) => (n <= 0 ? 'none' : ['fieldCount', 'emptyKey', 'badQuote'][n - 1])),
});

const caseArbitrary = fc.record({
  keyType: fc.constantFrom(/** @type {const} */ ('S'), /** @type {const} */ ('N')),
  sortKey: fc.constantFrom(/** @type {const} */ ('none'), /** @type {const} */ ('S'), /** @type {const} */ ('N')),
  rows: fc.array(rowArbitrary, { minLength: 0, maxLength: 160, size: 'max' }),
  lineBreak: fc.constantFrom('\n', '\r\n'),
  spread: fc.integer({ min: 2, max: 6 }),
  shuffleWindow: fc.constantFrom(0, 0, 0, 7),
});

/** @param {typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never} spec */
function render(spec) {
  const sortType = spec.sortKey === 'none' ? undefined : spec.sortKey;
  // Sorted by key, then sort key, in DynamoDB's order (numbers by value); one key's repeats stay together.
  const good = spec.rows.filter((row) => row.bad === 'none');
  const order = (/** @type {typeof good[0]} */ row) => [row.key, sortType === undefined ? 0 : row.sort];
  const sorted = [...good].sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1]);
  /** @type {string[]} */
  const lines = [];
  let badAt = 0;
  const bad = spec.rows.filter((row) => row.bad !== 'none');
  sorted.forEach((row, i) => {
    for (let r = 0; r < row.repeat; r++) {
      const cells = [keyText(spec.keyType, row.key), ...(sortType === undefined ? [] : [keyText(sortType, row.sort)]), row.value === '' ? `v${i}.${r}` : row.value];
      lines.push(cells.join(','));
    }
    // Rows the import rejects, here and there: they write nothing, so their place is free.
    if (badAt < bad.length && (i * 7) % 5 === 0) {
      const kind = bad[badAt++].bad;
      lines.push(kind === 'fieldCount' ? 'only-one-field' : kind === 'emptyKey' ? `,${sortType === undefined ? '' : `${keyText(sortType, 0)},`}empty key` : `"${keyText(spec.keyType, row.key)}"x,${sortType === undefined ? '' : '1,'}z`);
    }
  });
  const header = ['id', ...(sortType === undefined ? [] : ['sk']), 'v'].join(',');
  const bytes = Buffer.from(`${[header, ...lines].join(spec.lineBreak)}${spec.lineBreak}`);
  /** @type {Record<string, 'S' | 'N' | 'BOOL'>} */
  const columnTypes = {};
  if (spec.keyType === 'N') columnTypes.id = 'N';
  if (sortType === 'N') columnTypes.sk = 'N';
  return { bytes, options: { keyColumn: 'id', ...(sortType === undefined ? {} : { sortKeyColumn: 'sk' }), generateKey: false, columnTypes, delimiter: ',', shuffleWindow: spec.shuffleWindow, spread: spec.spread } };
}

describe('spread against the sequential oracle', () => {
  it(`leaves what a sequential import leaves, on ${runs} sorted files with faults, jitter and hand-overs`, async () => {
    const conditions = conditionsArbitrary(featuresFrom('-shards'));
    let ran = 0;
    /** The case under way: one the time limit interrupts runs on, and is awaited (and counted) before the servers stop. */
    let lastCase = Promise.resolve();
    const details = await fc.check(
      fc.asyncProperty(caseArbitrary, conditions, (spec, condition) =>
        (lastCase = (async () => {
          ran++;
          const importCase = /** @type {any} */ (render(spec));
          const { differences } = await runCase(local, importCase, condition);
          if (differences.length > 0) saveFailure(importCase, condition, differences);
          expect(differences).toEqual([]);
        })()),
      ),
      { numRuns: runs, seed, endOnFailure: true, interruptAfterTimeLimit: 240_000 },
    );
    await lastCase.catch(() => {});
    if (details.failed && !details.interrupted) throw new Error(fc.defaultReportMessage(details));
    // A run stopped by its time limit ran fewer cases than it says: it fails (issue 46).
    expect({ interrupted: details.interrupted, cases: details.numRuns }).toEqual({ interrupted: false, cases: runs });
    expect(ran).toBe(runs);
  });

  it('stops a file that is not sorted with SPREAD_UNSORTED, before an older row of a key passes a newer one', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    // Two ranges of three rows: range 1 holds an older k1 among its keys, range 2 a newer one among its own.
    const rows = ['a0,first', 'k1,older', 'k2,third', 'c0,forth', 'k1,newer', 'z9,sixth'];
    const key = 'spread/unsorted.csv';
    await local.s3.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: `id,v\n${rows.join('\n')}\n` }));
    const error = await handler(/** @type {any} */ ({ bucket: TEST_BUCKET, key, table, spread: 2, concurrency: 1 })).catch((e) => e);
    expect(error).toMatchObject({ code: 'SPREAD_UNSORTED', message: expect.stringMatching(/line 3 .*not sorted by the table's key/) });
    const items = await scanTable(local.env, table);
    // k1 is never left at its older row.
    expect(items.filter((item) => item.id.S === 'k1').map((item) => item.v.S)).not.toContain('older');
  });

  it('names the range among whose keys an unsorted row\'s key lies, not the neighbour it passes (issue 35, defect 9)', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    // Three ranges of 50 rows: a.., m.., y..; range 3's 42nd row is a25, among range 1's keys, below range 2's.
    const third = Array.from({ length: 50 }, (_, i) => `y${String(i).padStart(2, '0')},v`);
    third.splice(41, 0, 'a25,v');
    third.pop();
    const rows = [...['a', 'm'].flatMap((letter) => Array.from({ length: 50 }, (_, i) => `${letter}${String(i).padStart(2, '0')},v`)), ...third];
    const key = 'spread/unsorted-among.csv';
    await local.s3.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: `id,v\n${rows.join('\n')}\n` }));
    const error = await handler(/** @type {any} */ ({ bucket: TEST_BUCKET, key, table, spread: 3 })).catch((e) => e);
    expect(error).toMatchObject({ code: 'SPREAD_UNSORTED', message: expect.stringMatching(/line 143 \(range 3 of 3\) lies among the keys range 1 has read/) });
  });

  it('reads a sorted JSON Lines file in 3 places within each of 2 shards, runs of one key across the cuts, and leaves its last rows', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'pk', type: 'N' }, sort: { name: 'sk', type: 'S' } });
    // 12 partition keys in numeric order (9 < 10 < 11), 40 sort keys each, every row of pk 2 three times (the last one wins).
    // The shards' cut falls after pk 2 (one key in two shards has no defined order: README); the spread cuts in it.
    const lines = [];
    for (let pk = 0; pk < 12; pk++) {
      for (let sk = 0; sk < 40; sk++) {
        for (let version = 0; version < (pk === 2 ? 3 : 1); version++) lines.push(JSON.stringify({ pk, sk: `s${String(sk).padStart(2, '0')}`, version }));
      }
    }
    const key = 'spread/sorted.jsonl';
    await upload(local.s3, key, `${lines.join('\n')}\n`);
    const summary = /** @type {any} */ (await handler(/** @type {any} */ ({ bucket: TEST_BUCKET, key, table, keyColumn: 'pk', sortKeyColumn: 'sk', spread: 3, shards: 2, concurrency: 4 })));
    // Older versions are either collapsed in a batch or written and overwritten: how many of each depends on the batches.
    expect(summary).toMatchObject({ balanced: true, rowsRead: lines.length, rejected: 0 });
    expect(summary.written + summary.duplicatesCollapsed).toBe(lines.length);
    const items = await scanAll(local.dynamodb, table);
    expect(items).toHaveLength(480);
    expect(items.filter((item) => item.pk.N === '2').every((item) => item.version.N === '2')).toBe(true);
  });

  it('does not hang when rows collapsed in the open batch sit behind one still in it (one call in flight)', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    // Each range reads a key of one row, then 30 rows of the next key: each of those replaces the one
    // before it in the open batch, so a range's rows on their way are mostly settled behind one that is not.
    const rows = [];
    for (let k = 0; k < 20; k += 2) {
      rows.push(`k${String(k).padStart(2, '0')},once`);
      for (let version = 0; version < 30; version++) rows.push(`k${String(k + 1).padStart(2, '0')},v${version}`);
    }
    const key = 'spread/collapsing.csv';
    await upload(local.s3, key, `id,v\n${rows.join('\n')}\n`);
    const summary = /** @type {any} */ (await handler(/** @type {any} */ ({ bucket: TEST_BUCKET, key, table, spread: 2, concurrency: 1 })));
    expect(summary).toMatchObject({ balanced: true, rowsRead: rows.length, written: 20, duplicatesCollapsed: rows.length - 20 });
    const items = await scanAll(local.dynamodb, table);
    expect(items.filter((item) => Number(String(item.id.S).slice(1)) % 2 === 1).every((item) => item.v.S === 'v29')).toBe(true);
  }, 20_000);

  it('says when a compressed file is read in one place, not spread', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    const key = 'spread/sorted.csv.gz';
    await upload(local.s3, key, gzipSync(`id,v\n${Array.from({ length: 50 }, (_, i) => `k${String(i).padStart(2, '0')},${i}`).join('\n')}\n`));
    const summary = /** @type {any} */ (await handler(/** @type {any} */ ({ bucket: TEST_BUCKET, key, table, spread: 4 })));
    expect(summary).toMatchObject({ balanced: true, written: 50, note: expect.stringMatching(/gzip-compressed.*read in one place, not 4 \(spread\)/) });
  });

  it('reads any order with generated keys (no two rows share one), and a file of a header alone', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
    const key = 'spread/generated.csv';
    const rows = Array.from({ length: 300 }, (_, i) => `${(i * 7919) % 300},v${i}`);
    await upload(local.s3, key, `n,v\n${rows.join('\n')}\n`);
    const summary = /** @type {any} */ (await handler(/** @type {any} */ ({ bucket: TEST_BUCKET, key, table, generateKey: true, spread: 4 })));
    expect(summary).toMatchObject({ balanced: true, rowsRead: 300, written: 300 });
    expect(await scanAll(local.dynamodb, table)).toHaveLength(300);

    const empty = 'spread/header-only.csv';
    await upload(local.s3, empty, 'id,v\n');
    const none = /** @type {any} */ (await handler(/** @type {any} */ ({ bucket: TEST_BUCKET, key: empty, table, spread: 4 })));
    expect(none).toMatchObject({ balanced: true, rowsRead: 0, written: 0 });
  });

  it('cuts UTF-16LE (a BOM, CRLF) and windows-1252 files where their records end, runs of one key across the cuts', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `k${String(Math.floor(i / 3)).padStart(4, '0')},v${i} é`);
    const files = [
      { key: 'spread/utf16.csv', body: Buffer.from(`\ufeffid,v\r\n${rows.join('\r\n')}\r\n`, 'utf16le'), options: { spread: 3 } },
      { key: 'spread/cp1252.csv', body: Buffer.from(`id,v\n${rows.join('\n')}\n`, 'latin1'), options: { spread: 5, encoding: 'windows-1252' } },
    ];
    for (const file of files) {
      const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
      await upload(local.s3, file.key, file.body);
      const summary = /** @type {any} */ (await handler(/** @type {any} */ ({ bucket: TEST_BUCKET, key: file.key, table, ...file.options })));
      expect(summary).toMatchObject({ balanced: true, rowsRead: 400, rejected: 0 });
      const items = await scanAll(local.dynamodb, table);
      expect(items).toHaveLength(134);
      // Each key's last row in the file wins.
      for (const item of items) expect(item.v.S).toBe(`v${Math.min(3 * Number(String(item.id.S).slice(1)) + 2, 399)} é`);
    }
  });

  it('refuses a checkpoint whose ranges are not cursors within their bounds', () => {
    const checkpoint = { jobId: 'j', etag: 'e', byte: 10, line: 2, header: ['id'], segments: 1, seconds: 1, reopens: 0, totals: { rowsRead: 1, written: 1, deleted: 0, rejected: 0, duplicatesCollapsed: 0, retries: 0, throttledItems: 0, throttledCalls: 0, transientErrors: 0, wcu: 1, calls: 1, rejectedByReason: {} }, rejectsObjects: [], rejectSample: [] };
    const ranges = [{ byte: 10, end: 20, stop: 22, line: 2, min: 'a', max: 'b' }, { byte: 25, end: 40, stop: 40, line: 4 }];
    expect(parseCheckpoint({ ...checkpoint, spread: { ranges } }, 'checkpoint').spread?.ranges).toHaveLength(2);
    for (const broken of [{ ranges: [] }, { ranges: [{ ...ranges[0], byte: 23 }] }, { ranges: [{ ...ranges[0], stop: undefined }] }, { ranges: [{ ...ranges[0], min: 7 }] }]) {
      expect(() => parseCheckpoint({ ...checkpoint, spread: broken }, 'checkpoint')).toThrow(/malformed checkpoint/);
    }
  });

  it('shares the rows on their way by the bytes each range has left, a call\'s 25 at least', () => {
    // Alike at the start; a range that fell behind on a hot partition gets more, one nearly done its 25.
    expect(shareRows([1_000, 1_000, 1_000, 1_000], 800)).toEqual([200, 200, 200, 200]);
    expect(shareRows([6_000, 2_000, 100], 800)).toEqual([593, 198, 25]);
    expect(shareRows([0, 500], 800)).toEqual([25, 800]);
  });
});

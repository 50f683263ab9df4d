/**
 * Keys that one spelling or one join would confuse (issue 35, defects 1 and 2), imported end to end: two
 * composite keys that a NUL join took for one, and one binary key written in two base64 spellings whose
 * first write is held back while the second is ready to go.
 */
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/handler.js';
import { resolveConfig } from '../../src/config/index.js';
import { scanTable } from '../oracle/differential.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { createTable, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';

const quiet = { info() {}, warn() {}, error() {} };

describe('keys that must not be confused', () => {
  const local = useLocalServers();
  const cleanup = useCleanups(local.env);

  /** @param {Record<string, unknown>} payload */
  async function importJob(payload) {
    return /** @type {Record<string, any>} */ (JSON.parse(JSON.stringify(await runJob(payload, resolveConfig(payload, process.env), undefined, { log: quiet }))));
  }

  it('writes both of two composite keys that differ only where a NUL stands (defect 1)', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'pk', type: 'S' }, sort: { name: 'sk', type: 'S' } });
    const rows = [
      { pk: 'a\u0000b', sk: 'c', v: 'first' },
      { pk: 'a', sk: 'b\u0000c', v: 'second' },
      { pk: '1:a', sk: 'b', v: 'third' },
      { pk: '1', sk: ':ab', v: 'fourth' },
    ];
    await upload(local.s3, 'collisions/nul.jsonl', rows.map((row) => JSON.stringify(row)).join('\n'));
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'collisions/nul.jsonl', table, keyColumn: 'pk', sortKeyColumn: 'sk' });
    expect({ written: summary.written, collapsed: summary.duplicatesCollapsed, balanced: summary.balanced }).toEqual({ written: 4, collapsed: 0, balanced: true });
    const items = (await scanTable(local.env, table)).map((item) => [item.pk.S, item.sk.S, item.v.S]).sort();
    expect(items).toEqual(rows.map((row) => [row.pk, row.sk, row.v]).sort());
  });

  it('rejects the one row a server cannot read (SerializationException) and writes the rest of its call (defect 8)', async () => {
    const table = await createTable(local.dynamodb);
    const rows = Array.from({ length: 40 }, (_, i) => `k${i},v${i}`);
    await upload(local.s3, 'collisions/serialization.csv', ['id,v', ...rows, ''].join('\n'));
    // As a server answers an item it cannot decode: the whole call refused, whatever else it holds.
    const proxy = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT, refuseItem: (request) => (request.PutRequest?.Item?.id?.S === 'k17' ? 'SerializationException' : undefined) });
    cleanup(() => proxy.stop());
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'collisions/serialization.csv', table });
    expect({ written: summary.written, rejected: summary.rejectedByReason, balanced: summary.balanced }).toEqual({ written: 39, rejected: { REJECTED_BY_TABLE: 1 }, balanced: true });
    expect(summary.rejectSample).toEqual([{ line: 19, reason: 'REJECTED_BY_TABLE' }]);
    expect(await scanTable(local.env, table)).toHaveLength(39);
  });

  it('keeps the later row of a binary key written two ways, even when the earlier row\'s call is held back (defect 2)', async () => {
    const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'B' } });
    // AQ== and AR== are both the byte 0x01. Forty keys between them put the two rows in two calls.
    const others = Array.from({ length: 40 }, (_, i) => `${Buffer.from([2, i]).toString('base64')},other`);
    await upload(local.s3, 'collisions/binary.csv', ['id,v', 'AQ==,first', ...others, 'AR==,second', ''].join('\n'));
    // The first call is never answered: the client gives it up after requestTimeoutMs and sends it again,
    // by which time the second call would long have been written, had it not waited for the first.
    const proxy = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT, hangCall: (call) => call === 1 });
    cleanup(() => proxy.stop());
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
    const summary = await importJob({ bucket: TEST_BUCKET, key: 'collisions/binary.csv', table, columnTypes: { id: 'B' }, requestTimeoutMs: 500, concurrency: 4, adaptiveConcurrency: false });
    expect({ written: summary.written, rejected: summary.rejected, balanced: summary.balanced }).toEqual({ written: 42, rejected: 0, balanced: true });
    expect(proxy.counts.hangs).toBe(1);
    const items = await scanTable(local.env, table);
    expect(items).toHaveLength(41);
    expect(items.find((item) => item.id.B === 'AQ==')?.v).toEqual({ S: 'second' });
  });
});

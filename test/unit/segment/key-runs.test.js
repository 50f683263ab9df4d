/**
 * Shard cuts moved off runs of one key (src/segment/key-runs.js), with the records read as a shard reads
 * them: every cut lands between two keys, and the searches together read the object once at most,
 * however long its runs or its stretches of rejected rows (issue 46; found by review: unbounded, the
 * searches read shards x the object).
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { cutsAtKeyRuns } from '../../../src/segment/key-runs.js';

const keys = { partition: { name: 'id', type: /** @type {const} */ ('S') } };

/**
 * The object's shards planned at equal bytes on line boundaries, as the planner's first cut does.
 * @param {string} csv @param {number} count
 */
function plannedShards(csv, count) {
  const bytes = Buffer.byteLength(csv);
  const headerEnd = csv.indexOf('\n') + 1;
  const shards = [];
  let start = headerEnd;
  for (let k = 1; k < count; k++) {
    const target = headerEnd + Math.ceil(((bytes - headerEnd) * k) / count);
    const cut = csv.indexOf('\n', target - 1) + 1;
    if (cut <= start || cut >= bytes) continue;
    shards.push({ index: shards.length, start, end: cut, line: csv.slice(0, start).split('\n').length - 1 });
    start = cut;
  }
  shards.push({ index: shards.length, start, end: bytes, line: csv.slice(0, start).split('\n').length - 1 });
  return shards;
}

/** Cuts moved, and the bytes the searches read. @param {string} csv @param {number} count @param {Record<string, unknown>} [options] */
async function cut(csv, count, options = {}) {
  const bytes = Buffer.from(csv);
  let read = 0;
  const reopen = async (/** @type {number} */ from) =>
    Readable.from(
      (function* () {
        for (let at = from; at < bytes.length; at += 4096) {
          const chunk = bytes.subarray(at, at + 4096);
          read += chunk.length;
          yield chunk;
        }
      })(),
    );
  const config = resolveConfig({ file: '/tmp/x.csv', table: 'People', ...options }, {});
  const result = await cutsAtKeyRuns(plannedShards(csv, count), { config, format: 'csv', header: ['id', 'v'], encoding: 'utf-8', etag: 'e', bytes: bytes.length, keysOf: async () => keys, reopen });
  return { shards: result.shards, read, bytes: bytes.length };
}

describe('shard cuts at key runs', () => {
  it('reads the object once at most when every row is rejected (no key ends a run), and joins it all into one shard', async () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => `k${i},not-a-number`);
    const { shards, read, bytes } = await cut(`id,v\n${rows.join('\n')}\n`, 16, { columnTypes: 'v:N' });
    expect(shards).toHaveLength(1);
    // Each search reads its shard, and a chunk of read-ahead past it.
    expect(read).toBeLessThan(bytes + 16 * 2 * 65_536);
  });

  it('moves every cut past the run at it, a run over several planned cuts included, reading each shard once', async () => {
    const rows = [];
    for (let k = 0; k < 400; k++) for (let v = 0; v < (k === 200 ? 4_000 : 20); v++) rows.push(`k${String(k).padStart(3, '0')},${v}`);
    const csv = `id,v\n${rows.join('\n')}\n`;
    const { shards, read, bytes } = await cut(csv, 12);
    expect(read).toBeLessThan(bytes + 12 * 2 * 65_536);
    // No key on both sides of any cut.
    for (const shard of shards.slice(1)) {
      const before = csv.slice(0, shard.start - 1).split('\n').at(-1)?.split(',')[0];
      const after = csv.slice(shard.start).split('\n')[0].split(',')[0];
      expect(after).not.toBe(before);
      expect(shard.line).toBe(csv.slice(0, shard.start).split('\n').length - 1);
    }
    // The run of k200 (4,000 rows, more than a planned shard) is in one shard.
    const holding = shards.filter((shard) => csv.slice(shard.start, shard.end).includes('\nk200,') || csv.slice(shard.start, shard.end).startsWith('k200,'));
    expect(holding).toHaveLength(1);
    expect(shards.length).toBeLessThan(12);
    expect(shards.length).toBeGreaterThan(4);
  });
});

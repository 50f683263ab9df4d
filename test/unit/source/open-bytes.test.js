// Where a segment starts decides whether its bytes are asked if they are compressed: only at the object's
// start. A continuation, a shard or a spread range that starts at a record beginning as a gzip or zstd
// stream does reads that record as it is written.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openBytes } from '../../../src/source/open-bytes.js';

const dir = mkdtempSync(path.join(tmpdir(), 'open-bytes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** @param {string} name @param {Buffer} contents @param {{ byte: number, gzip?: boolean }} at */
async function read(name, contents, { byte, gzip = false }) {
  const file = path.join(dir, name);
  writeFileSync(file, contents);
  const config = /** @type {Parameters<typeof openBytes>[1]} */ ({ file, bucket: undefined, key: undefined, versionId: undefined, readIdleTimeoutMs: 1000, maxReopens: 0 });
  const input = await openBytes(/** @type {any} */ (undefined), config, { byte, end: undefined, etag: undefined, gzip }, () => {});
  try {
    return { bytes: await buffer(input.body), compression: input.compression };
  } finally {
    input.close();
  }
}

describe('openBytes', () => {
  const header = Buffer.from('id,note\n');
  for (const { what, magic } of [
    { what: 'gzip', magic: Buffer.from([0x1f, 0x8b, 0x08, 0x00]) },
    { what: 'zstd', magic: Buffer.from([0x28, 0xb5, 0x2f, 0xfd]) },
  ]) {
    it(`reads a segment that starts at a record beginning as a ${what} stream does as it is`, async () => {
      const record = Buffer.concat([magic, Buffer.from('key,a note\n')]);
      const { bytes, compression } = await read(`${what}.csv`, Buffer.concat([header, record]), { byte: header.length });
      expect(compression).toBeUndefined();
      expect(bytes.equals(record)).toBe(true);
    });
  }

  it('still finds a compressed object at its start, and a continuation of one reads on in its decompressed bytes', async () => {
    const csv = Buffer.from('id,note\nk1,one\nk2,two\n');
    const whole = await read('whole.csv.gz', gzipSync(csv), { byte: 0 });
    expect(whole.compression).toBe('gzip');
    expect(whole.bytes.equals(csv)).toBe(true);
    const later = await read('later.csv.gz', gzipSync(csv), { byte: 15, gzip: true });
    expect(later.bytes.toString()).toBe('k2,two\n');
  });
});

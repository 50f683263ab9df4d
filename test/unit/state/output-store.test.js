import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryStore } from '../../../src/state/output-store.js';

describe('a directory store', () => {
  it('keeps every key inside its directory: an S3 key\'s "." and ".." segments are names', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'store-'));
    const store = directoryStore(path.join(dir, 'out'));
    expect(store.where('rejects/../../etc/x.csv/job/segment.csv')).toBe(path.join(dir, 'out', 'rejects', '%2E%2E', '%2E%2E', 'etc', 'x.csv', 'job', 'segment.csv'));
    expect(store.where('rejects/./a')).toBe(path.join(dir, 'out', 'rejects', '%2E', 'a'));
    await store.putJson('_imports/../status.json', { ok: true });
    expect(readdirSync(dir)).toEqual(['out']);
    expect(await store.getJson('_imports/../status.json')).toEqual({ ok: true });
  });
});

/**
 * The checkpoint file a stopped import leaves (src/cli/checkpoint-file.js) as an attacker would craft it
 * (issue 48): signed with a key of this user's, any field changed (where the rows go among them), an
 * earlier version's plain digest recomputed, or another user's key, is refused; the file and the key are
 * readable by their owner alone, and a key others may read is refused.
 */
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';

const home = mkdtempSync(path.join(tmpdir(), 'ddbload-config-'));
const saved = process.env.XDG_CONFIG_HOME;
/** @type {typeof import('../../../src/cli/checkpoint-file.js')} */
let files;

beforeAll(async () => {
  process.env.XDG_CONFIG_HOME = home;
  files = await import('../../../src/cli/checkpoint-file.js');
});
afterAll(() => {
  if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = saved;
});

/** A stopped import's checkpoint file, with its command. */
function stoppedFile() {
  const dir = mkdtempSync(path.join(tmpdir(), 'checkpoint-'));
  const config = resolveConfig({ file: path.join(dir, 'people.csv'), table: 'People', columnTypes: 'n:N' }, { DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' });
  const checkpoint = /** @type {import('../../../src/state/checkpoint.js').Checkpoint} */ ({ jobId: 'j', etag: 'e', byte: 10, line: 2, header: ['id', 'n'], segments: 1, seconds: 1, reopens: 0, totals: /** @type {any} */ ({ rowsRead: 1 }), rejectsObjects: [], rejectSample: [] });
  return files.writeCheckpointFile(checkpoint, config, { directory: dir, command: ['import', 'people.csv', '--table', 'People', '--endpoint-url', 'http://127.0.0.1:8000'] });
}

/** Every path to a leaf of a JSON value. @param {unknown} value @param {Array<string | number>} [at] @returns {Array<Array<string | number>>} */
function leaves(value, at = []) {
  if (value === null || typeof value !== 'object') return [at];
  const entries = Array.isArray(value) ? value.map((member, i) => /** @type {[number, unknown]} */ ([i, member])) : Object.entries(value);
  return entries.length === 0 ? [at] : entries.flatMap(([key, member]) => leaves(member, [...at, key]));
}

describe('checkpoint files', () => {
  it('are written readable by their owner alone, signed with a key of the user\'s (mode 0600 too), and read back', () => {
    const file = stoppedFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = path.join(home, 'ddbload', 'signing-key');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(key)).mode & 0o777).toBe(0o700);
    expect(files.readCheckpointFile(file)).toMatchObject({ table: 'People', endpoint: 'http://127.0.0.1:8000', checkpoint: { byte: 10 } });
  });

  it('refuse every field changed, whatever it is: where rows go, the command, the checkpoint', () => {
    const file = stoppedFile();
    const original = JSON.parse(readFileSync(file, 'utf8'));
    const paths = leaves(original).filter((at) => at[0] !== 'signature' && at[0] !== 'savedAt');
    expect(paths.length).toBeGreaterThan(20);
    for (const at of paths) {
      const changed = structuredClone(original);
      /** @type {any} */
      let parent = changed;
      for (const key of at.slice(0, -1)) parent = parent[key];
      const last = /** @type {string | number} */ (at.at(-1));
      const value = parent[last];
      parent[last] = typeof value === 'number' ? value + 1 : typeof value === 'string' ? `${value}x` : value === null ? 'http://attacker.example' : !value;
      writeFileSync(file, JSON.stringify(changed));
      expect(() => files.readCheckpointFile(file), `changed ${at.join('.')}`).toThrow(/its signature does not match/);
    }
    // A field added (another endpoint, say) is refused too.
    writeFileSync(file, JSON.stringify({ ...original, endpoint: 'http://attacker.example' }));
    expect(() => files.readCheckpointFile(file)).toThrow(/its signature does not match/);
  });

  it('refuse a file whose digest anyone can recompute (an earlier version\'s), and one without a signature', () => {
    const file = stoppedFile();
    const { savedAt, signature: _, ...body } = JSON.parse(readFileSync(file, 'utf8'));
    const forged = { ...body, endpoint: 'http://attacker.example' };
    writeFileSync(file, JSON.stringify({ ...forged, savedAt, digest: createHash('sha256').update(JSON.stringify(forged)).digest('hex') }));
    expect(() => files.readCheckpointFile(file)).toThrow(/written by an earlier ddbload, without a signature/);
    writeFileSync(file, JSON.stringify({ ...body, savedAt }));
    expect(() => files.readCheckpointFile(file)).toThrow(/its signature does not match/);
  });

  it('refuse a file signed with another user\'s key', async () => {
    const file = stoppedFile();
    const text = readFileSync(file, 'utf8');
    // Another user: another config directory, another key, in a fresh module.
    process.env.XDG_CONFIG_HOME = mkdtempSync(path.join(tmpdir(), 'ddbload-other-'));
    try {
      const { vi } = await import('vitest');
      vi.resetModules();
      const other = await import('../../../src/cli/checkpoint-file.js');
      writeFileSync(file, text);
      expect(() => other.readCheckpointFile(file)).toThrow(/written by another user or machine/);
    } finally {
      process.env.XDG_CONFIG_HOME = home;
    }
  });

  it('refuse to sign with a key others may read', async () => {
    const { vi } = await import('vitest');
    const dir = mkdtempSync(path.join(tmpdir(), 'ddbload-open-'));
    process.env.XDG_CONFIG_HOME = dir;
    try {
      vi.resetModules();
      const fresh = await import('../../../src/cli/signing-key.js');
      expect(fresh.signingKey()).toHaveLength(32);
      chmodSync(fresh.signingKeyFile(), 0o644);
      vi.resetModules();
      const again = await import('../../../src/cli/signing-key.js');
      expect(() => again.signingKey()).toThrow(/may be read or written by other users \(mode 644\): chmod 600/);
    } finally {
      process.env.XDG_CONFIG_HOME = home;
    }
  });
});

/**
 * The S3 emulator (s3rver), in-process on 127.0.0.1 and a free port, storing objects in a temporary
 * directory that is removed on stop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/** s3rver checks signatures against these fixed credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * @param {string[]} buckets  created at start
 * @returns {Promise<{ endpoint: string, stop: () => Promise<void> }>}
 */
export async function startS3Emulator(buckets) {
  const directory = mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (await server.run());
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

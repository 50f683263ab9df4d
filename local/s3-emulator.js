/**
 * The S3 emulator (s3rver), in-process on 127.0.0.1 and a free port, storing objects in a temporary
 * directory that is removed on stop.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, fstatSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
  replaceObjectsAtomically(server.store);
  const { port } = /** @type {import('node:net').AddressInfo} */ (await server.run());
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * s3rver rewrites an object's files in place, so a GET that overlaps a PUT of the same key (a job's
 * status object while its shard updates it) can read half-written metadata (an InternalError) or
 * send fewer bytes than the Content-Length it announced, and the client then waits until the server
 * drops the idle connection, about 6 s. S3 replaces an object atomically, and so does this store: a
 * PUT writes its files under a temporary name and renames them into place, and a GET whose length
 * came from another version than the file it opened reads again.
 * @param {any} store  s3rver's FilesystemStore
 */
function replaceObjectsAtomically(store) {
  let uploads = 0;
  /** @param {{ bucket: string, key: string, content: Buffer | import('node:stream').Readable, metadata: Record<string, string> }} object */
  store.putObject = async (object) => {
    const upload = `${object.key}.upload-${process.pid}-${++uploads}`;
    /** @param {string} key @param {string} resource */
    const pathOf = (key, resource) => store.getResourcePath(object.bucket, key, resource);
    // Named *._S3rver_upload, not *._S3rver_object, so that a listing never shows it.
    const written = [[pathOf(upload, 'upload'), pathOf(object.key, 'object')], [pathOf(upload, 'object.md5'), pathOf(object.key, 'object.md5')], [pathOf(upload, 'metadata.json'), pathOf(object.key, 'metadata.json')]];
    await mkdir(path.dirname(written[0][1]), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    const measure = new Transform({
      transform(chunk, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    try {
      await pipeline(content, measure, createWriteStream(written[0][0]));
      const digest = md5.digest('hex');
      await store.putMetadata(object.bucket, upload, object.metadata, digest);
      // The object last, so that a GET that reads its new bytes also reads their ETag.
      for (const [from, to] of written.reverse()) await rename(from, to);
      return { size, md5: digest };
    } catch (error) {
      await Promise.all(written.map(([from]) => rm(from, { force: true })));
      throw error;
    }
  };

  // A listing walks the bucket's directories as it finds them: one that another request's PUT or DELETE
  // makes or removes meanwhile fails it (an InternalError, seen with many tests writing to one bucket).
  // S3 lists consistently: a failed walk is walked again.
  const listObjects = store.listObjects.bind(store);
  /** @param {string} bucket @param {unknown} options */
  store.listObjects = async (bucket, options) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await listObjects(bucket, options);
      } catch (error) {
        if (attempt === 5) throw error;
      }
    }
  };

  const getObject = store.getObject.bind(store);
  /** @param {string} bucket @param {string} key @param {unknown} options */
  store.getObject = async (bucket, key, options) => {
    for (let attempt = 1; ; attempt++) {
      const object = await getObject(bucket, key, options);
      const stream = object?.content;
      if (stream?.fd == null || attempt === 5) return object;
      if (fstatSync(stream.fd).size === Number(object.metadata['content-length'])) return object;
      stream.destroy();
    }
  };
}

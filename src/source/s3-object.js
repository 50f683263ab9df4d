/**
 * The S3 object to import, as one byte stream that survives a stalled or broken connection: when no
 * bytes arrive for `idleTimeoutMs`, or the connection fails mid-body, the read is aborted and the object
 * re-opened at the next unread byte with a Range request pinned to the first ETag. A file replaced
 * mid-import fails with a SourceError instead of mixing two versions.
 */
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { describeError, SourceError, StallError } from '../errors.js';

/**
 * @typedef {object} Source
 * @property {Readable} body     bytes from `start` to `end`
 * @property {string} etag        the version being read
 * @property {number} contentLength  size of the whole object
 * @property {number} end         one past the last byte the body brings
 * @property {() => number} reopens  re-opens so far
 */

/**
 * @typedef {object} SourceOptions
 * @property {number} [start]          first byte to read (a continuation starts mid-object)
 * @property {number} [end]            one past the last byte to read (a shard ends mid-object); default: the end
 * @property {string} [etag]           the version to read; a different one fails
 * @property {string} [versionId]      the version to read, in a versioned bucket
 * @property {number} [idleTimeoutMs]  a body that sends nothing for this long is re-opened
 * @property {number} [maxReopens]     re-opens in a row without a new byte before giving up
 * @property {(event: { position: number, reopens: number, error: string }) => void} [onReopen]
 */

/**
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {string} bucket
 * @param {string} key
 * @param {SourceOptions} [options]
 * @returns {Promise<Source>}
 */
export async function openSource(s3, bucket, key, { start = 0, end, etag, versionId, idleTimeoutMs = 10_000, maxReopens = 5, onReopen } = {}) {
  const where = `s3://${bucket}/${key}`;
  let reopens = 0;
  /** @type {Awaited<ReturnType<typeof getObject>> | undefined} */
  let first;
  for (let failures = 1; first === undefined; failures++) {
    try {
      first = await getObject(s3, bucket, key, { start, end, etag, versionId, idleTimeoutMs });
    } catch (error) {
      if (error instanceof SourceError || failures > maxReopens) throw error;
      reopens++;
      onReopen?.({ position: start, reopens, error: describeError(error) });
    }
  }
  const opened = /** @type {Awaited<ReturnType<typeof getObject>>} */ (first);
  const pinned = etag ?? opened.etag;
  const size = opened.size;
  const last = Math.min(end ?? size, size);
  let position = start;

  async function* chunks() {
    /** @type {Readable | undefined} */
    let body = opened.body;
    let failuresInARow = 0;
    try {
      while (position < last) {
        const before = position;
        try {
          body ??= (await getObject(s3, bucket, key, { start: position, end, etag: pinned, versionId, idleTimeoutMs })).body;
          for await (const chunk of untilIdle(body, idleTimeoutMs)) {
            position += chunk.length;
            yield chunk;
          }
          if (position < last) throw new Error(`the body ended at byte ${position} of ${last}`);
        } catch (error) {
          if (error instanceof SourceError) throw error;
          body?.destroy();
          body = undefined;
          failuresInARow = position > before ? 1 : failuresInARow + 1;
          if (failuresInARow > maxReopens) {
            throw new SourceError(
              `reading ${where} failed ${failuresInARow} times in a row at byte ${position} of ${size} (last: ${describeError(error)}); ` +
                'check the bucket is reachable, then re-run the import (its writes are idempotent) or raise maxReopens',
              error,
            );
          }
          reopens++;
          onReopen?.({ position, reopens, error: describeError(error) });
        }
      }
    } finally {
      body?.destroy();
    }
  }

  return { body: Readable.from(chunks(), { objectMode: false }), etag: pinned, contentLength: size, end: last, reopens: () => reopens };
}

/**
 * Yields the body's chunks; fails with a StallError when a chunk takes longer than idleTimeoutMs to come.
 * The clock runs only while waiting for bytes, not while the consumer holds the stream back.
 * @param {Readable} body
 * @param {number} idleTimeoutMs
 * @returns {AsyncGenerator<Buffer>}
 */
async function* untilIdle(body, idleTimeoutMs) {
  const iterator = body[Symbol.asyncIterator]();
  for (;;) {
    const timer = setTimeout(() => body.destroy(new StallError(idleTimeoutMs)), idleTimeoutMs);
    let result;
    try {
      result = await iterator.next();
    } finally {
      clearTimeout(timer);
    }
    if (result.done) return;
    yield result.value;
  }
}

/**
 * One GetObject from `start` (to `end`, if given), pinned to `etag` when given. Its headers must come
 * within idleTimeoutMs.
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {string} bucket
 * @param {string} key
 * @param {{ start: number, end: number | undefined, etag: string | undefined, versionId: string | undefined, idleTimeoutMs: number }} at
 * @returns {Promise<{ body: Readable, etag: string, size: number }>}
 */
async function getObject(s3, bucket, key, { start, end, etag, versionId, idleTimeoutMs }) {
  const where = `s3://${bucket}/${key}`;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new StallError(idleTimeoutMs)), idleTimeoutMs);
  let output;
  try {
    output = await s3.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        // No Range from byte 0, so that an empty object reads as empty rather than failing with 416.
        Range: end !== undefined ? `bytes=${start}-${end - 1}` : start > 0 ? `bytes=${start}-` : undefined,
        IfMatch: etag === undefined ? undefined : `"${etag}"`,
        VersionId: versionId,
      }),
      { abortSignal: abort.signal },
    );
  } catch (error) {
    if (abort.signal.aborted) throw abort.signal.reason;
    const name = /** @type {Error} */ (error).name;
    if (name === 'NoSuchBucket') throw new SourceError(`bucket "${bucket}" does not exist; check the bucket name and region`, error);
    if (name === 'NoSuchKey') throw new SourceError(`object ${where} does not exist; check the key (it is case-sensitive)`, error);
    // A read of a version is s3:GetObjectVersion in IAM, which s3:GetObject does not grant.
    if (name === 'AccessDenied') throw new SourceError(`access denied to ${where}${versionId === undefined ? '' : ` (version ${versionId})`}; the function needs ${versionId === undefined ? 's3:GetObject' : 's3:GetObjectVersion'} on it`, error);
    if (name === 'PreconditionFailed') throw changed(where, etag, 'another version');
    if (name === 'InvalidRange') {
      // Nothing at or past `start`: the object's true size says whether that is its end or beyond it.
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId, IfMatch: etag === undefined ? undefined : `"${etag}"` }));
      return { body: Readable.from([]), etag: etag ?? etagOf(head), size: head.ContentLength ?? start };
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const body = /** @type {Readable} */ (output.Body);
  const found = etagOf(output);
  // Checked here too: not every S3-compatible server honours If-Match.
  if (etag !== undefined && found !== etag) {
    body.destroy();
    throw changed(where, etag, found);
  }
  const total = /\/(\d+)$/.exec(output.ContentRange ?? '')?.[1];
  return { body, etag: found, size: total !== undefined ? Number(total) : start + (output.ContentLength ?? 0) };
}

/**
 * An object's ETag without the quotes S3 puts around it: the version the import pins its reads to.
 * @param {{ ETag?: string }} output  a GetObject or HeadObject answer
 */
export const etagOf = (output) => (output.ETag ?? '').replaceAll('"', '');

/** @param {string} where @param {string | undefined} etag @param {string} found */
function changed(where, etag, found) {
  return new SourceError(
    `${where} was replaced during the import (ETag ${etag}, now ${found}); the rows read so far came from the old version. ` +
      'Re-run the import to load the new version (rows with the same key are overwritten)',
  );
}

/**
 * The rejects file: every row that will not be written, streamed as CSV to an object in the source
 * bucket (never held whole in memory): the row's line, a reason code, a message and its original fields.
 * The object is created on the first rejection; no rejects, no object. If the upload fails, the stream is
 * ended at once, a reader waiting for it to drain is woken, and the next write or close throws the
 * failure: an import never waits on an upload that has died.
 */
import { PassThrough } from 'node:stream';
import { AwsCallError } from '../errors.js';

/** @typedef {import('../types.js').Rejection} Rejection */

/**
 * @param {object} options
 * @param {import('@aws-sdk/client-s3').S3Client} options.s3
 * @param {string} options.bucket
 * @param {string} options.key          object to write
 * @param {() => string[] | undefined} options.header  the source's header, once known
 */
export function createRejectsWriter({ s3, bucket, key, header }) {
  /** @type {PassThrough | undefined} */
  let body;
  /** @type {Promise<unknown> | undefined} */
  let done;
  /** @type {AwsCallError | undefined} */
  let failure;
  /** @type {Promise<{ bucket: string, key: string, rows: number } | undefined> | undefined} */
  let closed;
  let rows = 0;

  function open() {
    const stream = new PassThrough({ highWaterMark: 1 << 20 });
    // lib-storage is loaded on the first rejection: most imports reject nothing. Writes wait in the stream meanwhile.
    done = import('@aws-sdk/lib-storage')
      .then(({ Upload }) => new Upload({ client: s3, params: { Bucket: bucket, Key: key, Body: stream, ContentType: 'text/csv; charset=utf-8' }, partSize: 8 << 20, queueSize: 2 }).done())
      .then(
        () => undefined,
        (error) => {
          failure = new AwsCallError(`write the rejects file s3://${bucket}/${key}`, error, 's3:PutObject on it');
          stream.destroy(); // wakes a reader waiting for 'drain' (lib-storage may have destroyed it already)
        },
      );
    stream.write(csvLine(['line', 'reason', 'message', ...(header() ?? [])]));
    return stream;
  }

  /** The upload's end: rejects with its failure. */
  const uploadEnded = () => /** @type {Promise<unknown>} */ (done).then(() => {
    if (failure !== undefined) throw failure;
  });

  /** Resolves when the stream drains; when it is destroyed (the upload failed), rejects with the failure. @param {PassThrough} stream */
  function drainOf(stream) {
    // Destroyed already (its 'close' may have been emitted): its failure is known once lib-storage gives up.
    if (stream.destroyed) return uploadEnded();
    return new Promise((resolve, reject) => {
      const settle = () => {
        stream.off('drain', settle);
        stream.off('close', settle);
        (stream.destroyed ? uploadEnded() : Promise.resolve()).then(resolve, reject);
      };
      stream.on('drain', settle);
      stream.on('close', settle);
    });
  }

  return {
    /** @param {Rejection} rejection */
    write(rejection) {
      if (failure !== undefined) throw failure;
      body ??= open();
      rows++;
      body.write(csvLine([String(rejection.line), rejection.reason, rejection.message, ...rejection.fields]));
    },

    /** True while the upload is behind (or has failed); the reader should wait for `drained()`. */
    backlogged: () => failure !== undefined || (body !== undefined && (body.writableNeedDrain || body.destroyed)),

    /** @returns {Promise<void>} */
    drained: () => {
      if (failure !== undefined) return Promise.reject(failure);
      if (body === undefined || !(body.writableNeedDrain || body.destroyed)) return Promise.resolve();
      return drainOf(body);
    },

    /**
     * Ends the object. Resolves to its location and row count, or undefined if nothing was rejected.
     * Throws the upload's failure, every time it is called.
     * @returns {Promise<{ bucket: string, key: string, rows: number } | undefined>}
     */
    close() {
      closed ??= (async () => {
        if (body === undefined) return undefined;
        body.end();
        await done;
        if (failure !== undefined) throw failure;
        return { bucket, key, rows };
      })();
      return closed;
    },
  };
}

/**
 * One CSV line: fields with a comma, quote or line break are quoted, quotes doubled.
 * @param {string[]} fields
 */
export function csvLine(fields) {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (i > 0) line += ',';
    line += /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
  }
  return `${line}\n`;
}

/**
 * The rejects file: every row that will not be written, streamed as CSV to an object in the source
 * bucket (never held whole in memory): the row's line, a reason code, a message and its original fields.
 * The object is created on the first rejection; no rejects, no object.
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
  /** @type {unknown} */
  let failure;
  let rows = 0;

  function open() {
    const stream = new PassThrough({ highWaterMark: 1 << 20 });
    // lib-storage is loaded on the first rejection: most imports reject nothing. Writes wait in the stream meanwhile.
    done = import('@aws-sdk/lib-storage')
      .then(({ Upload }) => new Upload({ client: s3, params: { Bucket: bucket, Key: key, Body: stream, ContentType: 'text/csv; charset=utf-8' }, partSize: 8 << 20, queueSize: 2 }).done())
      .catch((error) => {
        failure = error;
        stream.resume(); // keep accepting writes so the import is not held up; close() reports the failure
      });
    stream.write(csvLine(['line', 'reason', 'message', ...(header() ?? [])]));
    return stream;
  }

  return {
    /** @param {Rejection} rejection */
    write(rejection) {
      body ??= open();
      rows++;
      body.write(csvLine([String(rejection.line), rejection.reason, rejection.message, ...rejection.fields]));
    },

    /** True while the upload is behind; the reader should wait for `drained()`. */
    backlogged: () => body !== undefined && body.writableNeedDrain,

    /** @returns {Promise<void>} */
    drained: () => (body === undefined || !body.writableNeedDrain ? Promise.resolve() : new Promise((resolve) => body?.once('drain', () => resolve(undefined)))),

    /**
     * Ends the object. Resolves to its location and row count, or undefined if nothing was rejected.
     * @returns {Promise<{ bucket: string, key: string, rows: number } | undefined>}
     */
    async close() {
      if (body === undefined) return undefined;
      body.end();
      await done;
      if (failure !== undefined) throw new AwsCallError(`write the rejects file s3://${bucket}/${key}`, failure, 's3:PutObject on it');
      return { bucket, key, rows };
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

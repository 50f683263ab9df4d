/**
 * The S3 object to import, as a byte stream.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';

export class SourceError extends Error {
  /** @param {string} message @param {unknown} [cause] */
  constructor(message, cause) {
    super(message, { cause });
    this.name = 'SourceError';
  }
}

/**
 * @typedef {object} Source
 * @property {import('node:stream').Readable} body
 * @property {string} etag
 * @property {number} contentLength
 */

/**
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {string} bucket
 * @param {string} key
 * @returns {Promise<Source>}
 */
export async function openSource(s3, bucket, key) {
  let output;
  try {
    output = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  } catch (error) {
    const name = /** @type {Error} */ (error).name;
    if (name === 'NoSuchBucket') throw new SourceError(`bucket "${bucket}" does not exist; check the bucket name and region`, error);
    if (name === 'NoSuchKey') throw new SourceError(`object s3://${bucket}/${key} does not exist; check the key (it is case-sensitive)`, error);
    if (name === 'AccessDenied') throw new SourceError(`access denied to s3://${bucket}/${key}; the function needs s3:GetObject on it`, error);
    throw error;
  }
  return {
    body: /** @type {import('node:stream').Readable} */ (output.Body),
    etag: (output.ETag ?? '').replaceAll('"', ''),
    contentLength: output.ContentLength ?? 0,
  };
}

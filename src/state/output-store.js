/**
 * Where a job writes what it leaves beside the table (its plan, status objects, hand-over rows and rejects
 * files), by key: an S3 bucket (the Lambda, an import of an S3 object) or a directory (an import of a local
 * file, whose rejects and status go next to it). The keys are the same in both (object-keys.js).
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { AwsCallError, JobError } from '../errors.js';

/**
 * @typedef {object} OutputStore
 * @property {(key: string) => string} where  how a person finds the object: s3://bucket/key, or a file path
 * @property {(key: string) => Promise<any>} getJson  undefined when there is no such object
 * @property {(key: string) => Promise<string | undefined>} getText  undefined when there is no such object
 * @property {(key: string, value: unknown) => Promise<void>} putJson
 * @property {(key: string, contentType: string, what: string) => Upload} upload  a stream written to the object as it comes; `what` names it in errors
 */

/**
 * @typedef {object} Upload
 * @property {import('node:stream').Writable} stream
 * @property {Promise<void>} done  settles once the object is whole, or rejects with what went wrong (the stream
 *   is destroyed then, which wakes a writer waiting for it to drain)
 */

/**
 * The store of an import: `outputDir`, else the directory of a local file, else the output bucket.
 * @param {Pick<import('../config/index.js').ImportConfig, 'file' | 'outputDir' | 'outputBucket'>} config
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @returns {OutputStore}
 */
export function outputStoreFor(config, s3) {
  if (config.outputDir !== undefined) return directoryStore(config.outputDir);
  if (config.file !== undefined) return directoryStore(path.dirname(config.file));
  return bucketStore(s3, /** @type {string} */ (config.outputBucket));
}

/**
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {string} bucket
 * @returns {OutputStore}
 */
export function bucketStore(s3, bucket) {
  const where = (/** @type {string} */ key) => `s3://${bucket}/${key}`;
  return {
    where,
    getJson: (key) => getJsonWithRetry(s3, bucket, key),
    getText: (key) => getTextOnce(s3, bucket, key),
    async putJson(key, value) {
      try {
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify(value, null, 1), ContentType: 'application/json' }));
      } catch (error) {
        throw new AwsCallError(`write s3://${bucket}/${key}`, error, 's3:PutObject on it');
      }
    },
    upload(key, contentType, what) {
      const stream = new PassThrough({ highWaterMark: 1 << 20 });
      // lib-storage is loaded on the first upload: most imports reject nothing. Writes wait in the stream meanwhile.
      const done = import('@aws-sdk/lib-storage')
        .then(({ Upload }) => new Upload({ client: s3, params: { Bucket: bucket, Key: key, Body: stream, ContentType: contentType }, partSize: 8 << 20, queueSize: 2 }).done())
        .then(
          () => undefined,
          (error) => {
            stream.destroy();
            throw new AwsCallError(`write ${what} ${where(key)}`, error, 's3:PutObject on it');
          },
        );
      return { stream, done };
    },
  };
}

/**
 * @param {string} directory
 * @returns {OutputStore}
 */
export function directoryStore(directory) {
  // A key's "." and ".." segments (an S3 key may hold them) are names here, not steps out of the directory.
  const where = (/** @type {string} */ key) => path.join(directory, ...key.split('/').map((part) => (part === '.' || part === '..' ? part.replaceAll('.', '%2E') : part)));
  return {
    where,
    async getText(key) {
      try {
        return await readFile(where(key), 'utf8');
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return undefined;
        throw new JobError(`cannot read ${where(key)}: ${/** @type {Error} */ (error).message}`, { cause: error });
      }
    },
    async getJson(key) {
      const text = await this.getText(key);
      return text === undefined ? undefined : parseStatusJson(text, where(key));
    },
    async putJson(key, value) {
      const file = where(key);
      // Written whole, then renamed over the old one: a reader never sees half a status.
      const partial = `${file}.${process.pid}.partial`;
      try {
        await mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIRECTORY });
        await writeFile(partial, JSON.stringify(value, null, 1), { mode: PRIVATE_FILE });
        await rename(partial, file);
      } catch (error) {
        throw new JobError(`cannot write ${file}: ${/** @type {Error} */ (error).message}; check the directory is writable, or name another with --output-dir`, { cause: error });
      }
    },
    upload(key, _contentType, what) {
      const file = where(key);
      const stream = new PassThrough({ highWaterMark: 1 << 20 });
      const done = (async () => {
        try {
          await mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIRECTORY });
          const out = createWriteStream(file, { mode: PRIVATE_FILE });
          stream.pipe(out);
          await finished(out);
        } catch (error) {
          stream.destroy();
          throw new JobError(`cannot write ${what} ${file}: ${/** @type {Error} */ (error).message}; check the directory is writable, or name another with --output-dir`, { cause: error });
        }
      })();
      return { stream, done };
    },
  };
}

/**
 * A local job's records hold rows (rejects, rows handed over) and where they go: readable by their owner
 * alone, as a checkpoint file is. A directory the user made keeps its own mode.
 */
const PRIVATE_FILE = 0o600;
const PRIVATE_DIRECTORY = 0o700;

/**
 * An S3-compatible store that does not swap objects atomically (s3rver as it comes) can show a status
 * object half written, or cut its body short, while a shard replaces it: read it again.
 * @param {import('@aws-sdk/client-s3').S3Client} s3 @param {string} bucket @param {string} key
 */
async function getJsonWithRetry(s3, bucket, key) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await getJsonOnce(s3, bucket, key);
    } catch (error) {
      if (attempt === 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** @param {import('@aws-sdk/client-s3').S3Client} s3 @param {string} bucket @param {string} key */
async function getJsonOnce(s3, bucket, key) {
  const text = await getTextOnce(s3, bucket, key);
  return text === undefined ? undefined : parseStatusJson(text, `s3://${bucket}/${key}`);
}

/** @param {import('@aws-sdk/client-s3').S3Client} s3 @param {string} bucket @param {string} key */
async function getTextOnce(s3, bucket, key) {
  let output;
  try {
    output = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  } catch (error) {
    if (/** @type {Error} */ (error).name === 'NoSuchKey') return undefined;
    throw new AwsCallError(`read s3://${bucket}/${key}`, error, 's3:GetObject and s3:ListBucket on the bucket to read job status');
  }
  try {
    return (await output.Body?.transformToString('utf8')) ?? '';
  } catch (error) {
    throw new AwsCallError(`read s3://${bucket}/${key} to its end`, error);
  }
}

/** @param {string} text @param {string} where */
function parseStatusJson(text, where) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new JobError(`${where} is not JSON; it is written by the importer and should not be edited`, { cause: error });
  }
}

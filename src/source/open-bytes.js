/**
 * The bytes one segment reads: the object (or local file) from a byte on (re-opened at the next unread byte when the read
 * stalls or breaks, s3-object.js), decompressed when it is gzip- or zstd-compressed (compression.js). A
 * compressed stream cannot be entered mid-way, so a segment of a compressed object reads it from its start
 * and drops the decompressed bytes before its own.
 */
import { decompressed } from './compression.js';
import { sourceWhere } from './source-name.js';
import { openFileSource } from './file-object.js';
import { openSource } from './s3-object.js';

/**
 * The source's raw bytes: the S3 object's, or the local file's.
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {Pick<import('../config/index.js').ImportConfig, 'bucket' | 'key' | 'file' | 'versionId' | 'readIdleTimeoutMs' | 'maxReopens'>} config
 * @param {{ start?: number, end?: number, etag?: string, onReopen?: (event: { position: number, reopens: number, error: string }) => void }} at
 */
export function openRawSource(s3, config, { start, end, etag, onReopen }) {
  if (config.file !== undefined) return openFileSource(config.file, { start, end, etag });
  return openSource(s3, /** @type {string} */ (config.bucket), /** @type {string} */ (config.key), {
    start,
    end,
    etag,
    versionId: config.versionId,
    idleTimeoutMs: config.readIdleTimeoutMs,
    maxReopens: config.maxReopens,
    onReopen,
  });
}

/**
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {Pick<import('../config/index.js').ImportConfig, 'bucket' | 'key' | 'file' | 'versionId' | 'readIdleTimeoutMs' | 'maxReopens'>} config
 * @param {object} at
 * @param {number} at.byte      first byte to read: of the object, or of the decompressed stream when `gzip`
 * @param {number | undefined} at.end  one past the last byte of the object to read
 * @param {string | undefined} at.etag  the version to read
 * @param {boolean} at.gzip     the object is known to be compressed, gzip or zstd (a continuation of a compressed import)
 * @param {(event: { position: number, reopens: number, error: string }) => void} onReopen
 */
export async function openBytes(s3, config, { byte, end, etag, gzip }, onReopen) {
  const source = await openRawSource(s3, config, { start: gzip ? 0 : byte, end, etag, onReopen });
  // Only an object's first bytes tell whether it is compressed. A segment that starts further on in an
  // uncompressed object (a continuation, a shard, a spread range) reads its bytes as they are, even when a
  // record there begins as a gzip or zstd stream does; and it keeps no stage of its own for the question.
  const input = gzip || byte === 0 ? await decompressed(source.body, { skip: gzip ? byte : 0, where: sourceWhere(config) }) : { body: source.body, compression: undefined };
  return {
    source,
    /** The file's records' bytes, decompressed. */
    body: input.body,
    compression: input.compression,
    /** Compressed: bytes count in the decompressed stream, and it cannot be entered mid-way. */
    gzip: input.compression !== undefined,
    close() {
      input.body.destroy();
      source.body.destroy();
    },
  };
}

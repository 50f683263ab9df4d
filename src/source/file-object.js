/**
 * A local file to import, as the same Source an S3 object gives (s3-object.js): a byte stream from an
 * offset to an end, and a version to pin the reads to. A file's version is its size and modification time,
 * so a continuation (or a `--resume`) of a file that was changed since fails instead of mixing two versions.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { SourceError } from '../errors.js';

/**
 * @param {string} file  absolute path
 * @param {{ start?: number, end?: number, etag?: string }} [options]
 * @returns {Promise<import('./s3-object.js').Source>}
 */
export async function openFileSource(file, { start = 0, end, etag } = {}) {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    throw new SourceError(code === 'ENOENT' ? `${file} does not exist; check the path` : `${file} cannot be read (${code}); check its permissions`, error);
  }
  if (!info.isFile()) throw new SourceError(`${file} is not a file; name the file to import`);
  const version = fileVersion(info);
  if (etag !== undefined && etag !== version) {
    throw new SourceError(`${file} was changed since the import started (version ${etag}, now ${version}); the rows read so far came from the old contents. Import it again from its start (rows with the same key are overwritten)`);
  }
  const last = Math.min(end ?? info.size, info.size);
  const body = start >= last ? Readable.from([]) : createReadStream(file, { start, end: last - 1, highWaterMark: 256 * 1024 });
  return { body, etag: version, contentLength: info.size, end: last, reopens: () => 0 };
}

/** @param {import('node:fs').Stats} info */
const fileVersion = (info) => `${info.size}-${Math.trunc(info.mtimeMs)}`;

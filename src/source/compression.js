/**
 * The file's bytes as its records are written: as stored, or decompressed when the object is gzip- or
 * zstd-compressed (found by its magic bytes, whatever its name or Content-Encoding says). A compressed
 * stream cannot be entered mid-way, so a continuation of a compressed import reads from the start again
 * and drops the bytes already done.
 *
 * zstd is read by fzstd on every Node.js, not by Node 22's zlib: on 22.20, createZstdDecompress stops after
 * a file's first frame (files written in parts, or by multi-threaded zstd, hold several) and ends without
 * an error on a file cut short, so rows would be lost without a word. fzstd reads every frame and fails on
 * a cut file, fast enough (docs/design/items.md).
 */
import { Decompress } from 'fzstd';
import { createGunzip } from 'node:zlib';
import { Readable, Transform } from 'node:stream';
import { SourceError } from '../errors.js';

/** @typedef {'gzip' | 'zstd'} Compression */

/** @param {Buffer | undefined} chunk */
const isGzip = (chunk) => chunk !== undefined && chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b;

/**
 * A zstd frame's magic number, 0xFD2FB528, or a skippable frame's, 0x184D2A50 to 0x184D2A5F (pzstd starts
 * its files with one), little-endian.
 * @param {Buffer | undefined} chunk
 */
const isZstd = (chunk) =>
  chunk !== undefined && chunk.length >= 4 && ((chunk[0] === 0x28 && chunk[1] === 0xb5 && chunk[2] === 0x2f && chunk[3] === 0xfd) || ((chunk[0] & 0xf0) === 0x50 && chunk[1] === 0x2a && chunk[2] === 0x4d && chunk[3] === 0x18));

/** @param {Buffer | undefined} first  the object's first bytes @returns {Compression | undefined} */
export const compressionOf = (first) => (isGzip(first) ? 'gzip' : isZstd(first) ? 'zstd' : undefined);

/**
 * Reads the first chunk of a stream (at least `bytes` of it, when the stream has them); returns it and a
 * stream of the whole.
 * @param {Readable} body
 * @param {number} [bytes]
 * @returns {Promise<{ first: Buffer | undefined, body: Readable }>}
 */
export async function peek(body, bytes = 1) {
  const iterator = body[Symbol.asyncIterator]();
  /** @type {Buffer[]} */
  const head = [];
  let length = 0;
  let ended = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    length += next.value.length;
  }
  const first = head.length === 0 ? undefined : Buffer.concat(head);
  /** @param {Buffer | undefined} start  a parameter, dropped once yielded: the stream does not keep it to its end */
  async function* whole(start) {
    try {
      if (start !== undefined) yield start;
      start = undefined;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      body.destroy();
    }
  }
  return { first, body: Readable.from(whole(first), { objectMode: false }) };
}

/**
 * @param {Readable} body  the object's bytes from byte 0 when it may be compressed
 * @param {{ skip: number, where?: string }} options  skip: decompressed bytes to drop (already imported by earlier segments)
 * @returns {Promise<{ compression: Compression | undefined, body: Readable }>}
 */
export async function decompressed(body, { skip, where = 'the file' }) {
  const peeked = await peek(body, 4);
  const compression = compressionOf(peeked.first);
  if (compression === undefined) return { compression, body: peeked.body };
  const inflate = compression === 'gzip' ? createGunzip() : zstdStream(where);
  forward(peeked.body, inflate);
  if (skip === 0) return { compression, body: inflate };
  const dropper = dropFirst(skip);
  forward(inflate, dropper);
  return { compression, body: dropper };
}

/**
 * fzstd's streaming decompressor as a Transform: every frame of the stream (a file may hold several, one after another).
 * @param {string} where
 */
function zstdStream(where) {
  /** @type {Transform} */
  let stream;
  const decompress = new Decompress((chunk) => {
    // fzstd may reuse its window's memory for the next block: the bytes are copied before they are handed on.
    stream.push(Buffer.from(chunk));
  });
  /** @param {unknown} error */
  const failed = (error) => new SourceError(`${where} starts as zstd but cannot be decompressed (${error instanceof Error ? error.message : String(error)}): it is damaged or cut short; upload it again`, error);
  stream = new Transform({
    transform(chunk, _encoding, done) {
      try {
        decompress.push(chunk);
        done();
      } catch (error) {
        done(failed(error));
      }
    },
    flush(done) {
      try {
        decompress.push(new Uint8Array(0), true);
        done();
      } catch (error) {
        done(failed(error));
      }
    },
  });
  return stream;
}

/** Pipes `from` into `to`, and fails `to` when `from` fails. @param {Readable} from @param {import('node:stream').Writable & Readable} to */
function forward(from, to) {
  from.on('error', (error) => to.destroy(error));
  to.on('close', () => from.destroy());
  from.pipe(to);
}

/** @param {number} count */
function dropFirst(count) {
  let left = count;
  return new Transform({
    transform(chunk, _encoding, done) {
      if (left >= chunk.length) {
        left -= chunk.length;
        return done();
      }
      const rest = left > 0 ? chunk.subarray(left) : chunk;
      left = 0;
      done(null, rest);
    },
  });
}

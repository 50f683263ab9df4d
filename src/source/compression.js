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
import { createFrameWalker } from './zstd-frames.js';
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
  /** @type {Readable} */
  let inflate;
  if (compression === 'gzip') {
    const gunzip = createGunzip();
    forward(peeked.body, gunzip);
    inflate = gunzip;
  } else {
    inflate = zstdReadable(peeked.body, where);
  }
  if (skip === 0) return { compression, body: inflate };
  const dropper = dropFirst(skip);
  forward(inflate, dropper);
  return { compression, body: dropper };
}

/**
 * The compressed bytes fed to fzstd a slice at a time, and a slice only when the reader wants more: a
 * slice's blocks (at most 128 KB each) are what is ever held beyond the reader's buffer, however far the
 * stream expands. Each frame's window is checked before fzstd sees it (zstd-frames.js), and a stream
 * that expands past MAX_RATIO times its compressed bytes is refused.
 * @param {Readable} source  the compressed bytes
 * @param {string} where
 * @returns {Readable}
 */
function zstdReadable(source, where) {
  const input = source[Symbol.asyncIterator]();
  const frames = createFrameWalker();
  /** @type {Buffer} */
  let chunk = Buffer.alloc(0);
  let at = 0;
  let compressedBytes = 0;
  let decompressedBytes = 0;
  /** @type {Readable} */
  let out;
  const decompress = new Decompress((data) => {
    decompressedBytes += data.length;
    // fzstd may reuse its window's memory for the next block: the bytes are copied before they are handed on.
    out.push(Buffer.from(data));
  });
  /** @param {unknown} error */
  const damaged = (error) => new SourceError(`${where} starts as zstd but cannot be decompressed (${error instanceof Error ? error.message : String(error)}): it is damaged or cut short; upload it again`, error);
  out = new Readable({
    async read() {
      try {
        // Slices until one gives the reader bytes (a slice of a block's middle gives none) or the stream ends.
        for (;;) {
          if (at === chunk.length) {
            const next = await input.next();
            if (next.done) {
              try {
                decompress.push(new Uint8Array(0), true);
              } catch (error) {
                throw damaged(error);
              }
              out.push(null);
              return;
            }
            chunk = next.value;
            at = 0;
          }
          const slice = chunk.subarray(at, at + ZSTD_SLICE_BYTES);
          at += slice.length;
          compressedBytes += slice.length;
          const refusal = frames.take(slice);
          if (refusal !== undefined) throw new SourceError(`${where} cannot be read: ${refusal.error} (zstd's own default limit); recompress it without --long past 27 or --ultra, or as gzip`);
          const before = decompressedBytes;
          try {
            decompress.push(slice);
          } catch (error) {
            throw damaged(error);
          }
          if (decompressedBytes > MAX_RATIO * compressedBytes + RATIO_ALLOWANCE_BYTES) {
            throw new SourceError(`${where} expands more than ${MAX_RATIO.toLocaleString('en-US')} times (${compressedBytes.toLocaleString('en-US')} bytes into ${decompressedBytes.toLocaleString('en-US')} so far): no CSV or JSON file compresses so, it is a decompression bomb or damaged; upload the file as it was written`);
          }
          if (decompressedBytes > before) return;
        }
      } catch (error) {
        out.destroy(/** @type {Error} */ (error));
      }
    },
    destroy(error, done) {
      source.destroy();
      done(error);
    },
  });
  return out;
}

/** Compressed bytes fed to fzstd at a time: a slice's worst case is some 340 blocks of 128 KB (all RLE). */
const ZSTD_SLICE_BYTES = 1024;

/**
 * How far a zstd stream may expand, past its first RATIO_ALLOWANCE_BYTES: CSV and JSON Lines compress some
 * 5 to 50 times, a file of one row repeated some hundreds; a bomb many thousands (62,746 bytes into 2 GB).
 */
const MAX_RATIO = 2_000;
const RATIO_ALLOWANCE_BYTES = 64 * 1024 * 1024;

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

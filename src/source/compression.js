/**
 * The CSV bytes of a source: as stored, or gunzipped when the object is gzip-compressed (found by its
 * magic bytes, whatever its name or Content-Encoding says). A gzip stream cannot be entered mid-way, so
 * a continuation of a compressed import reads from the start again and drops the bytes already done.
 */
import { Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** @param {Buffer | undefined} chunk */
export const isGzip = (chunk) => chunk !== undefined && chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b;

/**
 * Reads the first chunk of a stream; returns it and a stream of the whole.
 * @param {Readable} body
 * @returns {Promise<{ first: Buffer | undefined, body: Readable }>}
 */
export async function peek(body) {
  const iterator = body[Symbol.asyncIterator]();
  const head = await iterator.next();
  const first = head.done ? undefined : /** @type {Buffer} */ (head.value);
  async function* whole() {
    try {
      if (first !== undefined) yield first;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      body.destroy();
    }
  }
  return { first, body: Readable.from(whole(), { objectMode: false }) };
}

/**
 * @param {Readable} body  the object's bytes from byte 0 when it may be compressed
 * @param {{ skip: number }} options  decompressed bytes to drop (already imported by earlier segments)
 * @returns {Promise<{ gzip: boolean, body: Readable }>}
 */
export async function csvBytes(body, { skip }) {
  const peeked = await peek(body);
  if (!isGzip(peeked.first)) return { gzip: false, body: peeked.body };
  const gunzip = createGunzip();
  forward(peeked.body, gunzip);
  if (skip === 0) return { gzip: true, body: gunzip };
  const dropper = dropFirst(skip);
  forward(gunzip, dropper);
  return { gzip: true, body: dropper };
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

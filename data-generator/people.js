/**
 * Realistic person rows as CSV, streamed with backpressure to a file or straight to S3: what
 * `ddbload generate` (and `node data-generator/generate.js`) writes, and the bench and tests generate.
 */
import { createWriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';



const FIRST = ['James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth', 'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen', 'Amara', 'Chen', 'Sofia', 'Mateo', 'Aisha', 'Yuki', 'Lars', 'Ingrid', 'Ravi', 'Priya', 'Kwame', 'Zoë', 'José', 'Léa', 'Mohammed', 'Olga'];
const LAST = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Nguyen', 'Kowalski', 'Müller', "O'Brien", 'Okafor', 'Tanaka', 'Svensson', 'Patel', 'Ivanova', 'Dubois'];
const DOMAINS = ['example.com', 'mail.test', 'inbox.example', 'post.example.org'];
export const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'ES', 'IT', 'NL', 'SE', 'PL', 'IE', 'IN', 'JP', 'CN', 'BR', 'MX', 'CA', 'AU', 'NG', 'ZA', 'KE'];
export const HEADER = 'id,first_name,last_name,email,phone,national_id,birth_date,country,balance,active\n';

const ROWS_PER_CHUNK = 2_000;
/** Far more than the longest row (about 160 bytes), so a chunk's buffer never overflows. */
const MAX_ROW_BYTES = 256;

// Rows are written byte by byte into a buffer from pre-encoded fields: building them as strings made
// the generator spend most of its time formatting and collecting garbage (15 s and 110 MB for 3M rows).
const ASCII = (/** @type {string} */ text) => text.charCodeAt(0);
const [COMMA, DASH, DOT, AT, NEWLINE, ZERO] = [',', '-', '.', '@', '\n', '0'].map(ASCII);
const HEX_DIGITS = Buffer.from('0123456789abcdef');
const utf8 = (/** @type {string} */ text) => Buffer.from(text, 'utf8');
const FIRST_FIELD = FIRST.map(utf8);
const LAST_FIELD = LAST.map((name) => utf8(name.includes("'") ? `"${name}"` : name));
const FIRST_EMAIL = FIRST.map((name) => utf8(name.toLowerCase()));
const LAST_EMAIL = LAST.map((name) => utf8(name.toLowerCase().replace("'", '')));
const DOMAIN_BYTES = DOMAINS.map(utf8);
const COUNTRY_BYTES = COUNTRIES.map(utf8);
const PHONE_PREFIX = utf8('+1-');
const PHONE_GROUPS = [3, 3, 4]; // +1-555-010-0199
const NATIONAL_ID_GROUPS = [3, 2, 4]; // 123-45-6789
const POWERS_OF_TEN = [1, 10, 100, 1000, 10_000];
const [TRUE, FALSE] = [utf8('true'), utf8('false')];

/**
 * mulberry32: a small, fast 32-bit PRNG; good enough for test data, repeatable from a seed.
 * @param {number} seed
 */
function prng(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** PRNG draws per row, at most (20 today), so that disjointSeed can space files apart. */
const DRAWS_PER_ROW = 32;

/**
 * The seed of part `part` of a set of files of `rows` rows each, such that no two parts share a row:
 * mulberry32's state only advances by a constant, so each part starts where the previous part's draws
 * would end (up to 2^32 draws in all, about 130 million rows).
 * @param {number} seed @param {number} part 0-based @param {number} rows rows per part
 */
export function disjointSeed(seed, part, rows) {
  if ((part + 1) * rows * DRAWS_PER_ROW > 2 ** 32) throw new Error(`${part + 1} parts of ${rows} rows are more than one PRNG cycle can keep apart`);
  return (seed + Math.imul(part * rows * DRAWS_PER_ROW, 0x6d2b79f5)) >>> 0;
}

/**
 * Rows as CSV, UTF-8, in chunks of ROWS_PER_CHUNK whole rows (the header first, alone).
 * @param {{ rows: number, seed: number, sorted: boolean }} options
 * @returns {Generator<Buffer>}
 */
export function* csvChunks({ rows, seed, sorted }) {
  const next = prng(seed);
  /** @type {Buffer} */
  let buffer = Buffer.alloc(0);
  let at = 0;

  /** @param {Uint8Array} bytes */
  const put = (bytes) => {
    for (let k = 0; k < bytes.length; k++) buffer[at++] = bytes[k];
  };
  /** @param {number} value @param {number} width zero-padded to this many digits */
  const putPadded = (value, width) => {
    for (let k = width - 1; k >= 0; k--) {
      buffer[at + k] = ZERO + (value % 10);
      value = Math.floor(value / 10);
    }
    at += width;
  };
  /** Random zero-padded digit groups joined by dashes, a draw each. @param {number[]} widths */
  const putDigitGroups = (widths) => {
    for (let g = 0; g < widths.length; g++) {
      if (g > 0) buffer[at++] = DASH;
      putPadded(next() % POWERS_OF_TEN[widths[g]], widths[g]);
    }
  };
  /** @param {number} value a whole number, at least 0 */
  const putNumber = (value) => putPadded(value, value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : value < 10_000 ? 4 : value < 100_000 ? 5 : Math.floor(Math.log10(value)) + 1);
  /** @param {number} word @param {number} bytes the first (high) this many bytes of a 32-bit word, as hex */
  const putHex = (word, bytes) => {
    for (let shift = 28; shift > 28 - 8 * bytes; shift -= 4) buffer[at++] = HEX_DIGITS[(word >>> shift) & 15];
  };
  /** A version 4 UUID: 122 random bits, the version nibble 4, the variant bits 10. */
  const putUuid = () => {
    const a = next();
    const b = next();
    const c = next();
    const d = next();
    putHex(a, 4);
    buffer[at++] = DASH;
    putHex(b, 2);
    buffer[at++] = DASH;
    putHex(((0x40 | ((b >>> 8) & 15)) << 24) | ((b & 255) << 16), 2);
    buffer[at++] = DASH;
    putHex(((0x80 | ((c >>> 24) & 63)) << 24) | (c & 0xff0000), 2);
    buffer[at++] = DASH;
    putHex(c << 16, 2);
    putHex(d, 4);
  };

  yield Buffer.from(HEADER);
  for (let i = 0; i < rows; i++) {
    if (at === 0) buffer = Buffer.allocUnsafe(Math.min(ROWS_PER_CHUNK, rows - i) * MAX_ROW_BYTES);
    const first = next() % FIRST.length;
    const last = next() % LAST.length;
    // Sorted: country-major order, each country an equal share of the rows.
    const country = sorted ? Math.floor((i * COUNTRIES.length) / rows) : next() % COUNTRIES.length;
    const month = 1 + (next() % 12);
    const day = 1 + (next() % 28);
    const cents = next() % 10_000_000;
    putUuid();
    buffer[at++] = COMMA;
    put(FIRST_FIELD[first]);
    buffer[at++] = COMMA;
    put(LAST_FIELD[last]);
    buffer[at++] = COMMA;
    put(FIRST_EMAIL[first]);
    buffer[at++] = DOT;
    put(LAST_EMAIL[last]);
    putNumber(next() % 1000);
    buffer[at++] = AT;
    put(DOMAIN_BYTES[next() % DOMAINS.length]);
    buffer[at++] = COMMA;
    put(PHONE_PREFIX);
    putDigitGroups(PHONE_GROUPS);
    buffer[at++] = COMMA;
    putDigitGroups(NATIONAL_ID_GROUPS);
    buffer[at++] = COMMA;
    putNumber(1940 + (next() % 66));
    buffer[at++] = DASH;
    putPadded(month, 2);
    buffer[at++] = DASH;
    putPadded(day, 2);
    buffer[at++] = COMMA;
    put(COUNTRY_BYTES[country]);
    buffer[at++] = COMMA;
    putNumber(Math.floor(cents / 100));
    buffer[at++] = DOT;
    putPadded(cents % 100, 2);
    buffer[at++] = COMMA;
    put(next() % 2 === 0 ? TRUE : FALSE);
    buffer[at++] = NEWLINE;
    if ((i + 1) % ROWS_PER_CHUNK === 0 || i + 1 === rows) {
      yield buffer.subarray(0, at);
      at = 0;
    }
  }
}

/**
 * Writes the rows to a stream, waiting for it to drain when its buffer is full.
 * @param {import('node:stream').Writable} out
 * @param {{ rows: number, seed: number, sorted: boolean }} options
 * @param {(rowsWritten: number) => void} [onProgress]
 */
export async function writeCsv(out, options, onProgress) {
  let chunks = -1;
  for (const chunk of csvChunks(options)) {
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
    chunks++;
    if (chunks > 0 && chunks % 25 === 0) onProgress?.(Math.min(chunks * ROWS_PER_CHUNK, options.rows));
  }
  out.end();
  await finished(out);
}

/**
 * Uploads what `write` writes into the stream it is given, as a multipart upload (8 MB parts, two in
 * flight), so memory stays flat whatever the size.
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {string} bucket
 * @param {string} key
 * @param {(body: import('node:stream').Writable) => Promise<unknown>} write  must end the stream
 */
export async function uploadStream(s3, bucket, key, write) {
  // Loaded only for uploads: the SDK is most of this program's memory, and a file needs none of it.
  const { Upload } = await import('@aws-sdk/lib-storage');
  const body = new PassThrough({ highWaterMark: 1 << 20 });
  const upload = new Upload({ client: s3, params: { Bucket: bucket, Key: key, Body: body, ContentType: 'text/csv' }, partSize: 8 << 20, queueSize: 2 });
  await Promise.all([write(body), upload.done()]);
}

/**
 * Writes the rows to a file, stdout ("-") or S3, with progress on stderr unless quiet.
 * @param {{ rows: number, seed: number, sorted?: boolean, quiet?: boolean, out?: string, bucket?: string, key?: string }} args
 */
export async function generate(args) {
  const started = performance.now();
  const target = args.bucket !== undefined ? `s3://${args.bucket}/${args.key}` : (args.out ?? 'people.csv');
  const progress = (/** @type {number} */ done) => {
    if (args.quiet) return;
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`\r${done.toLocaleString('en-US')} / ${args.rows.toLocaleString('en-US')} rows (${Math.round((100 * done) / Math.max(args.rows, 1))}%) ${seconds.toFixed(1)} s`);
  };
  const options = { rows: args.rows, seed: args.seed, sorted: args.sorted === true };

  if (args.bucket !== undefined) {
    const { S3Client } = await import('@aws-sdk/client-s3');
    const s3 = new S3Client({ endpoint: process.env.S3_ENDPOINT, forcePathStyle: process.env.S3_ENDPOINT !== undefined });
    await uploadStream(s3, args.bucket, args.key ?? 'imports/people.csv', (body) => writeCsv(body, options, progress));
    s3.destroy();
  } else {
    const out = target === '-' ? process.stdout : createWriteStream(target);
    await writeCsv(out, options, progress);
  }
  if (!args.quiet) {
    process.stderr.write(`\nwrote ${args.rows.toLocaleString('en-US')} rows to ${target} in ${((performance.now() - started) / 1000).toFixed(1)} s (seed ${args.seed})\n`);
  }
}

/**
 * Decompression bombs (issue 48): zstd and gzip streams, honest and with crafted headers, read through
 * the source's decompression stage (src/source/compression.js) as a segment reads them. Each is refused
 * or read in bounded memory and time: the stage decompresses only as fast as its reader reads, a zstd
 * frame whose window passes zstd's default limit is refused before any memory is reserved for it, and a
 * zstd stream that expands past its ratio limit is refused.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decompressed } from '../../../src/source/compression.js';
import { createFrameWalker, MAX_WINDOW_BYTES } from '../../../src/source/zstd-frames.js';

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/**
 * An honest zstd frame of `blocks` RLE blocks of 128 KB of one byte each: 4 bytes a block, so a few
 * kilobytes that expand a thousand times and more. Window 128 KB.
 * @param {number} blocks @param {number} [byte]
 */
function rleBomb(blocks, byte = 0x61) {
  const bytes = [...MAGIC, 0x00, 7 << 3];
  for (let i = 0; i < blocks; i++) {
    const last = i === blocks - 1 ? 1 : 0;
    const header = ((128 * 1024) << 3) | (1 << 1) | last;
    bytes.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, byte);
  }
  return Buffer.from(bytes);
}

/** Reads a stream to its end, dropping the bytes; the peak RSS growth while it ran. @param {Readable} body */
async function drain(body) {
  const before = process.memoryUsage().rss;
  let peak = before;
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  return { bytes, growthMiB: (peak - before) / 2 ** 20 };
}

/** The decompression stage over these bytes, in chunks of 64 KB, as S3 gives them. @param {Buffer} bytes */
const stageOf = async (bytes) => (await decompressed(Readable.from([...chunksOf(bytes, 65_536)]), { skip: 0, where: 's3://b/bomb.csv' })).body;

/** @param {Buffer} bytes @param {number} size */
function* chunksOf(bytes, size) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('decompression bombs', () => {
  it('a crafted zstd header claiming a 2 GB window is refused before any memory is reserved (the reference tool refuses it too)', async () => {
    // Magic, no single segment, window descriptor exponent 21 (2^31 bytes), then a raw block of one byte.
    const crafted = Buffer.from([...MAGIC, 0x00, 21 << 3, 0x09, 0x00, 0x00, 0x61]);
    expect(crafted).toHaveLength(10);
    const failure = await drain(await stageOf(crafted)).catch((error) => error);
    expect(failure).toMatchObject({ code: 'SOURCE_UNREADABLE', message: expect.stringMatching(/s3:\/\/b\/bomb\.csv cannot be read: a zstd frame asks for a window of 2,048 MiB, past the 128 MiB/) });
  });

  it('a single-segment zstd frame whose content size claims 2 GB is refused as its window', async () => {
    // Descriptor: single segment, 4-byte content size 0x7fffffff.
    const crafted = Buffer.from([...MAGIC, 0xa0, 0xff, 0xff, 0xff, 0x7f, 0x09, 0x00, 0x00, 0x61]);
    const failure = await drain(await stageOf(crafted)).catch((error) => error);
    expect(String(failure?.message)).toMatch(/a window of 2,048 MiB/);
  });

  it('an honest zstd bomb (64 KB into 2 GB) is refused at its ratio limit, in bounded memory', async () => {
    const bomb = rleBomb(16_384);
    expect(bomb.length).toBeLessThan(70_000);
    const started = performance.now();
    let peak = process.memoryUsage().rss;
    const before = peak;
    let bytes = 0;
    const failure = await (async () => {
      for await (const chunk of await stageOf(bomb)) {
        bytes += chunk.length;
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    })().catch((error) => error);
    expect(failure).toMatchObject({ code: 'SOURCE_UNREADABLE', message: expect.stringMatching(/expands more than 2,000 times .*: no CSV or JSON file compresses so, it is a decompression bomb/) });
    // Refused after some 190 MB of output (2,000 times the bytes read, past the first 64 MiB), read at the reader's pace.
    expect(bytes).toBeLessThan(300 * 2 ** 20);
    expect((peak - before) / 2 ** 20).toBeLessThan(256);
    expect(performance.now() - started).toBeLessThan(60_000);
  });

  it('a zstd stream expanding within its limit is read whole at the reader\'s pace, memory flat', async () => {
    // 2,000 blocks: 8 KB into 250 MB, within 2,000 times past the allowance? No: 64 MiB + 2,000 x 8 KB = 80 MB. 400 blocks: 50 MB.
    const { bytes, growthMiB } = await drain(await stageOf(rleBomb(400)));
    expect(bytes).toBe(400 * 128 * 1024);
    expect(growthMiB).toBeLessThan(128);
  });

  it('a gzip bomb (256 MB of zeros, 250 KB) is read at the reader\'s pace, memory flat: gzip cannot pass some 1,032 times', async () => {
    const bomb = gzipSync(Buffer.alloc(256 * 2 ** 20), { level: 9 });
    expect(bomb.length).toBeLessThan(300_000);
    const { bytes, growthMiB } = await drain(await stageOf(bomb));
    expect(bytes).toBe(256 * 2 ** 20);
    expect(growthMiB).toBeLessThan(128);
  });

  it('the frame walker reads every frame\'s window, skippable frames and checksums between them', () => {
    const walker = createFrameWalker();
    const skippable = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    // A frame with a checksum (descriptor bit 2): its last block, then 4 bytes.
    const withChecksum = Buffer.from([...MAGIC, 0x04, 7 << 3, 0x0b, 0x00, 0x00, 0x61, 1, 2, 3, 4]);
    const tooWide = Buffer.from([...MAGIC, 0x00, 18 << 3, 0x09, 0x00, 0x00, 0x61]);
    for (const byte of Buffer.concat([skippable, withChecksum, rleBomb(3)])) expect(walker.take(Buffer.from([byte]))).toBeUndefined();
    expect(walker.take(tooWide)).toMatchObject({ windowBytes: 2 ** 28 });
    expect(MAX_WINDOW_BYTES).toBe(2 ** 27);
  });
});

/**
 * The frames of a zstd stream, walked as its bytes come (RFC 8878, section 3.1): each frame's header is
 * read before the decompressor sees it, and a frame whose window passes the limit is refused, as the
 * reference `zstd` tool refuses it ("Frame requires too much memory"). A decompressor reserves the window a
 * frame's header claims (up to about 2 GB, or a single-segment frame's whole content): a 10-byte header
 * must not take the function's memory. Skippable frames (pzstd's) are passed over; blocks are counted past
 * by their headers, without decoding.
 */

/** zstd's own default limit for decompression: windowLog 27. */
export const MAX_WINDOW_BYTES = 128 * 1024 * 1024;

const ZSTD_MAGIC = 0xfd2fb528;

/**
 * @typedef {{ error: string, windowBytes: number }} WindowRefusal
 */

/**
 * A walker over the stream's bytes: `take(chunk)` returns a refusal at the first frame whose window passes
 * `maxWindowBytes`, else undefined. Unknown bytes where a frame should start are left to the decompressor,
 * which says what is wrong.
 * @param {{ maxWindowBytes?: number }} [options]
 */
export function createFrameWalker({ maxWindowBytes = MAX_WINDOW_BYTES } = {}) {
  /** Header bytes of the frame or block under way, held across chunks. @type {number[]} */
  let held = [];
  /** 'frame': a frame (or skippable frame) starts; 'header': a zstd frame's header; 'block': a block header; 'skip': bytes passed over. */
  let state = /** @type {'frame' | 'header' | 'block' | 'skip' | 'lost'} */ ('frame');
  let skip = 0;
  let headerBytes = 0;
  let checksum = false;
  /** After the bytes skipped: a block header, or a frame (the frame's last block, its checksum). */
  let afterSkip = /** @type {'block' | 'frame'} */ ('frame');

  /** @param {Buffer} chunk @returns {WindowRefusal | undefined} */
  function take(chunk) {
    let at = 0;
    while (at < chunk.length && state !== 'lost') {
      if (state === 'skip') {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        if (skip === 0) state = afterSkip;
        continue;
      }
      held.push(chunk[at++]);
      if (state === 'frame') {
        if (held.length < 4) continue;
        const magic = (held[0] | (held[1] << 8) | (held[2] << 16) | (held[3] << 24)) >>> 0;
        if (magic === ZSTD_MAGIC) {
          state = 'header';
          headerBytes = 0;
        } else if (magic >>> 4 === 0x184d2a5) {
          if (held.length < 8) continue;
          skip = (held[4] | (held[5] << 8) | (held[6] << 16) | (held[7] << 24)) >>> 0;
          held = [];
          afterSkip = 'frame';
          state = skip === 0 ? 'frame' : 'skip';
        } else {
          state = 'lost';
        }
        continue;
      }
      if (state === 'header') {
        // Magic (4), descriptor, [window descriptor], [dictionary id], [content size].
        if (held.length === 5) {
          const descriptor = held[4];
          const single = (descriptor >> 5) & 1;
          const dictionaryBytes = [0, 1, 2, 4][descriptor & 3];
          const sizeBytes = [single, 2, 4, 8][descriptor >> 6];
          checksum = ((descriptor >> 2) & 1) === 1;
          headerBytes = 5 + (single ? 0 : 1) + dictionaryBytes + sizeBytes;
        }
        if (held.length < headerBytes || headerBytes === 0) continue;
        const windowBytes = windowOf(held);
        if (windowBytes > maxWindowBytes) return { windowBytes, error: `a zstd frame asks for a window of ${mib(windowBytes)} MiB, past the ${mib(maxWindowBytes)} MiB a file is decompressed with` };
        held = [];
        state = 'block';
        continue;
      }
      // A block header: 3 bytes, little-endian: last block (bit 0), type (bits 1-2), size (bits 3-23).
      if (held.length < 3) continue;
      const header = held[0] | (held[1] << 8) | (held[2] << 16);
      held = [];
      const last = (header & 1) === 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      skip = type === 1 ? 1 : size;
      if (last) skip += checksum ? 4 : 0;
      afterSkip = last ? 'frame' : 'block';
      state = skip === 0 ? afterSkip : 'skip';
    }
    return undefined;
  }
  return { take };
}

/**
 * A zstd frame's window, from its header (magic included): the window descriptor's, or a single-segment
 * frame's content size.
 * @param {number[]} header
 */
function windowOf(header) {
  const descriptor = header[4];
  const single = (descriptor >> 5) & 1;
  if (!single) {
    const exponent = header[5] >> 3;
    const base = 2 ** (10 + exponent);
    return base + (base / 8) * (header[5] & 7);
  }
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3];
  const sizeBytes = [1, 2, 4, 8][descriptor >> 6];
  let size = 0;
  for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + header[5 + dictionaryBytes + i];
  return sizeBytes === 2 ? size + 256 : size;
}

/** @param {number} bytes */
const mib = (bytes) => Math.ceil(bytes / (1024 * 1024)).toLocaleString('en-US');

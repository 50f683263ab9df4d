/**
 * How a file's bytes are read as text, decided once per job from the `encoding` option and, with 'auto'
 * (the default), the file's byte order mark. The first segment (or the shard planner) decides; every
 * later segment and every shard is handed the answer, since only the file's start has the mark.
 */
import { HeaderError } from '../../errors.js';

/** @typedef {import('../../config/values.js').EncodingOption} EncodingOption */
/** @typedef {import('../../config/values.js').Encoding} Encoding */

/** Bytes that must be seen at the file's start before the encoding can be decided (a UTF-32 BOM's). */
export const ENCODING_PROBE_BYTES = 4;

/**
 * The encoding of a file that starts with `first` (at least ENCODING_PROBE_BYTES of it, or all of a
 * shorter file), and the length of the byte order mark to skip.
 * @param {EncodingOption} option
 * @param {Uint8Array} first
 * @returns {{ encoding: Encoding, bom: number }}
 */
export function decideEncoding(option, first) {
  const utf8Bom = first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf;
  const utf16leBom = first[0] === 0xff && first[1] === 0xfe;
  if (option === 'auto') {
    if (first[0] === 0xfe && first[1] === 0xff) {
      throw new HeaderError('the file is UTF-16BE (its byte order mark says so), which is not read; save it as UTF-8 or UTF-16LE and import it again');
    }
    if (utf16leBom && first[2] === 0 && first[3] === 0) {
      throw new HeaderError('the file is UTF-32LE (its byte order mark says so), which is not read; save it as UTF-8 or UTF-16LE and import it again');
    }
    if (utf16leBom) return { encoding: 'utf-16le', bom: 2 };
    return { encoding: 'utf-8', bom: utf8Bom ? 3 : 0 };
  }
  if (option === 'utf-8') return { encoding: option, bom: utf8Bom ? 3 : 0 };
  if (option === 'utf-16le') return { encoding: option, bom: utf16leBom ? 2 : 0 };
  return { encoding: option, bom: 0 };
}

/** Bytes per code unit: what a record scanner steps by. @param {Encoding} encoding */
export const unitBytes = (encoding) => (encoding === 'utf-16le' ? 2 : 1);

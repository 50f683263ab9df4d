/**
 * The JSON Lines record reader on its own: line numbers, byte offsets, blank lines, CRLF, the byte order
 * mark of the file's first line only, lines that are not UTF-8 or too long.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLineParser } from '../../../src/records/json-lines.js';
import { MAX_RECORD_BYTES } from '../../../src/records/record-size.js';

/** Every row the reader gives for these bytes, fed in chunks of `chunk` bytes. @param {Buffer} bytes @param {number} chunk */
async function rowsOf(bytes, chunk) {
  const reader = createLineParser({});
  const chunks = [];
  for (let at = 0; at < bytes.length; at += chunk) chunks.push(bytes.subarray(at, at + chunk));
  Readable.from(chunks).pipe(reader.input);
  const rows = [];
  for await (const output of reader.parser) rows.push(reader.toRow(output));
  return rows;
}

describe('the JSON Lines reader', () => {
  it('gives each line with its number and the bytes up to its end, whatever the chunks', async () => {
    const bytes = Buffer.from('\ufeff{"a":1}\r\n\n  \n{"b":"é"}\n{"c":3}');
    for (const chunk of [1, 2, 5, 1000]) {
      expect(await rowsOf(bytes, chunk)).toEqual([
        { fields: ['{"a":1}'], line: 1, endByte: 12 },
        { fields: ['{"b":"é"}'], line: 4, endByte: 27 },
        { fields: ['{"c":3}'], line: 5, endByte: 34 },
      ]);
    }
  });

  it('rejects a line that is not UTF-8 or too long by its line, and drops a byte order mark only at the file\'s start', async () => {
    const long = Buffer.alloc(MAX_RECORD_BYTES + 10, 0x61);
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const bytes = Buffer.concat([long, Buffer.from('\n'), bom, Buffer.from('{"x":1}\n{"y":"'), Buffer.from([0xfc]), Buffer.from('"}\n')]);
    const rows = await rowsOf(bytes, 64 * 1024);
    expect(rows.map((row) => [row.line, row.fields === undefined ? row.reason : row.fields[0]])).toEqual([
      [1, 'RECORD_TOO_LARGE'],
      // The first line was too long: the second's U+FEFF is a character of its own, kept (and JSON refuses it).
      [2, '\ufeff{"x":1}'],
      [3, 'INVALID_UTF8'],
    ]);
  });
});

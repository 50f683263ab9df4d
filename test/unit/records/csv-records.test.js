import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRecordParser } from '../../../src/records/csv/csv-records.js';

/**
 * @param {string | Buffer | Buffer[]} text  chunks, to cut sequences and records at chunk ends
 * @param {string} [delimiter] @param {import('../../../src/records/csv/text-encoding.js').EncodingOption} [encoding]
 */
async function rows(text, delimiter = ',', encoding = 'utf-8') {
  const { input, parser, toRow } = createRecordParser({ delimiter, encoding });
  Readable.from(Array.isArray(text) ? text : [text]).pipe(input);
  const out = [];
  for await (const output of parser) {
    const row = toRow(output);
    out.push(row.fields === undefined ? { line: row.line, reason: row.reason, endByte: row.endByte } : { line: row.line, fields: row.fields, endByte: row.endByte });
  }
  return out.map(({ endByte: _, ...row }) => row);
}

/** Every way to cut `bytes` in two. @param {Buffer} bytes */
const cuts = (bytes) => Array.from({ length: bytes.length + 1 }, (_, at) => [bytes.subarray(0, at), bytes.subarray(at)]);

describe('createRecordParser', () => {
  it('numbers records by the line they start on, past empty lines and quoted newlines', async () => {
    const text = 'id,note\n1,plain\n\n2,"two\nlines"\n3,"a, ""quoted"" comma"\n\n\n4,last';
    expect(await rows(text)).toEqual([
      { line: 1, fields: ['id', 'note'] },
      { line: 2, fields: ['1', 'plain'] },
      { line: 4, fields: ['2', 'two\nlines'] },
      { line: 6, fields: ['3', 'a, "quoted" comma'] },
      { line: 9, fields: ['4', 'last'] },
    ]);
  });

  it('reports malformed records in order and goes on', async () => {
    const text = 'id,a\n1,x\n2,x,extra\n3,x\n4\n5,y\n';
    expect(await rows(text)).toEqual([
      { line: 1, fields: ['id', 'a'] },
      { line: 2, fields: ['1', 'x'] },
      { line: 3, reason: 'FIELD_COUNT' },
      { line: 4, fields: ['3', 'x'] },
      { line: 5, reason: 'FIELD_COUNT' },
      { line: 6, fields: ['5', 'y'] },
    ]);
  });

  it('counts a CRLF inside a quoted field as one line break', async () => {
    const text = 'id,a\r\n1,"x\r\ny\r\nz"\r\n2,x,extra\r\n3,"p\rq"\r\n4,x\r\n';
    expect(await rows(text)).toEqual([
      { line: 1, fields: ['id', 'a'] },
      { line: 2, fields: ['1', 'x\r\ny\r\nz'] },
      { line: 5, reason: 'FIELD_COUNT' },
      { line: 6, fields: ['3', 'p\rq'] },
      { line: 8, fields: ['4', 'x'] },
    ]);
  });

  it('strips a UTF-8 BOM, reads CRLF and a custom delimiter', async () => {
    const text = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id;name\r\n1;Zoë\r\n')]);
    expect(await rows(text, ';')).toEqual([
      { line: 1, fields: ['id', 'name'] },
      { line: 2, fields: ['1', 'Zoë'] },
    ]);
  });

  it('rejects a stray opening quote as its own line, and reads the rows after it as the file has them', async () => {
    // The case: the quote on line 2 is never closed where it should be; the quote of line 1003
    // would have closed it, taking the 1,000 lines between into one field of one item.
    let text = 'id,name,city\n1,"Ann,Paris\n';
    for (let i = 2; i <= 1_001; i++) text += `${i},Name ${i},Town\n`;
    text += '1002,Zed "the" Last,Rome\n';
    const out = await rows(text);
    expect(out[1]).toEqual({ line: 2, reason: 'MALFORMED_CSV' });
    expect(out.slice(2).map((row) => row.line)).toEqual(Array.from({ length: 1_001 }, (_, i) => i + 3));
    expect(out.at(-1)).toEqual({ line: 1_003, fields: ['1002', 'Zed "the" Last', 'Rome'] });
  });

  it('rejects a quoted field closed by a quote followed by other text, and goes on at the next line', async () => {
    const text = 'id,a\n1,"x"y\n2,"multi\nline"z\n3,ok\n4,"fine"\n';
    expect(await rows(text)).toEqual([
      { line: 1, fields: ['id', 'a'] },
      { line: 2, reason: 'MALFORMED_CSV' },
      { line: 3, reason: 'MALFORMED_CSV' },
      { line: 4, reason: 'FIELD_COUNT' }, // the rest of line 3's record, 'line"z', read as a line of its own
      { line: 5, fields: ['3', 'ok'] },
      { line: 6, fields: ['4', 'fine'] },
    ]);
  });

  it('keeps quotes inside an unquoted field as written', async () => {
    expect(await rows('id,h\n1,5\'11"\n2,say "hi"\n')).toEqual([
      { line: 1, fields: ['id', 'h'] },
      { line: 2, fields: ['1', '5\'11"'] },
      { line: 3, fields: ['2', 'say "hi"'] },
    ]);
  });

  it('rejects a record past 1 MiB (an unclosed quote, a line with no end) and reads on', async () => {
    const huge = 'x'.repeat((1 << 20) + 10);
    expect(await rows(`id,a\n1,${huge}\n2,ok\n3,"${huge}\n4,ok\n`)).toEqual([
      { line: 1, fields: ['id', 'a'] },
      { line: 2, reason: 'RECORD_TOO_LARGE' },
      { line: 3, fields: ['2', 'ok'] },
      { line: 4, reason: 'RECORD_TOO_LARGE' },
      { line: 5, fields: ['4', 'ok'] },
    ]);
  });

  it('rejects a record with bytes that are not UTF-8, unless the encoding says how to read them', async () => {
    const text = Buffer.concat([Buffer.from('id,name\n1,M'), Buffer.from([0xfc]), Buffer.from('ller\n2,Zo\u00eb\n3,"a\nb'), Buffer.from([0xc3]), Buffer.from('"\n4,ok\n')]);
    const expected = [
      { line: 1, fields: ['id', 'name'] },
      { line: 2, reason: 'INVALID_UTF8' },
      { line: 3, fields: ['2', 'Zoë'] },
      { line: 4, reason: 'INVALID_UTF8' },
      { line: 6, fields: ['4', 'ok'] },
    ];
    // However the chunks cut the bytes, multi-byte sequences included.
    for (const [head, tail] of cuts(text)) expect(await rows([head, tail])).toEqual(expected);
    const latin = Buffer.concat([Buffer.from('id,name\n1,M'), Buffer.from([0xfc]), Buffer.from('ller '), Buffer.from([0x80]), Buffer.from('\n')]);
    expect((await rows(latin, ',', 'windows-1252'))[1]).toEqual({ line: 2, fields: ['1', 'Müller €'] });
    expect((await rows(latin, ',', 'latin1'))[1]).toEqual({ line: 2, fields: ['1', 'Müller \u0080'] });
  });

  it('reads UTF-16LE by its byte order mark, by code units, however chunks cut the units, and rejects broken pairs', async () => {
    // U+2C22 is the bytes 22 2C (a quote, a comma), U+0A0D the bytes 0D 0A (a line break), read byte by byte.
    const text = 'id,name\r\n1,"Zo\u00eb, \u2c22\u0a0d ""x"""\r\n2,a"b\n3,"x"y\n4,\ud83d\ude00\n5,\udc00\n6,ok\n';
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const expected = [
      { line: 1, fields: ['id', 'name'] },
      { line: 2, fields: ['1', 'Zo\u00eb, \u2c22\u0a0d "x"'] },
      { line: 3, fields: ['2', 'a"b'] },
      { line: 4, reason: 'MALFORMED_CSV' },
      { line: 5, fields: ['4', '\ud83d\ude00'] },
      { line: 6, reason: 'INVALID_UTF16' },
      { line: 7, fields: ['6', 'ok'] },
    ];
    for (const [head, tail] of cuts(bytes)) expect(await rows([head, tail], ',', 'auto')).toEqual(expected);
    // Said by the option, without a byte order mark; half a unit at the end is a broken record too.
    const odd = Buffer.concat([Buffer.from('id\n1\n', 'utf16le'), Buffer.from([0x41])]);
    expect(await rows(odd, ',', 'utf-16le')).toEqual([{ line: 1, fields: ['id'] }, { line: 2, fields: ['1'] }, { line: 3, reason: 'INVALID_UTF16' }]);
  });

  it('reads half a unit after a closing quote at the end of a UTF-16 file as text after the quote: MALFORMED_CSV', async () => {
    const bytes = Buffer.concat([Buffer.from('id,v\n1,"a"', 'utf16le'), Buffer.from([0x41])]);
    for (const [head, tail] of cuts(bytes)) expect(await rows([head, tail], ',', 'utf-16le')).toEqual([{ line: 1, fields: ['id', 'v'] }, { line: 2, reason: 'MALFORMED_CSV' }]);
  });

  it('holds a record to 1 MiB without its line break, in UTF-8 and UTF-16', async () => {
    const exactly = 'x'.repeat((1 << 20) - 2);
    const utf8 = await rows(`id,a\n1,${exactly}\r\n2,ok\n`);
    expect(utf8.map((row) => row.reason ?? row.line)).toEqual([1, 2, 3]);
    expect((await rows(`id,a\n1,${exactly}x\n`))[1]).toEqual({ line: 2, reason: 'RECORD_TOO_LARGE' });
    const half = 'x'.repeat((1 << 19) - 2);
    const utf16 = await rows(Buffer.from(`id,a\r\n1,${half}\r\n2,ok\r\n`, 'utf16le'), ',', 'utf-16le');
    expect(utf16.map((row) => row.reason ?? row.line)).toEqual([1, 2, 3]);
  });

  it('refuses a UTF-32LE file by its byte order mark, which would read as UTF-16LE with NULs', async () => {
    await expect(rows(Buffer.from([0xff, 0xfe, 0, 0, 0x69, 0, 0, 0, 0x0a, 0, 0, 0]), ',', 'auto')).rejects.toThrow(/the file is UTF-32LE/);
  });

  it('drops a byte order mark only where the encoding has one', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(await rows(Buffer.concat([bom, Buffer.from('id\n1\n')]), ',', 'auto')).toEqual([{ line: 1, fields: ['id'] }, { line: 2, fields: ['1'] }]);
    expect((await rows(Buffer.concat([bom, Buffer.from('id\n1\n')]), ',', 'windows-1252'))[0]).toEqual({ line: 1, fields: ['\u00ef\u00bb\u00bfid'] });
    expect((await rows(Buffer.from([0xff, 0xfe, 0x69, 0x64, 0x0a]), ',', 'latin1'))[0]).toEqual({ line: 1, fields: ['\u00ff\u00feid'] });
  });

  it('gives each record the file offset of its end, past lines the guard replaced', async () => {
    const text = 'id,a\n1,"x"y\n2,ok\n';
    const { input, parser, toRow } = createRecordParser({ delimiter: ',' });
    input.end(text);
    const ends = [];
    for await (const output of parser) ends.push(toRow(output).endByte);
    expect(ends).toEqual([5, 12, 17]);
    expect(text.length).toBe(17);
  });
});

import { describe, expect, it } from 'vitest';
import { createRecordParser } from '../src/records/csv-records.js';

/** @param {string | Buffer} text @param {string} [delimiter] */
async function rows(text, delimiter = ',') {
  const { parser, toRow } = createRecordParser({ delimiter });
  parser.end(text);
  const out = [];
  for await (const output of parser) {
    const row = toRow(output);
    out.push(row.fields === undefined ? { line: row.line, reason: row.reason } : { line: row.line, fields: row.fields });
  }
  return out;
}

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
});

/**
 * The oracle by hand-written examples, one or more per rule (no servers). If one of these is wrong,
 * every differential test is wrong with it.
 */
import { v5 as uuidv5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { expectedImport, isDynamoNumber, itemBytes, keyIdOf, MAX_RECORD_BYTES, normalizeNumber, sameItem } from './oracle.js';

/**
 * The oracle's result in a form that is easy to compare: items by key as plain objects, rejects as
 * "line REASON".
 * @param {Buffer | string} input @param {import('./oracle.js').OracleOptions} [options]
 */
function run(input, options) {
  const result = expectedImport(typeof input === 'string' ? Buffer.from(input, 'utf8') : input, options);
  /** @type {Record<string, Record<string, unknown>>} */
  const items = {};
  for (const [id, item] of result.items) items[id] = plain(item);
  return { ...result, items, rejectLines: result.rejects.map((r) => `${r.line} ${r.reason}`) };
}

/** A null-prototype item as an ordinary object (own `__proto__` kept) for toEqual. @param {Record<string, any>} item */
function plain(item) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const name of Object.keys(item)) Object.defineProperty(out, name, { value: { ...Object.getOwnPropertyDescriptor(item, name)?.value }, enumerable: true, writable: true, configurable: true });
  return out;
}

/** The item id of a string key. @param {string} id @param {string} [sort] */
const sid = (id, sort) => JSON.stringify(sort === undefined ? [`S:${id}`] : [`S:${id}`, `S:${sort}`]);

describe('encoding', () => {
  it('drops a UTF-8 BOM, which is not a line', () => {
    const result = run(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id,name\n1,Zoë\n2,x,y\n')]));
    expect(result.header).toEqual(['id', 'name']);
    expect(result.items).toEqual({ [sid('1')]: { id: { S: '1' }, name: { S: 'Zoë' } } });
    expect(result.rejectLines).toEqual(['3 FIELD_COUNT']);
  });

  it('reads UTF-16LE with its BOM (auto), and without a BOM when told', () => {
    const text = 'id,name\r\n1,Müller 😀\r\n';
    const withBom = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    expect(run(withBom).items).toEqual({ [sid('1')]: { id: { S: '1' }, name: { S: 'Müller 😀' } } });
    expect(run(Buffer.from(text, 'utf16le'), { encoding: 'utf-16le' }).items).toEqual({ [sid('1')]: { id: { S: '1' }, name: { S: 'Müller 😀' } } });
    expect(run(withBom, { encoding: 'utf-16le' }).header).toEqual(['id', 'name']);
  });

  it('refuses UTF-16BE', () => {
    const bytes = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('id\n1\n', 'utf16le').swap16()]);
    expect(run(bytes)).toMatchObject({ error: { code: 'UNSUPPORTED_ENCODING' }, rowsRead: 0, items: {} });
  });

  it('rejects a record that is not valid UTF-8 at its start line, and reads it under windows-1252 or latin1', () => {
    const bytes = Buffer.from('id,name\n1,"M\xfcller\nJr"\n2,Ok\n', 'latin1');
    const utf8 = run(bytes);
    expect(utf8.rejectLines).toEqual(['2 INVALID_UTF8']);
    expect(utf8.rowsRead).toBe(2);
    expect(utf8.items).toEqual({ [sid('2')]: { id: { S: '2' }, name: { S: 'Ok' } } });
    expect(run(bytes, { encoding: 'windows-1252' }).items[sid('1')]).toEqual({ id: { S: '1' }, name: { S: 'Müller\nJr' } });
    expect(run(bytes, { encoding: 'latin1' }).items[sid('1')]).toEqual({ id: { S: '1' }, name: { S: 'Müller\nJr' } });
  });

  it('tells windows-1252 from latin1 on 0x80', () => {
    const bytes = Buffer.from('id,v\n1,\x80\n', 'latin1');
    expect(run(bytes, { encoding: 'windows-1252' }).items[sid('1')].v).toEqual({ S: '€' });
    expect(run(bytes, { encoding: 'latin1' }).items[sid('1')].v).toEqual({ S: '\u0080' });
    expect(run(Buffer.from('id,v\n1,\x93q\x94 \x9f\x81\n', 'latin1'), { encoding: 'windows-1252' }).items[sid('1')].v).toEqual({ S: '\u201cq\u201d \u0178\u0081' });
  });

  it('finds invalid UTF-8 of every kind: a lone lead byte, an overlong form, a surrogate, past U+10FFFF', () => {
    for (const bad of [[0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff], [0x80]]) {
      const bytes = Buffer.concat([Buffer.from('id,v\n1,a'), Buffer.from(bad), Buffer.from(',\n2,b\n')]);
      // The bad record has 3 fields, but INVALID_UTF8 comes first; the record boundaries are on the bytes.
      expect(run(bytes).rejectLines).toEqual(['2 INVALID_UTF8']);
      expect(Object.keys(run(bytes).items)).toEqual([sid('2')]);
    }
  });

  it('keeps valid multi-byte text: astral, combining, CJK', () => {
    const result = run('id,v\n1,e\u0301 名前 𝒳😀\n');
    expect(result.items[sid('1')].v).toEqual({ S: 'e\u0301 名前 𝒳😀' });
  });
});

describe('records', () => {
  it('reads CRLF, LF and CR, mixed, and numbers lines past empty lines and quoted line breaks', () => {
    const result = run('\nid,note\r\n1,a\r2,"x\r\ny\rz\nw"\n\r\n\n3,b\r\n\r4,"c"');
    expect(result.header).toEqual(['id', 'note']);
    expect(result.rowsRead).toBe(4);
    expect(result.itemLines).toEqual(
      new Map([
        [sid('1'), 3],
        [sid('2'), 4],
        [sid('3'), 10],
        [sid('4'), 12],
      ]),
    );
    expect(result.items[sid('2')].note).toEqual({ S: 'x\r\ny\rz\nw' });
  });

  it('reads quoted delimiters, doubled quotes and empty quoted fields', () => {
    const result = run('id;a;b;c\n1;"x;y";"say ""hi""";""\n', { delimiter: ';' });
    expect(result.items[sid('1')]).toEqual({ id: { S: '1' }, a: { S: 'x;y' }, b: { S: 'say "hi"' } });
  });

  it('keeps a quote inside an unquoted field as written', () => {
    const result = run(`id,name\n1,5'11"\n2,Zed "the" Last\n3, "x"\n`);
    expect(result.items[sid('1')].name).toEqual({ S: `5'11"` });
    expect(result.items[sid('2')].name).toEqual({ S: 'Zed "the" Last' });
    expect(result.items[sid('3')].name).toEqual({ S: ' "x"' });
    expect(result.rejects).toEqual([]);
  });

  it('rejects text after a closing quote as MALFORMED_CSV and resumes on the next line', () => {
    const result = run('id,name,city\n1,"Ann"x,Paris\n2,Bob,Rome\n');
    expect(result.rejectLines).toEqual(['2 MALFORMED_CSV']);
    expect(Object.keys(result.items)).toEqual([sid('2')]);
    expect(result.rowsRead).toBe(2);
  });

  it('gives the issue example: an opening quote that never closes costs only its own line', () => {
    const lines = ['id,name,city', '1,"Ann,Paris'];
    for (let i = 1; i <= 1000; i++) lines.push(`r${i},Name ${i},City ${i}`);
    lines.push('1001,Zed "the" Last,Rome');
    const result = run(`${lines.join('\n')}\n`);
    expect(result.rejectLines).toEqual(['2 MALFORMED_CSV']);
    expect(result.rowsRead).toBe(1002);
    expect(Object.keys(result.items).length).toBe(1001);
    expect(result.items[sid('1001')]).toEqual({ id: { S: '1001' }, name: { S: 'Zed "the" Last' }, city: { S: 'Rome' } });
    expect(result.itemLines.get(sid('1001'))).toBe(1003);
  });

  it('rejects a quote left open at the end of the file at its start line, and reads the lines after it', () => {
    const result = run('id,name\n1,Ann\n2,"Bob\n3,Cy\n');
    expect(result.rejectLines).toEqual(['3 MALFORMED_CSV']);
    expect(Object.keys(result.items)).toEqual([sid('1'), sid('3')]);
    expect(result.rowsRead).toBe(3);
  });

  it('resumes after a malformed multi-line record at the line after its start, inside the old quotes', () => {
    // Line 2 opens a quote that closes on line 3 followed by "x": malformed; line 3 is read again as a record.
    const result = run('id,v\n1,"a\nb"x\n2,c\n');
    expect(result.rejectLines).toEqual(['2 MALFORMED_CSV', '3 FIELD_COUNT']);
    expect(result.rejects[1].fields).toEqual(['b"x']);
    expect(Object.keys(result.items)).toEqual([sid('2')]);
  });

  it('rejects a record of more than 1 MiB as RECORD_TOO_LARGE, and takes one of exactly 1 MiB', () => {
    const exact = `1,${'x'.repeat(MAX_RECORD_BYTES - 2)}`;
    const over = `2,${'y'.repeat(MAX_RECORD_BYTES - 1)}`;
    const result = run(`id,v\n${exact}\n${over}\n3,z\n`);
    // The 1 MiB record is read, and then too large for an item.
    expect(result.rejectLines).toEqual(['2 ITEM_TOO_LARGE', '3 RECORD_TOO_LARGE']);
    expect(Object.keys(result.items)).toEqual([sid('3')]);
    // An open quote that runs past 1 MiB is too large, and reading resumes on the next line.
    const open = run(`id,v\n1,"${'q\n'.repeat(MAX_RECORD_BYTES / 2)}\n`);
    expect(open.rejects[0]).toEqual({ line: 2, reason: 'RECORD_TOO_LARGE' });
    expect(open.rejects.slice(1).every((r) => r.reason === 'FIELD_COUNT')).toBe(true);
  });

  it('counts a quoted field closed by the end of the file, and a trailing delimiter as an empty field', () => {
    expect(run('id,v\n1,"a"').items).toEqual({ [sid('1')]: { id: { S: '1' }, v: { S: 'a' } } });
    expect(run('id,v\n1,\n').items).toEqual({ [sid('1')]: { id: { S: '1' } } });
  });

  it('matches a non-ASCII delimiter on its bytes', () => {
    expect(run('id§v\n1§"a§b"§\n', { delimiter: '§' }).rejectLines).toEqual(['2 FIELD_COUNT']);
    expect(run('id§v\n1§"a§b"\n', { delimiter: '§' }).items[sid('1')].v).toEqual({ S: 'a§b' });
    expect(run('id\tv\n1\tx y\n', { delimiter: '\\t' }).items[sid('1')].v).toEqual({ S: 'x y' });
  });
});

describe('header', () => {
  it('trims spaces around names and skips empty lines before it', () => {
    expect(run('\r\n\n id , name \n1,a\n').header).toEqual(['id', 'name']);
  });

  it('fails the job on a nameless column, a repeated name, a missing key column, and the other header rules', () => {
    const header = (/** @type {string} */ csv, /** @type {import('./oracle.js').OracleOptions} */ options = {}) => run(csv, options).error?.code;
    expect(header('id,,v\n1,2,3\n')).toBe('HEADER');
    expect(header('id,v, v\n1,2,3\n')).toBe('HEADER');
    // An option naming a column the header lacks is refused as an option (issue 46), CONFIG_INVALID.
    expect(header('key,v\n1,2\n')).toBe('CONFIG_INVALID');
    expect(header('id,v\n1,2\n', { generateKey: true })).toBe('CONFIG_INVALID');
    expect(header('v\n2\n', { generateKey: true })).toBeUndefined();
    expect(header('id,v\n1,2\n', { sortKeyColumn: 'sk' })).toBe('CONFIG_INVALID');
    expect(header('id,v\n1,2\n', { columnTypes: { age: 'N' } })).toBe('CONFIG_INVALID');
    expect(header('v\n2\n', { generateKey: true, columnTypes: { id: 'S' } })).toBeUndefined();
    expect(header('"id,v\n1,2\n')).toBe('HEADER'); // the header record itself is malformed
    expect(run('id,,v\n1,2,3\n')).toMatchObject({ rowsRead: 0, rejects: [], items: {} });
  });

  it('refuses every option that names a column the header lacks, names compared exactly, and options that contradict (issue 46)', () => {
    const code = (/** @type {string} */ csv, /** @type {import('./oracle.js').OracleOptions} */ options = {}) => run(csv, options).error?.code;
    expect(code('id,SSN\n1,2\n', { drop: ['ssn'] })).toBe('CONFIG_INVALID');
    expect(code('id,SSN\n1,2\n', { drop: ['SSN'] })).toBeUndefined();
    expect(code('id,a\n1,2\n', { rename: { A: 'b' } })).toBe('CONFIG_INVALID');
    expect(code('id,a\n1,2\n', { rename: 'a:p,a:q' })).toBe('CONFIG_INVALID');
    expect(code('id,a\n1,2\n', { columnTypes: { a: 'N' }, drop: ['a'] })).toBe('CONFIG_INVALID');
    expect(code('id,a\n1,2\n', { ttl: 'A' })).toBe('CONFIG_INVALID');
    expect(code('id,a\n1,2\n', { writeMode: 'newer', versionColumn: 'v' })).toBe('CONFIG_INVALID');
    expect(code('id,a\n1,2\n', { columnTypes: { b: 'N' }, rename: { a: 'b' } })).toBeUndefined();
    expect(code('id,a\n1,2\n', { columnTypes: { a: 'N' }, rename: { a: 'b' } })).toBe('CONFIG_INVALID');
    // A header refused and an option naming an absent column: either code.
    expect(run('id,a,a\n1,2,3\n', { drop: ['x'] }).error).toMatchObject({ code: 'HEADER', alternatives: ['CONFIG_INVALID'] });
  });

  it('reads an empty file, a file of line breaks, a BOM alone and a header alone as zero rows', () => {
    for (const input of ['', '\n\r\n\r', '\ufeff', 'id,v', 'id,v\r\n\r\n']) {
      const result = run(input);
      expect(result.error).toBeUndefined();
      expect(result.rowsRead).toBe(0);
      expect(result.items).toEqual({});
    }
  });

  it('takes __proto__, constructor, toString, valueOf and hasOwnProperty as ordinary names', () => {
    const csv = 'id,__proto__,constructor,toString,valueOf,hasOwnProperty\n1,p,c,t,v,h\n2,,,,,\n';
    const result = run(csv, { columnTypes: JSON.parse('{"__proto__":"N","valueOf":"BOOL"}') });
    expect(result.rejectLines).toEqual(['2 INVALID_NUMBER']);
    const ok = run('id,__proto__,constructor,toString,valueOf,hasOwnProperty\n1,7,c,t,TRUE,h\n', { columnTypes: JSON.parse('{"__proto__":"N","valueOf":"BOOL"}') });
    const item = ok.items[sid('1')];
    expect(Object.keys(item)).toEqual(['id', '__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']);
    expect(Object.getOwnPropertyDescriptor(item, '__proto__')?.value).toEqual({ N: '7' });
    expect(item.constructor).toEqual({ S: 'c' });
    expect(item.valueOf).toEqual({ BOOL: true });
    // As key columns too; an untyped "constructor" column is S, not Object.prototype.constructor.
    const keyed = run('constructor,v\nx,1\n', { keyColumn: 'constructor' });
    expect(Object.keys(keyed.items)).toEqual([JSON.stringify(['S:x'])]);
    expect(run('__proto__,v\n 7,1\n007,2\n', { keyColumn: '__proto__', columnTypes: JSON.parse('{"__proto__":"N"}') }).rejectLines).toEqual(['2 INVALID_NUMBER']);
  });
});

describe('rows to items', () => {
  it('rejects a wrong field count with the record\'s fields', () => {
    expect(run('id,a,b\n1,x\n2,x,y,z\n').rejects).toEqual([
      { line: 2, reason: 'FIELD_COUNT', fields: ['1', 'x'] },
      { line: 3, reason: 'FIELD_COUNT', fields: ['2', 'x', 'y', 'z'] },
    ]);
  });

  it('leaves empty cells out and keeps strings as written', () => {
    expect(run('id,a,b\n1,, padded \n').items[sid('1')]).toEqual({ id: { S: '1' }, b: { S: ' padded ' } });
  });

  it('takes DynamoDB numbers and rejects the rest', () => {
    const good = ['0', '-0', '007', '7.', '.5', '-1.25e+3', '70E-1', '1E-130', '9.99E125', '12345678901234567890123456789012345678', `1${'0'.repeat(60)}`, '0.000', '0e999999999999999999'];
    const bad = ['abc', '', ' 5', '5 ', '+5', '1e126', '1E-131', '123456789012345678901234567890123456789', '1.2.3', '0x10', 'NaN', 'Infinity', '-', '.', 'e5', '1e'];
    for (const text of good) expect([text, isDynamoNumber(text)]).toEqual([text, true]);
    for (const text of bad) expect([text, isDynamoNumber(text)]).toEqual([text, false]);
    expect(run('id,n\n1,1e126\n2,12\n', { columnTypes: { n: 'N' } }).rejects).toEqual([{ line: 2, reason: 'INVALID_NUMBER', fields: ['1', '1e126'] }]);
  });

  it('takes true and false in any case as BOOL and rejects the rest', () => {
    const result = run('id,b\n1,TRUE\n2,fAlSe\n3,yes\n4,1\n5, true\n', { columnTypes: { b: 'BOOL' } });
    expect(result.items[sid('1')].b).toEqual({ BOOL: true });
    expect(result.items[sid('2')].b).toEqual({ BOOL: false });
    expect(result.rejectLines).toEqual(['4 INVALID_BOOL', '5 INVALID_BOOL', '6 INVALID_BOOL']);
  });

  it('checks columns in order, before the key', () => {
    const options = { columnTypes: { a: 'BOOL', b: 'N' } };
    expect(run('id,a,b\n1,maybe,x\n2,true,x\n,maybe,1\n', options).rejectLines).toEqual(['2 INVALID_BOOL', '3 INVALID_NUMBER', '4 INVALID_BOOL']);
  });

  it('rejects an empty or space-only key as MISSING_KEY, and keeps other whitespace as written', () => {
    const result = run('id,v\n,a\n   ,b\n\t,c\n x ,d\n', {});
    expect(result.rejects).toEqual([
      { line: 2, reason: 'MISSING_KEY', fields: ['', 'a'] },
      { line: 3, reason: 'MISSING_KEY', fields: ['   ', 'b'] },
    ]);
    expect(Object.keys(result.items)).toEqual([sid('\t'), sid(' x ')]);
    expect(run('id,sk,v\n1,  ,a\n1,2,b\n', { sortKeyColumn: 'sk' }).rejectLines).toEqual(['2 MISSING_KEY']);
  });

  it('generates keys as UUID v5 of bucket, key, ETag and line', () => {
    const options = { generateKey: true, bucket: 'b', key: 'k.csv', etag: 'e1' };
    const result = run('name\nAnn\n\nAnn\n', options);
    const first = uuidv5('b/k.csv#e1:2', '6f1f4a52-3c0e-4f5e-9d3a-6a2b8f0c1e47');
    const second = uuidv5('b/k.csv#e1:4', '6f1f4a52-3c0e-4f5e-9d3a-6a2b8f0c1e47');
    expect(result.items).toEqual({ [sid(first)]: { name: { S: 'Ann' }, id: { S: first } }, [sid(second)]: { name: { S: 'Ann' }, id: { S: second } } });
  });

  it('rejects an item over 400 KB as DynamoDB counts it', () => {
    const limit = 400 * 1024;
    const fits = 'x'.repeat(limit - 'id'.length - 1 - 'v'.length);
    const result = run(`id,v\n1,${fits}\n2,${fits}x\n`);
    expect(Object.keys(result.items)).toEqual([sid('1')]);
    expect(result.rejects.map((r) => `${r.line} ${r.reason}`)).toEqual(['3 ITEM_TOO_LARGE']);
    expect(itemBytes({ n: { N: '-000123.4500e7' } })).toBe(1 + Math.ceil(5 / 2) + 1);
    expect(itemBytes({ é: { BOOL: true } })).toBe(3);
  });

  it('rejects keys over 2048 bytes (partition) or 1024 bytes (sort) as KEY_TOO_LONG', () => {
    const result = run(`id,sk\n${'é'.repeat(1024)},a\n${'é'.repeat(1024)}x,a\nk,${'s'.repeat(1024)}\nk,${'s'.repeat(1025)}\n`, { sortKeyColumn: 'sk' });
    expect(result.rejectLines).toEqual(['3 KEY_TOO_LONG', '5 KEY_TOO_LONG']);
    expect(Object.keys(result.items).length).toBe(2);
  });
});

describe('applying rows in file order', () => {
  it('lets a later row replace an earlier one with the same key, and a rejected row change nothing', () => {
    const result = run('id,v,n\n1,a,1\n2,b,2\n1,c,3\n1,d,oops\n', { columnTypes: { n: 'N' } });
    expect(result.items).toEqual({ [sid('1')]: { id: { S: '1' }, v: { S: 'c' }, n: { N: '3' } }, [sid('2')]: { id: { S: '2' }, v: { S: 'b' }, n: { N: '2' } } });
    expect(result.itemLines.get(sid('1'))).toBe(4);
  });

  it('takes N keys 007 then 7 as one item with the later row\'s values', () => {
    const result = run('id,v\n007,first\n7,second\n7.0e0,\n', { columnTypes: { id: 'N' } });
    expect(result.items).toEqual({ [JSON.stringify(['N:7e0'])]: { id: { N: '7.0e0' } } });
    const two = run('id,v\n007,first\n7,second\n', { columnTypes: { id: 'N' } });
    expect(Object.values(two.items)).toEqual([{ id: { N: '7' }, v: { S: 'second' } }]);
  });

  it('tells keys apart by partition and sort key together; strings exactly', () => {
    const result = run('id,sk,v\na,1,x\na,2,y\na,1,z\nA,1,w\na ,1,q\n', { sortKeyColumn: 'sk' });
    expect(Object.keys(result.items)).toEqual([sid('a', '1'), sid('a', '2'), sid('A', '1'), sid('a ', '1')]);
    expect(result.items[sid('a', '1')].v).toEqual({ S: 'z' });
  });
});

describe('numbers and items', () => {
  it('normalizes equal numbers to one text', () => {
    expect(new Set(['7', '007', '7.0', '70E-1', '0.7e1', '+7'.slice(1)].map(normalizeNumber))).toEqual(new Set(['7e0']));
    expect(new Set(['0', '-0', '0.000', '0e5', '.0'].map(normalizeNumber))).toEqual(new Set(['0']));
    expect(normalizeNumber('-120.50')).toBe('-1205e-1');
    expect(normalizeNumber('7')).not.toBe(normalizeNumber('-7'));
    expect(() => normalizeNumber('x')).toThrow();
  });

  it('compares items with numbers by value', () => {
    expect(sameItem({ id: { S: '1' }, n: { N: '007.50' } }, { n: { N: '7.5' }, id: { S: '1' } })).toBe(true);
    expect(sameItem({ id: { S: '1' }, n: { N: '7' } }, { id: { S: '1' }, n: { S: '7' } })).toBe(false);
    expect(sameItem({ id: { S: '1' } }, { id: { S: '1' }, b: { BOOL: false } })).toBe(false);
    expect(sameItem(JSON.parse('{"__proto__":{"S":"a"}}'), JSON.parse('{"__proto__":{"S":"b"}}'))).toBe(false);
    expect(keyIdOf({ id: { N: '0070' } }, {})).toBe(keyIdOf({ id: { N: '70' } }, {}));
  });
});

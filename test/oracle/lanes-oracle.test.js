/**
 * The oracles' rules for the lanes (issue 35), checked on small files by hand: keys as DynamoDB has
 * them, every CSV type, JSON Lines and DynamoDB JSON. No import runs here; these say what the fuzz
 * lanes hold the importer to.
 */
import { describe, expect, it } from 'vitest';
import { expectedJsonImport } from './json-oracle.js';
import { base64Of } from './lanes.js';
import { base64ToBytes, canonicalBase64, expectedImport } from './oracle.js';

/** @param {import('./oracle.js').Expected} expected */
const rows = (expected) => [...expected.items.values()].map((item) => JSON.stringify(item));
/** @param {import('./oracle.js').Expected} expected */
const reasons = (expected) => expected.rejects.map((reject) => `${reject.line} ${reject.reason}`);

describe('keys as DynamoDB has them', () => {
  it('a composite key with NUL inside one part is not the key whose parts meet at that NUL', () => {
    const expected = expectedImport(Buffer.from('pk,sk,v\na,b\u0000c,r0\na\u0000b,c,r1\na\u0000b,c,r2\n'), { keyColumn: 'pk', sortKeyColumn: 'sk' });
    expect(expected.items.size).toBe(2);
    expect(rows(expected)).toContain(JSON.stringify({ pk: { S: 'a' }, sk: { S: 'b\u0000c' }, v: { S: 'r0' } }));
    expect(rows(expected)).toContain(JSON.stringify({ pk: { S: 'a\u0000b' }, sk: { S: 'c' }, v: { S: 'r2' } }));
  });

  it('N keys are one key by value, however written', () => {
    const expected = expectedImport(Buffer.from('id,v\n007,a\n7.0,b\n70E-1,c\n0.7e1,d\n-0,e\n0,f\n'), { columnTypes: { id: 'N' } });
    expect(expected.items.size).toBe(2);
    expect(rows(expected)).toContain(JSON.stringify({ id: { N: '0.7e1' }, v: { S: 'd' } }));
  });

  it('B keys are their bytes: non-canonical base64 is the same key, written canonical', () => {
    expect(base64Of([1], 3)).toMatch(/^A[R-Z]==$|^A[a-f]==$/);
    expect(base64ToBytes('AR==')).toEqual(Buffer.from([1]));
    expect(canonicalBase64('AQL=')).toBe('AQI=');
    const expected = expectedImport(Buffer.from('id,v\nAQ==,a\nAR==,b\nAQ,c\n'), { columnTypes: { id: 'B' } });
    expect(rows(expected)).toEqual([JSON.stringify({ id: { B: 'AQ==' }, v: { S: 'b' } })]);
    expect(reasons(expected)).toEqual(['4 INVALID_BINARY']);
  });
});

describe('every CSV type', () => {
  it('sets: members checked in order, duplicates by value or bytes, empty members refused', () => {
    const csv = 'id,ns,bs,ss\n1,1|2,AQ==,a|b\n2,1|1.0,,\n3,,AQ==|AR==,\n4,,,a||b\n5,x|1|1,,\n6,1|1|x,,\n';
    const expected = expectedImport(Buffer.from(csv), { columnTypes: { ns: 'NS', bs: 'BS', ss: 'SS' } });
    expect(reasons(expected)).toEqual(['3 INVALID_SET', '4 INVALID_SET', '5 INVALID_SET', '6 INVALID_NUMBER', '7 INVALID_SET']);
  });

  it('emptyCell: null for any type, empty-string for S only', () => {
    const csv = 'id,s,n\n1,,\n';
    expect(rows(expectedImport(Buffer.from(csv), { columnTypes: { n: 'N' }, emptyCell: 'null' }))).toEqual([JSON.stringify({ id: { S: '1' }, s: { NULL: true }, n: { NULL: true } })]);
    expect(rows(expectedImport(Buffer.from(csv), { columnTypes: { n: 'N' }, emptyCell: 'empty-string' }))).toEqual([JSON.stringify({ id: { S: '1' }, s: { S: '' } })]);
  });

  it('M and L cells: JSON of the right kind, exact numbers', () => {
    const csv = 'id,m,l\n1,"{""n"":12345678901234567890123}","[1,""x""]"\n2,[1],\n3,,{}\n4,"{""a"":1,""a"":2}",\n';
    const expected = expectedImport(Buffer.from(csv), { columnTypes: { m: 'M', l: 'L' } });
    expect(rows(expected)).toEqual([JSON.stringify({ id: { S: '1' }, m: { M: { n: { N: '12345678901234567890123' } } }, l: { L: [{ N: '1' }, { S: 'x' }] } })]);
    expect(reasons(expected)).toEqual(['3 INVALID_JSON', '4 INVALID_JSON', '5 INVALID_JSON']);
  });

  it('delete mode reads only the keys and removes their items', () => {
    /** @type {import('./oracle.js').Item[]} */
    const initialItems = [{ id: { N: '7' }, v: { S: 'x' } }, { id: { N: '8' } }];
    const expected = expectedImport(Buffer.from('id,v\n007,not checked\n9,\n'), { columnTypes: { id: 'N', v: 'N' }, mode: 'delete', initialItems });
    expect(rows(expected)).toEqual([JSON.stringify({ id: { N: '8' } })]);
    expect(expected.rejects).toEqual([]);
  });
});

describe('JSON Lines and DynamoDB JSON', () => {
  const S = { partition: { name: 'id', type: /** @type {const} */ ('S') } };
  const N = { partition: { name: 'id', type: /** @type {const} */ ('N') } };

  it('JSON Lines: numbers kept as written, duplicate names, key types, blank and bad lines', () => {
    const text = '{"id":12345678901234567890123,"v":1.50}\n{"id":12345678901234567890124}\n\n \t\n{"id":"7"}\n{"id":1,"id":2}\n{"id":1,"id":1}\n[1]\n{"id":1,"":2}\n{"id":1e126}\n';
    const expected = expectedJsonImport(Buffer.from(text), { format: 'jsonl', tableKeys: N });
    expect(expected.rowsRead).toBe(8);
    expect(expected.items.size).toBe(3);
    expect(reasons(expected)).toEqual(['5 KEY_TYPE', '6 INVALID_JSON', '8 INVALID_JSON', '9 INVALID_ATTRIBUTE_VALUE', '10 INVALID_NUMBER']);
  });

  it('JSON Lines: columnTypes turn strings into N, SS, B (canonical), BOOL', () => {
    const expected = expectedJsonImport(Buffer.from('{"id":"a","n":"007","t":"x|y","b":"AR==","f":"TRUE"}\n'), { format: 'jsonl', tableKeys: S, columnTypes: { n: 'N', t: 'SS', b: 'B', f: 'BOOL' } });
    expect(rows(expected)).toEqual([JSON.stringify({ id: { S: 'a' }, n: { N: '007' }, t: { SS: ['x', 'y'] }, b: { B: 'AQ==' }, f: { BOOL: true } })]);
  });

  it('DynamoDB JSON: Items and NewImages put, Keys delete, bad values refused', () => {
    const lines = [
      '{"Item":{"id":{"S":"a"},"v":{"N":"1"}}}',
      '{"Keys":{"id":{"S":"b"}},"NewImage":{"id":{"S":"b"}}}',
      '{"Keys":{"id":{"S":"a"}}}',
      '{"Item":{"id":{"S":"c"},"v":{"N":5}}}',
      '{"Item":{"id":{"S":"c"},"s":{"BS":["AQ==","AR=="]}}}',
      '{"Item":{"id":{"N":"1"}}}',
      '{"Metadata":{}}',
    ];
    const expected = expectedJsonImport(Buffer.from(lines.join('\n')), { format: 'dynamodb-json', tableKeys: S });
    expect(rows(expected)).toEqual([JSON.stringify({ id: { S: 'b' } })]);
    expect(reasons(expected)).toEqual(['4 INVALID_NUMBER', '5 INVALID_SET', '6 KEY_TYPE', '7 INVALID_JSON']);
  });
});

// A row's keyId is the importer's one notion of "the same item": collapse, keys in flight, spread's key
// spans, UnprocessedItems and the dry run's key count all compare keyIds. Two rows must get one keyId
// exactly when DynamoDB stores them as one item: S by its exact text (a NUL is a character like any
// other), N by its value, B by its decoded bytes. Checked here against DynamoDB's rules written out
// independently, for every key type, through each format's builder and through the reader of the
// items DynamoDB hands back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { RowError } from '../../../src/errors.js';
import { createItemBuilder } from '../../../src/items/item-builder.js';
import { createJsonItemBuilder } from '../../../src/items/json-item.js';
import { keyIdReader } from '../../../src/items/key-id.js';
import { keyOrderOf } from '../../../src/items/key-order.js';
import { normalizeNumber } from '../../oracle/oracle.js';

const RUNS = Number(process.env.KEY_RUNS ?? 400);

/** @typedef {'S' | 'N' | 'B'} KeyType */
/** @typedef {{ type: KeyType, text: string }} KeyValue  text: as the file writes it */

// Characters that could fool a join: NUL and other controls, the digits and colon of a length prefix.
const stringKey = fc.string({ unit: fc.constantFrom('a', 'b', '\u0000', '\u0001', '\u001f', ':', '1', '2', 'é', '😀'), minLength: 1, maxLength: 4 });
// One small set of values, each in several spellings: 7, 007, 7.0, 70E-1.
const numberValue = fc.constantFrom('0', '7', '70', '-5', '0.5', '12345678901234567890123456789012345678');
const numberSpelling = fc.constantFrom('plain', 'zeros', 'point', 'exponent');
// A few bytes, in canonical base64 or with the bits past the last byte set (the same bytes, another text).
const bytesValue = fc.uint8Array({ minLength: 1, maxLength: 3, max: 3 }).map((bytes) => Buffer.from(bytes).toString('base64'));

/**
 * A key part as a value and a way of writing it, so that a pair can share the value and not the text.
 * @param {KeyType} type @returns {fc.Arbitrary<{ value: string, spelling: string | boolean }>}
 */
const partOf = (type) => (type === 'S' ? stringKey.map((value) => ({ value, spelling: 'plain' })) : type === 'N' ? fc.record({ value: numberValue, spelling: numberSpelling }) : fc.record({ value: bytesValue, spelling: fc.boolean() }));

/** @param {KeyType} type @param {{ value: string, spelling: string | boolean }} part */
const textOf = (type, { value, spelling }) => (type === 'N' ? spell(value, /** @type {string} */ (spelling)) : type === 'B' && spelling === true ? nonCanonical(value) : value);

/** @param {string} value @param {string} spelling */
function spell(value, spelling) {
  const negative = value.startsWith('-');
  const digits = negative ? value.slice(1) : value;
  const sign = negative ? '-' : '';
  if (spelling === 'zeros') return `${sign}00${digits}`;
  if (spelling === 'point') return `${sign}${digits}${digits.includes('.') ? '0' : '.0'}`;
  if (spelling === 'exponent') return `${sign}${digits}0E-1`;
  return value;
}

/** base64 whose last digit before the padding has its spare bits set. @param {string} text */
function nonCanonical(text) {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (padding === 0) return text;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const at = text.length - padding - 1;
  const digit = alphabet.indexOf(text[at]) | (padding === 2 ? 0b0101 : 0b01);
  return `${text.slice(0, at)}${alphabet[digit]}${text.slice(at + 1)}`;
}

/** DynamoDB's equality of two key values of one type, written out independently. @param {KeyType} type @param {string} a @param {string} b */
function sameValue(type, a, b) {
  if (type === 'S') return a === b;
  if (type === 'N') return normalizeNumber(a) === normalizeNumber(b);
  return Buffer.from(a, 'base64').equals(Buffer.from(b, 'base64'));
}

const keyTypes = fc.constantFrom(/** @type {KeyType} */ ('S'), 'N', 'B');
const tables = fc.record({ partition: keyTypes, sort: fc.option(keyTypes, { nil: undefined }) });

/**
 * Two keys of one table. The second often shares the first's values (written otherwise: N and B), or,
 * with two S parts, cuts the first's text elsewhere ("a\0b","c" and "a","b\0c"), so that keys equal and
 * nearly equal come up often.
 */
const keyPairs = tables.chain((table) => {
  const parts = fc.record({ partition: partOf(table.partition), sort: table.sort === undefined ? fc.constant(undefined) : partOf(table.sort) });
  const spellings = fc.record({ partition: partOf(table.partition), sort: table.sort === undefined ? fc.constant(undefined) : partOf(table.sort) });
  return fc.tuple(fc.constant(table), parts, parts, spellings, fc.constantFrom('own', 'same values', 'same partition', 'same sort', 'cut elsewhere'), fc.nat(8));
}).map(([table, a, b, respelled, relation, cut]) => {
  const text = (/** @type {KeyType | undefined} */ type, /** @type {{ value: string, spelling: string | boolean } | undefined} */ part) => (type === undefined || part === undefined ? undefined : textOf(type, part));
  const first = { partition: /** @type {string} */ (text(table.partition, a.partition)), sort: text(table.sort, a.sort) };
  const keep = (/** @type {{ value: string } | undefined} */ from, /** @type {{ spelling: string | boolean } | undefined} */ other) => (from === undefined || other === undefined ? undefined : { value: from.value, spelling: other.spelling });
  /** @type {{ partition: string, sort: string | undefined }} */
  let second;
  if (relation === 'cut elsewhere' && table.partition === 'S' && table.sort === 'S') {
    const joined = `${first.partition}${first.sort}`;
    const at = 1 + (cut % (joined.length - 1));
    second = { partition: joined.slice(0, at), sort: joined.slice(at) };
  } else {
    const partition = relation === 'same values' || relation === 'same partition' ? keep(a.partition, respelled.partition) : b.partition;
    const sort = relation === 'same values' || relation === 'same sort' ? keep(a.sort, respelled.sort) : b.sort;
    second = { partition: /** @type {string} */ (text(table.partition, partition)), sort: text(table.sort, sort) };
  }
  return /** @type {const} */ ([table, first, second]);
});

/** @param {{ partition: KeyType, sort: KeyType | undefined }} table */
function configFor(table) {
  return resolveConfig({ file: '/tmp/keys.csv', table: 'keys-table', keyColumn: 'pk', ...(table.sort === undefined ? {} : { sortKeyColumn: 'sk' }), columnTypes: { pk: table.partition, ...(table.sort === undefined ? {} : { sk: table.sort }) } }, {});
}

/** @param {{ partition: KeyType, sort: KeyType | undefined }} table */
const tableKeysOf = (table) => ({ partition: { name: 'pk', type: table.partition }, ...(table.sort === undefined ? {} : { sort: { name: 'sk', type: table.sort } }) });

/**
 * The keyId every builder gives a row of this key, checked to be one for all of them and to be what the
 * reader of UnprocessedItems reads back from the item sent. Undefined when the builders reject the key
 * (a CSV key of only spaces, say): such a row is never written.
 * @param {{ partition: KeyType, sort: KeyType | undefined }} table @param {{ partition: string, sort: string | undefined }} key
 */
function keyIdsOf(table, key) {
  const config = configFor(table);
  const keys = /** @type {import('../../../src/write/table-check.js').TableKeys} */ (tableKeysOf(table));
  const names = table.sort === undefined ? ['pk', 'v'] : ['pk', 'sk', 'v'];
  const fields = table.sort === undefined ? [key.partition, 'x'] : [key.partition, key.sort ?? '', 'x'];
  const typed = (/** @type {KeyType} */ type, /** @type {string} */ text) => ({ [type]: text });
  const item = { pk: typed(table.partition, key.partition), ...(table.sort === undefined ? {} : { sk: typed(table.sort, /** @type {string} */ (key.sort)) }) };
  const jsonLine = JSON.stringify({ pk: key.partition, ...(table.sort === undefined ? {} : { sk: key.sort }), v: 'x' });
  const builds = [
    () => createItemBuilder(names, config, { etag: 'e' })(fields, 2),
    () => createJsonItemBuilder('jsonl', config, keys)([jsonLine], 1),
    () => createJsonItemBuilder('dynamodb-json', config, keys)([JSON.stringify({ Item: { ...item, v: { S: 'x' } } })], 1),
    () => createJsonItemBuilder('dynamodb-json', config, keys)([JSON.stringify({ Keys: item })], 1),
  ];
  const read = keyIdReader(config);
  const ids = new Set();
  for (const build of builds) {
    let built;
    try {
      built = build();
    } catch (error) {
      if (error instanceof RowError) return undefined;
      throw error;
    }
    ids.add(built.keyId);
    // What DynamoDB hands back unprocessed is the item as sent: it must be matched to its row.
    expect(read(JSON.parse(built.json))).toBe(built.keyId);
  }
  expect([...ids]).toHaveLength(1);
  return [...ids][0];
}

describe('a row\'s keyId', () => {
  it('is one for two rows exactly when DynamoDB stores them as one item, for every key type and format', () => {
    fc.assert(
      fc.property(keyPairs, ([table, a, second]) => {
        const idA = keyIdsOf(table, a);
        const idB = keyIdsOf(table, second);
        if (idA === undefined || idB === undefined) return;
        const same = sameValue(table.partition, a.partition, second.partition) && (table.sort === undefined || sameValue(table.sort, /** @type {string} */ (a.sort), /** @type {string} */ (second.sort)));
        expect(idA === idB).toBe(same);
      }),
      { numRuns: RUNS },
    );
  });

  it('tells apart composite keys that a NUL join would take for one (issue 35, defect 1)', () => {
    const table = /** @type {const} */ ({ partition: 'S', sort: 'S' });
    expect(keyIdsOf(table, { partition: 'a\u0000b', sort: 'c' })).not.toBe(keyIdsOf(table, { partition: 'a', sort: 'b\u0000c' }));
    expect(keyIdsOf(table, { partition: '1:a', sort: 'b' })).not.toBe(keyIdsOf(table, { partition: '1', sort: ':ab' }));
  });

  it('is one for a binary key spelled two ways, and the item carries its canonical spelling (issue 35, defect 2)', () => {
    const table = /** @type {const} */ ({ partition: 'B', sort: undefined });
    expect(keyIdsOf(table, { partition: 'AR==', sort: undefined })).toBe(keyIdsOf(table, { partition: 'AQ==', sort: undefined }));
    const built = createItemBuilder(['pk', 'v'], configFor(table), { etag: 'e' })(['AR==', 'x'], 2);
    expect(JSON.parse(built.json).pk).toEqual({ B: 'AQ==' });
    const fromExport = createJsonItemBuilder('dynamodb-json', configFor(table), /** @type {any} */ (tableKeysOf(table)))([JSON.stringify({ Item: { pk: { B: 'AR==' }, bs: { BS: ['AAF=', 'Ag=='] } } })], 1);
    expect(JSON.parse(fromExport.json)).toEqual({ pk: { B: 'AQ==' }, bs: { BS: ['AAE=', 'Ag=='] } });
  });

  it('refuses a binary set whose members are one value spelled two ways, as DynamoDB would', () => {
    const table = /** @type {const} */ ({ partition: 'S', sort: undefined });
    const build = createJsonItemBuilder('dynamodb-json', configFor(table), /** @type {any} */ (tableKeysOf(table)));
    expect(() => build([JSON.stringify({ Item: { pk: { S: 'k' }, bs: { BS: ['AQ==', 'AR=='] } } })], 3)).toThrow(expect.objectContaining({ reason: 'INVALID_SET' }));
  });
});

describe('the order of keyIds (spread)', () => {
  it('follows DynamoDB\'s: strings by UTF-8 bytes, binaries by their bytes, numbers by value, partition then sort', () => {
    const order = keyOrderOf(/** @type {any} */ ({ partition: { name: 'pk', type: 'S' }, sort: { name: 'sk', type: 'B' } }));
    const id = (/** @type {string} */ pk, /** @type {string} */ sk) => /** @type {string} */ (keyIdsOf({ partition: 'S', sort: 'B' }, { partition: pk, sort: sk }));
    // U+FF01 is before U+1F600 in UTF-8 (EF.. < F0..), after it in UTF-16 code units (FF01 > D83D).
    expect(order(id('\uff01', 'AA=='), id('😀', 'AA=='))).toBeLessThan(0);
    // The byte 0x3e ('Pg==') is after 0x00 ('AA==') and before 0xf8 ('+A=='); base64's text puts '+' first.
    expect(order(id('k', 'AA=='), id('k', 'Pg=='))).toBeLessThan(0);
    expect(order(id('k', 'Pg=='), id('k', '+A=='))).toBeLessThan(0);
    // A partition key holding a NUL and digits is split where its length says.
    expect(order(id('a\u0000b', 'AA=='), id('a', '+A=='))).toBeGreaterThan(0);
    const numbers = keyOrderOf(/** @type {any} */ ({ partition: { name: 'pk', type: 'N' } }));
    const n = (/** @type {string} */ pk) => /** @type {string} */ (keyIdsOf({ partition: 'N', sort: undefined }, { partition: pk, sort: undefined }));
    expect(numbers(n('007'), n('70E-1'))).toBe(0);
    expect(numbers(n('-5'), n('0.5'))).toBeLessThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config.js';
import { HeaderError, RowError } from '../src/errors.js';
import { createItemBuilder } from '../src/items/item-builder.js';
import { keyIdReader } from '../src/items/key-id.js';
import { isDynamoNumber } from '../src/items/numbers.js';

const config = (/** @type {Record<string, unknown>} */ options = {}) => resolveConfig({ bucket: 'b', key: 'k.csv', table: 'people', ...options }, {});
const source = { etag: 'etag1' };

describe('createItemBuilder', () => {
  const header = ['id', 'name', 'age', 'active', 'big'];
  const build = createItemBuilder(header, config({ columnTypes: 'age:N,active:BOOL,big:N' }), source);

  it('builds typed AttributeValues, numbers as their digits, and leaves empty cells out', () => {
    const { json, keyId } = build(['a1', 'Ann', '42', 'TRUE', '12345678901234567890.123456789'], 2);
    expect(JSON.parse(json)).toEqual({ id: { S: 'a1' }, name: { S: 'Ann' }, age: { N: '42' }, active: { BOOL: true }, big: { N: '12345678901234567890.123456789' } });
    expect(keyId).toBe('a1');
    expect(JSON.parse(build(['a2', '', '', 'false', ''], 3).json)).toEqual({ id: { S: 'a2' }, active: { BOOL: false } });
  });

  it('writes any string as JSON.stringify would: quotes, backslashes, control characters, non-ASCII, lone surrogates', () => {
    const values = ['plain', 'say "hi"', 'back\\slash', 'tab\there', 'line\nbreak\r\n', 'ünï €', '日本', 'emoji 😀', 'lone \ud800', 'nul \u0000', 'del \u007f', ' ', '{"S":"x"}'];
    const text = createItemBuilder(['id', 'v'], config(), source);
    for (const value of values) {
      const { json } = text(['k', value], 2);
      expect(json).toBe(JSON.stringify({ id: { S: 'k' }, v: { S: value } }));
    }
    const named = createItemBuilder(['id', 'odd "name"\\'], config(), source)(['k', 'v'], 2).json;
    expect(JSON.parse(named)).toEqual({ id: { S: 'k' }, 'odd "name"\\': { S: 'v' } });
  });

  it('puts a generated key after the columns, and alone when every cell is empty', () => {
    const generated = createItemBuilder(['name', 'age'], config({ generateKey: true, columnTypes: 'age:N' }), source);
    const full = JSON.parse(generated(['Ann', '7'], 2).json);
    expect(Object.keys(full)).toEqual(['name', 'age', 'id']);
    expect(full.age).toEqual({ N: '7' });
    expect(JSON.parse(generated(['', ''], 3).json)).toEqual({ id: { S: generated(['', ''], 3).keyId } });
  });

  it.each([
    [['a', 'x', 'forty', 'true', ''], 'INVALID_NUMBER'],
    [['a', 'x', '1', 'yes', ''], 'INVALID_BOOL'],
    [['', 'x', '1', 'true', ''], 'MISSING_KEY'],
  ])('rejects %j as %s', (fields, reason) => {
    expect(() => build(fields, 7)).toThrow(RowError);
    try {
      build(fields, 7);
    } catch (error) {
      expect(/** @type {RowError} */ (error).reason).toBe(reason);
      expect(/** @type {RowError} */ (error).message).toMatch(/^line 7: /);
    }
  });

  it('rejects an item over 400 KB', () => {
    const huge = 'x'.repeat(401 * 1024);
    expect(() => build(['a', huge, '', '', ''], 9)).toThrow(/ITEM_TOO_LARGE|400|409600/);
  });

  it('generates the same key for the same object version and line, and a different one otherwise', () => {
    const generated = createItemBuilder(['name'], config({ generateKey: true }), source);
    const first = generated(['Ann'], 2).keyId;
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated(['Bob'], 2).keyId).toBe(first);
    expect(generated(['Ann'], 3).keyId).not.toBe(first);
    expect(createItemBuilder(['name'], config({ generateKey: true }), { etag: 'etag2' })(['Ann'], 2).keyId).not.toBe(first);
  });

  it.each([
    [['name', 'age'], {}, /no key column "id"/],
    [['id', 'id'], {}, /twice/],
    [['id', ''], {}, /column 2 has no name/],
    [['id', 'age'], { columnTypes: 'agee:N' }, /columnTypes names "agee"/],
    [['id'], { generateKey: true }, /already has a "id" column/],
  ])('refuses header %j with options %j', (badHeader, options, message) => {
    expect(() => createItemBuilder(badHeader, config(options), source)).toThrow(HeaderError);
    expect(() => createItemBuilder(badHeader, config(options), source)).toThrow(message);
  });
});

describe('keyIdReader', () => {
  it.each([
    [{}, ['id', 'sku', 'n'], ['a', 'x', '1']],
    [{ sortKeyColumn: 'sku' }, ['id', 'sku', 'n'], ['a', 'x', '1']],
    [{ keyColumn: 'n', sortKeyColumn: 'sku', columnTypes: 'n:N' }, ['id', 'sku', 'n'], ['a', 'x', '17']],
  ])('reads back from an item the keyId the builder gave its row (%j)', (options, header, fields) => {
    const built = createItemBuilder(header, config(options), source)(fields, 2);
    expect(keyIdReader(config(options))(JSON.parse(built.json))).toBe(built.keyId);
  });

  it('tells apart items that share a partition key but not a sort key', () => {
    const read = keyIdReader(config({ sortKeyColumn: 'sku' }));
    expect(read({ id: { S: 'a' }, sku: { S: 'x' } })).not.toBe(read({ id: { S: 'a' }, sku: { S: 'y' } }));
  });
});

describe('isDynamoNumber', () => {
  it.each(['0', '-1', '3.14', '.5', '1e10', '-2.5E-3', '12345678901234567890123456789012345678'])('accepts %s', (value) => {
    expect(isDynamoNumber(value)).toBe(true);
  });
  it.each(['', 'abc', '1,5', '0x10', 'NaN', 'Infinity', '1.2.3', '+', '123456789012345678901234567890123456789'])('refuses %s', (value) => {
    expect(isDynamoNumber(value)).toBe(false);
  });
});

describe('item JSON held in memory', () => {
  // A row waiting in the shuffle window keeps its item's JSON. Built by concatenation it would be a
  // rope of dozens of pieces (about 1.4 KB for these 220 characters); reading a character used to
  // flatten it, but optimized code on Node 22 drops that read. 100,000 rows, so the builder runs
  // optimized, as it does in an import.
  it('is one flat string: well under 600 bytes of heap per held row', async () => {
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = /** @type {() => void} */ (runInNewContext('gc'));
    const header = ['id', 'first_name', 'last_name', 'email', 'phone', 'country', 'balance', 'active'];
    const build = createItemBuilder(header, config({ columnTypes: 'balance:N,active:BOOL' }), source);
    const row = (/** @type {number} */ i) => [`id-${i}`, `First${i}`, `Last${i}`, `user${i}@example.com`, `+1-555-${i}`, 'US', `${i}.25`, 'true'];
    const count = 100_000;
    const held = new Array(count);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < count; i++) held[i] = build(row(i), i + 2).json;
    gc();
    const bytesPerRow = (process.memoryUsage().heapUsed - before) / count;
    expect(JSON.parse(held[count - 1])).toEqual({
      id: { S: `id-${count - 1}` }, first_name: { S: `First${count - 1}` }, last_name: { S: `Last${count - 1}` }, email: { S: `user${count - 1}@example.com` },
      phone: { S: `+1-555-${count - 1}` }, country: { S: 'US' }, balance: { N: `${count - 1}.25` }, active: { BOOL: true },
    });
    expect(bytesPerRow).toBeLessThan(600);
  });
});

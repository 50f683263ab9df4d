import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { HeaderError, RowError } from '../../../src/errors.js';
import { createItemBuilder } from '../../../src/items/item-builder.js';
import { keyIdReader } from '../../../src/items/key-id.js';
import { isDynamoNumber } from '../../../src/items/numbers.js';

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
    [['id', 'id'], {}, /header columns 1 and 2 have the same name/],
    [['id', ''], {}, /column 2 has no name/],
  ])('refuses header %j with options %j', (badHeader, options, message) => {
    expect(() => createItemBuilder(badHeader, config(options), source)).toThrow(HeaderError);
    expect(() => createItemBuilder(badHeader, config(options), source)).toThrow(message);
  });

  // An option naming a column the header lacks is the option's mistake (CONFIG_INVALID: the command exits 2).
  it.each([
    [['name', 'age'], {}, 'keyColumn', /the header has no column "id"; the first line has 2 columns/],
    [['ID', 'age'], {}, 'keyColumn', /no column "id" \(it has "ID": names are compared exactly, case and spaces too\)/],
    [['id', 'age'], { columnTypes: 'agee:N' }, 'columnTypes', /no column "agee"/],
    [['id'], { generateKey: true }, 'generateKey', /already has a "id" column/],
    [['id', 'SSN'], { drop: 'ssn' }, 'drop', /no column "ssn" \(it has "SSN"/],
    [['id', 'a'], { drop: 'a,b' }, 'drop', /no column "b"; name the columns to leave out as the header spells them/],
    [['id', 'a'], { rename: 'mail:email' }, 'rename', /no column "mail"; name each column to rename/],
    [['id', 'a'], { sortKeyColumn: 'at' }, 'sortKeyColumn', /no column "at"/],
    [['id', 'a'], { writeMode: 'newer', versionColumn: 'v' }, 'versionColumn', /no column "v"/],
    [['id', 'a'], { ttl: 'expires' }, 'ttl', /no column "expires"/],
  ])('refuses header %j with options %j as a mistake of %s', (badHeader, options, option, message) => {
    expect(() => createItemBuilder(badHeader, config(options), source)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', option }));
    expect(() => createItemBuilder(badHeader, config(options), source)).toThrow(message);
  });
});

describe('columns named like members of Object.prototype', () => {
  it.each([
    [{}],
    [{ columnTypes: 'constructor:N,valueOf:BOOL' }],
    [{ columnTypes: JSON.parse('{"__proto__":"N","toString":"S"}') }],
  ])('are ordinary columns (%j)', (options) => {
    const header = ['id', 'constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty'];
    const types = config(options).columnTypes;
    const build = createItemBuilder(header, config(options), source);
    const item = JSON.parse(build(['k', '1', 'two', 'true', '5', 'x'], 2).json);
    expect(Object.keys(item)).toEqual(header);
    for (const name of header.slice(1)) expect(Object.keys(item[name])).toEqual([Object.hasOwn(types, name) ? types[name] : 'S']);
  });
});

describe('keys', () => {
  it.each([' ', '   '])('made only of spaces (%j) are missing', (blank) => {
    const build = createItemBuilder(['id', 'sku', 'v'], config({ sortKeyColumn: 'sku' }), source);
    expect(() => build([blank, 'x', '1'], 2)).toThrow(/key column "id" is empty or only spaces/);
    expect(() => build(['a', blank, '1'], 3)).toThrow(/sort key column "sku" is empty or only spaces/);
    for (const kept of ['\t', ' a ', '\u00a0']) expect(JSON.parse(build([kept, 'x', '1'], 4).json).id).toEqual({ S: kept });
  });

  it('typed N are one key however they are written, so one batch never holds them twice', () => {
    const build = createItemBuilder(['n', 'v'], config({ keyColumn: 'n', columnTypes: 'n:N' }), source);
    const ids = ['7', '007', '7.0', '70E-1', '0.7e1'].map((written) => build([written, 'x'], 2).keyId);
    expect(new Set(ids).size).toBe(1);
    expect(build(['-7', 'x'], 2).keyId).not.toBe(ids[0]);
    expect(build(['0', 'x'], 2).keyId).toBe(build(['-0.000', 'x'], 2).keyId);
  });

  it('typed N match the items DynamoDB returns unprocessed, however it writes them', () => {
    const options = { keyColumn: 'n', sortKeyColumn: 'm', columnTypes: 'n:N,m:N' };
    const built = createItemBuilder(['n', 'm'], config(options), source)(['007', '1.50'], 2);
    expect(keyIdReader(config(options))({ n: { N: '7' }, m: { N: '1.5' } })).toBe(built.keyId);
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
  // DynamoDB's range: magnitude from 1E-130 up to, not including, 1E+126, or zero.
  it.each(['1e-130', '-1E-130', '9.99999E125', '0e999999999', '0.0', `0.${'0'.repeat(129)}1`, `1${'0'.repeat(125)}`, '1E+0000000000000000000000125'])('accepts %s, in range', (value) => {
    expect(isDynamoNumber(value)).toBe(true);
  });
  it.each(['1e126', '1e-131', '1E+999999999', '-1e126', `0.${'0'.repeat(130)}1`, `1${'0'.repeat(126)}`, '1e99999999999999999999999'])('refuses %s, out of range', (value) => {
    expect(isDynamoNumber(value)).toBe(false);
  });
});

describe('item size', () => {
  it('counts a number by its significant digits, as DynamoDB does', async () => {
    const { itemBytes } = await import('../../../src/items/item-size.js');
    expect(itemBytes({ n: { N: '12345' } })).toBe(1 + 3 + 1);
    expect(itemBytes({ n: { N: '-0000012345.00000E+10' } })).toBe(1 + 3 + 1);
  });

  it('counts a generated key: a row just under the limit without it is too large with it', () => {
    // 136,532 characters of 3 bytes each and the name "v": 409,597 bytes, under the 409,600 limit; the
    // generated key ("id" and 36 characters) takes the item over it.
    const value = '€'.repeat(136_532);
    expect(() => createItemBuilder(['k', 'v'], config({ keyColumn: 'k' }), source)(['a', value], 2)).not.toThrow();
    const generated = createItemBuilder(['v'], config({ generateKey: true }), source);
    expect(() => generated([value], 2)).toThrow(/item is 409635 bytes/);
    expect(() => generated(['x'.repeat(409_600 - 39)], 2)).not.toThrow();
    expect(() => generated(['x'.repeat(409_600 - 38)], 2)).toThrow(/item is 409601 bytes/);
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

describe('a bad value\'s message', () => {
  it('names where the value is once: "attribute" or "column", never twice (issue 35, defect 9)', async () => {
    const { createJsonItemBuilder } = await import('../../../src/items/json-item.js');
    const keys = /** @type {any} */ ({ partition: { name: 'id', type: 'S' } });
    const config = resolveConfig({ file: '/tmp/x', table: 'People', columnTypes: 'tags:SS,b:B' }, {});
    const messageOf = (/** @type {() => unknown} */ build) => {
      try {
        build();
      } catch (error) {
        return /** @type {Error} */ (error).message;
      }
      throw new Error('the row was not refused');
    };
    const exportLine = (/** @type {unknown} */ item) => [JSON.stringify({ Item: { id: { S: 'k' }, ...(/** @type {object} */ (item)) } })];
    const messages = [
      messageOf(() => createJsonItemBuilder('dynamodb-json', config, keys)(exportLine({ n: { N: 'x' } }), 2)),
      messageOf(() => createJsonItemBuilder('dynamodb-json', config, keys)(exportLine({ m: { M: { deep: { BS: ['AQ==', 'AQ=='] } } } }), 3)),
      messageOf(() => createJsonItemBuilder('dynamodb-json', config, keys)(exportLine({ s: { S: 'a', N: '1' } }), 4)),
      messageOf(() => createJsonItemBuilder('jsonl', config, keys)([JSON.stringify({ id: 'k', tags: ['a', 'a'] })], 5)),
      messageOf(() => createItemBuilder(['id', 'tags', 'b'], config, { etag: 'e' })(['k', 'a|a', ''], 6)),
      messageOf(() => createItemBuilder(['id', 'tags', 'b'], config, { etag: 'e' })(['k', 'a', 'not base64'], 7)),
    ];
    expect(messages).toEqual([
      'line 2: attribute "n" is typed N but its value is not a number DynamoDB takes, written as a string',
      'line 3: attribute "m"."deep" is typed BS but has a member twice; a set\'s members are distinct',
      'line 4: attribute "s" has 2 types; a value has one of S, N, B, BOOL, NULL, M, L, SS, NS, BS',
      'line 5: attribute "tags" is typed SS but has a member twice; a set\'s members are distinct',
      'line 6: column "tags" is typed SS but has a member twice; a set\'s members are distinct',
      'line 7: column "b" is typed B but is not base64',
    ]);
  });
});

describe('columns dropped and renamed', () => {
  it('drops columns by their names in the file, then writes the others under their new names, the key and types named as written', () => {
    const build = createItemBuilder(['user_id', 'name', 'notes', 'score'], config({ rename: 'user_id:id,name:full_name', drop: 'notes', columnTypes: 'score:N' }), source);
    const { json, keyId } = build(['u1', 'Ann', 'secret', '7'], 2);
    expect(JSON.parse(json)).toEqual({ id: { S: 'u1' }, full_name: { S: 'Ann' }, score: { N: '7' } });
    expect(keyId).toBe('u1');
  });

  it('refuses a header whose renames name two columns alike, or whose types name a column by its old name', () => {
    expect(() => createItemBuilder(['id', 'a', 'b'], config({ rename: 'a:b' }), source)).toThrow(HeaderError);
    expect(() => config({ rename: 'a:b', columnTypes: 'a:N' })).toThrow(/"a" is renamed to "b", and types name columns as written: name it "b"/);
    expect(() => config({ drop: 'a', columnTypes: 'a:N' })).toThrow(/"a" is left out by the "drop" option/);
    expect(() => config({ rename: 'a:p,a:q' })).toThrow(/"a" is renamed twice \("p" and "q"\)/);
    // A column dropped while another is renamed onto its name: the type is the renamed one's.
    expect(() => config({ drop: 'id2', rename: 'x:id2', columnTypes: 'id2:N' })).not.toThrow();
  });

  it('writes the key from a dropped column\'s place when another column is renamed onto it', () => {
    const build = createItemBuilder(['id', 'legacy'], config({ drop: 'id', rename: 'legacy:id' }), source);
    expect(JSON.parse(build(['old', 'new'], 2).json)).toEqual({ id: { S: 'new' } });
  });
});

describe('the shaping options', () => {
  it('are checked against the keys: a key dropped, renamed away, or a column both dropped and renamed, each with the fix', () => {
    expect(() => config({ drop: 'id' })).toThrow(/"id" is a key column, which every item needs: leave it out of drop/);
    expect(() => config({ rename: 'id:user' })).toThrow(/renames the key column "id" away; the key is named as it is written, after the renames: name it "user"/);
    expect(() => config({ drop: 'a', rename: 'a:b' })).toThrow(/"a" is also renamed: drop it or rename it, not both/);
    expect(() => config({ rename: 'a:x,b:x' })).toThrow(/two columns are renamed "x"/);
    expect(() => config({ rename: 'a' })).toThrow(/"a" is not old:new/);
    expect(config({ rename: { user_id: 'id' }, drop: ['x', 'x'] })).toMatchObject({ rename: { user_id: 'id' }, drop: ['x'] });
  });
});

describe('JSON Lines: drop and rename naming attributes no line has', () => {
  it('are not refused (lines differ); the builder tells which no line had, for the segment\'s warning', async () => {
    const { createJsonItemBuilder } = await import('../../../src/items/json-item.js');
    const keys = /** @type {any} */ ({ partition: { name: 'id', type: 'S' } });
    const build = createJsonItemBuilder('jsonl', resolveConfig({ file: '/tmp/x.jsonl', table: 'People', drop: 'ssn,notes', rename: 'mail:email,name:full' }, {}), keys);
    const absent = /** @type {{ absentColumns: () => string[] }} */ (/** @type {unknown} */ (build)).absentColumns;
    expect(absent().sort()).toEqual(['mail', 'name', 'notes', 'ssn']);
    expect(JSON.parse(build([JSON.stringify({ id: 'a', SSN: '1', notes: 'x' })], 2).json)).toEqual({ id: { S: 'a' }, SSN: { S: '1' } });
    build([JSON.stringify({ id: 'b', name: 'B' })], 3);
    expect(absent().sort()).toEqual(['mail', 'ssn']);
  });
});

describe('JSON Lines: an option naming an attribute in another case', () => {
  it('is warned of once, at the first line that has it so, with both names (review of issue 46)', async () => {
    const { createJsonItemBuilder } = await import('../../../src/items/json-item.js');
    const keys = /** @type {any} */ ({ partition: { name: 'id', type: 'S' } });
    /** @type {Array<Record<string, unknown>>} */
    const warnings = [];
    const shaping = { importTime: 0, warn: (/** @type {string} */ message, /** @type {Record<string, unknown>} */ fields) => void warnings.push({ message, ...fields }) };
    const build = createJsonItemBuilder('jsonl', resolveConfig({ file: '/tmp/x.jsonl', table: 'People', drop: 'ssn', columnTypes: 'amount:N' }, {}), keys, shaping);
    build([JSON.stringify({ id: 'a', n: 1 })], 2);
    expect(warnings).toEqual([]);
    build([JSON.stringify({ id: 'b', SSN: '1' })], 3);
    build([JSON.stringify({ id: 'c', SSN: '2', Amount: 3 })], 4);
    expect(warnings).toEqual([{ message: expect.stringContaining('line 3 has the attribute "SSN" where an option names "ssn": names are compared exactly'), line: 3, attribute: 'SSN', option: 'ssn' }]);
  });
});

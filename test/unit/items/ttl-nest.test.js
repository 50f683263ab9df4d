/**
 * The TTL column and nested maps (issue 40, item 4): the value rules of items/ttl.js, the nesting of
 * items/nest.js, both builders with them, and the options' checks.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { HeaderError, RowError } from '../../../src/errors.js';
import { createItemBuilder } from '../../../src/items/item-builder.js';
import { createJsonItemBuilder } from '../../../src/items/json-item.js';
import { nestProblem } from '../../../src/items/nest.js';
import { looksLikeMilliseconds, ttlSeconds } from '../../../src/items/ttl.js';

const config = (/** @type {Record<string, unknown>} */ options = {}) => resolveConfig({ bucket: 'b', key: 'k.csv', table: 'people', ...options }, {});
const source = { etag: 'etag1' };
const keys = /** @type {const} */ ({ partition: { name: 'id', type: 'S' } });
/** An import at 2026-11-26T14:05:09.750Z, whose warnings are kept. */
const shapingAt = () => {
  /** @type {Array<Record<string, unknown>>} */
  const warnings = [];
  return { warnings, shaping: { importTime: Date.parse('2026-11-26T14:05:09.750Z'), warn: (/** @type {string} */ message, /** @type {Record<string, unknown>} */ fields) => warnings.push({ message, ...fields }) } };
};
/** @param {() => unknown} build */
const reasonOf = (build) => {
  try {
    build();
  } catch (error) {
    return error instanceof RowError ? error.reason : error;
  }
  return undefined;
};

describe('a TTL value', () => {
  it('is whole epoch seconds, written without leading zeros', () => {
    expect(ttlSeconds('1790000000')).toBe('1790000000');
    expect(ttlSeconds('0001790000000')).toBe('1790000000');
    expect(ttlSeconds('-0')).toBe('0');
    expect(ttlSeconds('-86400')).toBe('-86400');
    // A compact date is a number: seconds (this one, 1970-08-23).
    expect(ttlSeconds('20261126')).toBe('20261126');
    for (const bad of ['', ' 1', '1 ', '+5', '1.5', '1e9', '0x10', 'abc', '1'.repeat(39)]) expect(ttlSeconds(bad), bad).toBeUndefined();
  });

  it('or an ISO 8601 date (midnight UTC) or date-time with Z or an offset, its fraction dropped toward the past', () => {
    expect(ttlSeconds('1970-01-01')).toBe('0');
    expect(ttlSeconds('2026-11-26')).toBe(String(Date.UTC(2026, 10, 26) / 1000));
    expect(ttlSeconds('2026-11-26T14:05Z')).toBe(String(Date.UTC(2026, 10, 26, 14, 5) / 1000));
    expect(ttlSeconds('2026-11-26T14:05:09.999Z')).toBe(String(Date.UTC(2026, 10, 26, 14, 5, 9) / 1000));
    expect(ttlSeconds('2026-11-26T15:05:09,5+01:00')).toBe(String(Date.UTC(2026, 10, 26, 14, 5, 9) / 1000));
    expect(ttlSeconds('2026-11-26T09:35:09-0430')).toBe(String(Date.UTC(2026, 10, 26, 14, 5, 9) / 1000));
    expect(ttlSeconds('2026-11-27T00:05:09+10')).toBe(String(Date.UTC(2026, 10, 26, 14, 5, 9) / 1000));
    // Before 1970: negative, and the fraction still toward the past (-0.5 s is -1).
    expect(ttlSeconds('1969-12-31T23:59:59.5Z')).toBe('-1');
    // Years below 100 are those years, not 19xx (Date.UTC's reading).
    expect(ttlSeconds('0050-01-01')).toBe(String(new Date('0050-01-01T00:00:00Z').getTime() / 1000));
    expect(ttlSeconds('9999-12-31T23:59:59Z')).toBe('253402300799');
    // A leap second is the next minute's first second.
    expect(ttlSeconds('2016-12-31T23:59:60Z')).toBe(String(Date.UTC(2017, 0, 1) / 1000));
    expect(ttlSeconds('2024-02-29')).toBe(String(Date.UTC(2024, 1, 29) / 1000));
  });

  it('is nothing else: no zone, no real day or hour, other spellings', () => {
    for (const bad of ['2026-11-26T14:05', '2026-11-26T14:05:09', '2026-02-29', '1900-02-29', '2026-13-01', '2026-00-10', '2026-11-31', '2026-11-26T24:00Z', '2026-11-26T14:60Z', '2026-11-26T14:05:61Z', '2026-11-26T14:05+24:00', '2026-11-26T14:05+01:60', '2026-11-26 14:05Z', '2026-11-26t14:05z', '20261126T1405Z', '2026-11-26Z', '26-11-2026', 'tomorrow', '2026-11-26T14:05Z ', '+2026-11-26']) {
      expect(ttlSeconds(bad), bad).toBeUndefined();
    }
  });

  it('looks like milliseconds from 1e11 (12 digits): after the year 5138 as seconds, after March 1973 as milliseconds', () => {
    expect(looksLikeMilliseconds('99999999999')).toBe(false);
    expect(looksLikeMilliseconds('100000000000')).toBe(true);
    expect(looksLikeMilliseconds('-100000000000')).toBe(true);
    expect(looksLikeMilliseconds(String(Date.UTC(2026, 0, 1)))).toBe(true);
  });
});

describe('the ttl option', () => {
  it('names a column, or fills it with the import\'s time plus a duration', () => {
    expect(config({ ttl: 'expires' }).ttl).toEqual({ column: 'expires' });
    expect(config({ ttl: 'expires:+30d' }).ttl).toEqual({ column: 'expires', after: 30 * 86400 });
    expect(config({ ttl: 'a:b:+2h' }).ttl).toEqual({ column: 'a:b', after: 7200 });
    expect(config({ ttl: 'a:b' }).ttl).toEqual({ column: 'a:b' });
    expect(config({ ttl: { column: 'expires', after: 60 } }).ttl).toEqual({ column: 'expires', after: 60 });
    expect(config({}).ttl).toBeUndefined();
  });

  it('refuses a bad duration, a zero or huge one, and a key, another type or a delete, each with the fix', () => {
    expect(() => config({ ttl: 'expires:+30x' })).toThrow(/"expires:\+30d" to write the import's time plus 30 days/);
    expect(() => config({ ttl: 'expires:+' })).toThrow(/\+Nd, \+Nh, \+Nm or \+Ns/);
    expect(() => config({ ttl: ':+1d' })).toThrow(/name the column/);
    expect(() => config({ ttl: 'expires:+0d' })).toThrow(/a duration of 0 expires every item as it is written: give at least \+1s/);
    expect(() => config({ ttl: 'expires:+36501d' })).toThrow(/at most 36500d/);
    expect(() => config({ ttl: 'expires:+9999999999999d' })).toThrow(/Invalid option "ttl"/);
    expect(() => config({ ttl: '' })).toThrow(/Invalid option "ttl"/);
    expect(() => config({ ttl: 5 })).toThrow(/Invalid option "ttl"/);
    expect(() => config({ ttl: 'id' })).toThrow(/"id" is a key column; DynamoDB's TTL attribute is another attribute/);
    expect(() => config({ ttl: 'sk:+1d', sortKeyColumn: 'sk' })).toThrow(/"sk" is a key column/);
    expect(() => config({ ttl: 'expires', columnTypes: 'expires:S' })).toThrow(/"expires" is the TTL column, always written as N \(epoch seconds\): leave it out of columnTypes, or type it N/);
    expect(config({ ttl: 'expires', columnTypes: 'expires:N' }).ttl).toEqual({ column: 'expires' });
    expect(() => config({ ttl: 'expires', mode: 'delete' })).toThrow(/a delete writes no attributes/);
    expect(() => config({ ttl: 'a.b', nest: true })).toThrow(/DynamoDB's TTL attribute is a top-level one: rename the column/);
  });
});

describe('the nest option', () => {
  it('refuses dotted key columns, with the fix', () => {
    expect(() => config({ nest: true, keyColumn: 'user.id' })).toThrow(/Invalid option "keyColumn": got "user.id"; with the "nest" option, a dotted name becomes a map, and a key is a top-level attribute: rename the column to a name without a dot \(rename "user.id:user_id"\)/);
    expect(() => config({ nest: true, sortKeyColumn: 'a.b' })).toThrow(/Invalid option "sortKeyColumn"/);
    expect(config({ keyColumn: 'user.id' }).keyColumn).toBe('user.id');
  });

  it('finds names with an empty part and names inside others', () => {
    expect(nestProblem(['id', 'a.b', 'a.c', 'b.c.d', 'ab', 'a'])).toEqual({ outer: 5, inner: 1 });
    expect(nestProblem(['a.b', 'a.b.c'])).toEqual({ outer: 0, inner: 1 });
    expect(nestProblem(['a.b.c', 'a.bc', 'a.b.cd'])).toBeUndefined();
    for (const name of ['a..b', '.a', 'a.', '.']) expect(nestProblem(['id', name]), name).toEqual({ empty: 1 });
  });
});

describe('the CSV builder', () => {
  it('writes the TTL column as N seconds from numbers and dates, rejects other values as INVALID_TTL, and warns once of milliseconds', () => {
    const { warnings, shaping } = shapingAt();
    const build = createItemBuilder(['id', 'expires', 'n'], config({ ttl: 'expires', columnTypes: 'expires:N,n:N' }), source, { shaping });
    expect(JSON.parse(build(['a', '1790000000', '1'], 2).json)).toEqual({ id: { S: 'a' }, expires: { N: '1790000000' }, n: { N: '1' } });
    expect(JSON.parse(build(['a', '2026-11-26T15:05:09.9+01:00', '1'], 3).json).expires).toEqual({ N: String(Date.UTC(2026, 10, 26, 14, 5, 9) / 1000) });
    expect(JSON.parse(build(['a', '', '1'], 4).json)).toEqual({ id: { S: 'a' }, n: { N: '1' } });
    const error = /** @type {RowError} */ ((() => { try { build(['a', 'next tuesday', 'x'], 5); } catch (e) { return e; } })());
    expect(error).toBeInstanceOf(RowError);
    expect(error.reason).toBe('INVALID_TTL');
    expect(error.message).toMatch(/^line 5: the TTL column "expires" is neither whole epoch seconds nor an ISO 8601 date/);
    expect(error.message).not.toContain('tuesday');
    expect(build(['a', '1790000000000', '1'], 6).json).toContain('"expires":{"N":"1790000000000"}');
    build(['a', '1790000000001', '1'], 7);
    expect(warnings).toEqual([expect.objectContaining({ message: 'TTL values look like milliseconds', column: 'expires', line: 6 })]);
    expect(warnings[0].fix).toMatch(/write seconds \(milliseconds \/ 1000\) or ISO 8601 dates/);
  });

  it('gives an empty TTL cell what emptyCell gives an N cell: nothing, or NULL', () => {
    const shaping = shapingAt().shaping;
    const nulls = createItemBuilder(['id', 'expires'], config({ ttl: 'expires', emptyCell: 'null' }), source, { shaping });
    expect(JSON.parse(nulls(['a', ''], 2).json)).toEqual({ id: { S: 'a' }, expires: { NULL: true } });
    const empties = createItemBuilder(['id', 'expires'], config({ ttl: 'expires', emptyCell: 'empty-string' }), source, { shaping });
    expect(JSON.parse(empties(['a', ''], 2).json)).toEqual({ id: { S: 'a' } });
  });

  it('fills a TTL column with the import\'s time (whole seconds) plus the duration, the same in every row', () => {
    const { shaping } = shapingAt();
    const build = createItemBuilder(['id', 'n'], config({ ttl: 'expires:+30d' }), source, { shaping, sized: true });
    const expires = String(Math.floor(Date.parse('2026-11-26T14:05:09.750Z') / 1000) + 30 * 86400);
    const first = build(['a', 'x'], 2);
    expect(JSON.parse(first.json)).toEqual({ id: { S: 'a' }, n: { S: 'x' }, expires: { N: expires } });
    expect(first.bytes).toBe(2 + 1 + 1 + 1 + 7 + 6);
    expect(JSON.parse(build(['b', ''], 3).json)).toEqual({ id: { S: 'b' }, expires: { N: expires } });
  });

  it('refuses a header without the TTL column, or with the column the import would fill, naming the fix', () => {
    expect(() => createItemBuilder(['id', 'n'], config({ ttl: 'expires' }), source)).toThrow(/the header has no column "expires"; name the column that holds the expiry times/);
    expect(() => createItemBuilder(['id', 'expires'], config({ ttl: 'expires:+1h' }), source)).toThrow(/header column 2 is the TTL column "expires", which ttl fills with the import's time plus 3600 s: drop that column/);
    // Dropped, the import fills it; renamed onto, it is read.
    expect(JSON.parse(createItemBuilder(['id', 'expires'], config({ ttl: 'expires:+1s', drop: 'expires' }), source, { shaping: shapingAt().shaping })(['a', 'x'], 2).json).expires).toEqual({ N: String(Math.floor(Date.parse('2026-11-26T14:05:09.750Z') / 1000) + 1) });
    expect(JSON.parse(createItemBuilder(['id', 'exp_ms'], config({ ttl: 'expires', rename: 'exp_ms:expires' }), source)(['a', '5'], 2).json)).toEqual({ id: { S: 'a' }, expires: { N: '5' } });
  });

  it('nests dotted columns at any depth, typed by their full names, leaving out empty leaves and maps without any', () => {
    const build = createItemBuilder(['id', 'address.city', 'name', 'address.zip', 'a.b.c.d', 'a.b.e'], config({ nest: true, columnTypes: 'address.zip:N' }), source, { sized: true });
    const built = build(['k', 'Oslo', 'Ann', '0150', 'deep', ''], 2);
    expect(JSON.parse(built.json)).toEqual({ id: { S: 'k' }, address: { M: { city: { S: 'Oslo' }, zip: { N: '0150' } } }, name: { S: 'Ann' }, a: { M: { b: { M: { c: { M: { d: { S: 'deep' } } } } } } } });
    expect(built.bytes).toBeGreaterThan(0);
    expect(JSON.parse(build(['k', '', 'Ann', '', '', ''], 3).json)).toEqual({ id: { S: 'k' }, name: { S: 'Ann' } });
    const error = reasonOf(() => build(['k', 'Oslo', 'Ann', 'x', '', ''], 4));
    expect(error).toBe('INVALID_NUMBER');
    const nulls = createItemBuilder(['id', 'a.b'], config({ nest: true, emptyCell: 'null' }), source);
    expect(JSON.parse(nulls(['k', ''], 2).json)).toEqual({ id: { S: 'k' }, a: { M: { b: { NULL: true } } } });
  });

  it('refuses a header whose nested names conflict, or have an empty part, naming the columns by position', () => {
    expect(() => createItemBuilder(['id', 'address', 'address.city'], config({ nest: true }), source)).toThrow(/with the "nest" option, header column 3 would be a member of the map header column 2 names/);
    expect(() => createItemBuilder(['id', 'a.b', 'a.b.c'], config({ nest: true }), source)).toThrow(HeaderError);
    for (const name of ['a..b', '.a', 'a.']) expect(() => createItemBuilder(['id', name], config({ nest: true }), source)).toThrow(/header column 2 has an empty part between its dots/);
    expect(() => createItemBuilder(['id.x', 'n'], config({ nest: true, generateKey: true }), source)).toThrow(/header column 1 would be a member of the map the generated key column "id" names/);
    expect(() => createItemBuilder(['id', 'expires.at'], config({ nest: true, ttl: 'expires:+1d' }), source)).toThrow(/header column 2 would be a member of the map the TTL column "expires" names/);
    // Without nest a dotted name is a name like any other; a rename can lift a conflict.
    expect(JSON.parse(createItemBuilder(['id', 'a', 'a.b'], config(), source)(['k', '1', '2'], 2).json)).toEqual({ id: { S: 'k' }, a: { S: '1' }, 'a.b': { S: '2' } });
    expect(JSON.parse(createItemBuilder(['id', 'a', 'a.b'], config({ nest: true, rename: 'a:a_old' }), source)(['k', '1', '2'], 2).json)).toEqual({ id: { S: 'k' }, a_old: { S: '1' }, a: { M: { b: { S: '2' } } } });
  });

  it('nests a member named __proto__ as any other, and sizes nested items exactly', () => {
    const build = createItemBuilder(['id', '__proto__.x', 'm.constructor'], config({ nest: true }), source);
    expect(JSON.parse(build(['k', '1', '2'], 2).json)).toEqual(JSON.parse('{"id":{"S":"k"},"__proto__":{"M":{"x":{"S":"1"}}},"m":{"M":{"constructor":{"S":"2"}}}}'));
    const deep = createItemBuilder(['id', `${'a.'.repeat(15)}z`], config({ nest: true }), source);
    expect(reasonOf(() => deep(['k', 'v'.repeat(409_550)], 2))).toBe('ITEM_TOO_LARGE');
  });
});

describe('the JSON Lines builder', () => {
  const json = (/** @type {Record<string, unknown>} */ options, /** @type {import('../../../src/items/shaping.js').Shaping} */ shaping = shapingAt().shaping) => createJsonItemBuilder('jsonl', config({ format: 'jsonl', ...options }), keys, shaping);

  it('reads the TTL attribute from numbers and strings, null as NULL, anything else INVALID_TTL', () => {
    const { warnings, shaping } = shapingAt();
    const build = json({ ttl: 'exp' }, shaping);
    expect(JSON.parse(build(['{"id":"a","exp":1790000000}'], 1).json)).toEqual({ id: { S: 'a' }, exp: { N: '1790000000' } });
    expect(JSON.parse(build(['{"id":"a","exp":"2026-11-26"}'], 2).json).exp).toEqual({ N: String(Date.UTC(2026, 10, 26) / 1000) });
    expect(JSON.parse(build(['{"id":"a","exp":"17"}'], 3).json).exp).toEqual({ N: '17' });
    expect(JSON.parse(build(['{"id":"a","exp":null}'], 4).json).exp).toEqual({ NULL: true });
    expect(JSON.parse(build(['{"id":"a"}'], 5).json)).toEqual({ id: { S: 'a' } });
    for (const bad of ['1.5', '1e9', '""', 'true', '[1]', '{"a":1}', '"soon"']) expect(reasonOf(() => build([`{"id":"a","exp":${bad}}`], 6)), bad).toBe('INVALID_TTL');
    build(['{"id":"a","exp":1790000000000}'], 7);
    expect(warnings).toHaveLength(1);
  });

  it('fills the TTL attribute, and rejects a line that has it', () => {
    const build = json({ ttl: 'exp:+1m' });
    expect(JSON.parse(build(['{"id":"a"}'], 1).json)).toEqual({ id: { S: 'a' }, exp: { N: String(Math.floor(Date.parse('2026-11-26T14:05:09.750Z') / 1000) + 60) } });
    expect(reasonOf(() => build(['{"id":"a","exp":5}'], 2))).toBe('INVALID_TTL');
    expect(reasonOf(() => json({ ttl: 'exp:+1m', rename: { e: 'exp' } })(['{"id":"a","e":5}'], 2))).toBe('INVALID_TTL');
    expect(JSON.parse(json({ ttl: 'exp:+1m', drop: ['exp'] })(['{"id":"a","exp":5}'], 2).json).exp.N).not.toBe('5');
  });

  it('nests dotted attribute names, typed by their full names, and rejects conflicts per line', () => {
    const build = json({ nest: true, columnTypes: 'address.zip:N' });
    expect(JSON.parse(build(['{"id":"a","address.city":"Oslo","address.zip":"0150","x.y.z":[1],"x.w":{"q":null}}'], 1).json)).toEqual({
      id: { S: 'a' },
      address: { M: { city: { S: 'Oslo' }, zip: { N: '0150' } } },
      x: { M: { y: { M: { z: { L: [{ N: '1' }] } } }, w: { M: { q: { NULL: true } } } } },
    });
    expect(reasonOf(() => build(['{"id":"a","address":{"city":"x"},"address.zip":1}'], 2))).toBe('INVALID_JSON');
    expect(reasonOf(() => build(['{"id":"a","a.b.c":1,"a.b":2}'], 3))).toBe('INVALID_JSON');
    for (const name of ['a..b', '.a', 'a.']) expect(reasonOf(() => build([`{"id":"a",${JSON.stringify(name)}:1}`], 4)), name).toBe('INVALID_ATTRIBUTE_VALUE');
    // A value's own error comes first; a map named as the key is of the wrong type.
    expect(reasonOf(() => build(['{"id":"a","a":1,"a.b":2,"address.zip":"x"}'], 5))).toBe('INVALID_NUMBER');
    expect(reasonOf(() => build(['{"id.x":"a"}'], 6))).toBe('KEY_TYPE');
    expect(reasonOf(() => json({ nest: true, ttl: 'exp:+1d' })(['{"id":"a","exp.x":1}'], 7))).toBe('INVALID_JSON');
  });

  it('refuses a table key that is the TTL attribute or dotted under nest, and a DynamoDB export shaped', () => {
    expect(() => createJsonItemBuilder('jsonl', config({ format: 'jsonl', keyColumn: 'k', ttl: 'id' }), keys)).toThrow(/"id" is one of the table's keys/);
    expect(() => createJsonItemBuilder('jsonl', config({ format: 'jsonl', nest: true }), { partition: { name: 'a.b', type: 'S' } })).toThrow(/the table's key "a.b" has a dot/);
    expect(() => createJsonItemBuilder('dynamodb-json', config({ ttl: 'exp' }), keys)).toThrow(/Invalid option "ttl".*a DynamoDB export's items are written as the table held them/);
    expect(() => createJsonItemBuilder('dynamodb-json', config({ nest: true }), keys)).toThrow(/Invalid option "nest"/);
  });
});

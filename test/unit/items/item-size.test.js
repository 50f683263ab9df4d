// A dry run sizes every item without parsing it back: the CSV builder adds up its members' bytes as it
// writes them, and a flat item of another format is sized from its wire JSON. Both must agree with
// itemBytes of the parsed item, for any names, values, types and empty-cell rule.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { RowError } from '../../../src/errors.js';
import { isWellFormed } from '../../../src/items/attribute-values.js';
import { createItemBuilder } from '../../../src/items/item-builder.js';
import { itemBytes, wireItemBytes } from '../../../src/items/item-size.js';

const RUNS = Number(process.env.SIZE_RUNS ?? 300);
const source = { etag: 'e' };

// Text of every kind: ASCII, quotes and backslashes (escaped in JSON), control characters, two- and
// three-byte characters, astral ones (a surrogate pair) and half pairs.
const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'Z', ' ', '"', '\\', '\n', '\u0001', 'é', '€', '😀', '\ud800', '\udc00', ':', '{', '}', ','), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })), maxLength: 12 });
const number = fc.oneof(fc.integer().map(String), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e20, max: 1e20 }).map(String), fc.constantFrom('007', '-0.000120', '1E+5', '12345678901234567890123456789012345678'));

describe('wireItemBytes', () => {
  it('is itemBytes of the parsed item, for every flat item it reads; it reads every one without escapes', () => {
    /** @type {fc.Arbitrary<import('../../../src/items/attribute-values.js').AttributeValue>} */
    const value = fc.oneof(
      text.map((S) => ({ S })),
      number.map((N) => ({ N })),
      fc.boolean().map((BOOL) => ({ BOOL })),
      fc.constant({ NULL: true }),
      fc.constantFrom('M', 'L', 'B', 'SS').map((type) => (type === 'M' ? { M: { a: { S: 'x' } } } : type === 'L' ? { L: [{ N: '1' }] } : type === 'B' ? { B: 'AAE=' } : { SS: ['a'] })),
    );
    fc.assert(
      fc.property(fc.dictionary(text.filter((name) => name !== '__proto__'), value, { maxKeys: 8 }), (item) => {
        const json = JSON.stringify(item);
        const bytes = wireItemBytes(json);
        const flat = Object.values(item).every((v) => v.S !== undefined || v.N !== undefined || v.BOOL !== undefined || v.NULL !== undefined);
        const plainTexts = Object.entries(item).every(([name, v]) => [name, v.S ?? ''].every((t) => JSON.stringify(t) === `"${t}"` && isWellFormed(t)));
        if (flat && plainTexts) expect(bytes).toBe(itemBytes(item));
        else if (bytes !== undefined) expect(bytes).toBe(itemBytes(item));
        if (!flat) expect(bytes).toBeUndefined();
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('is undefined for JSON in another shape than the builders write', () => {
    for (const json of ['', '{', '{"a":{"S":"x"}', '{"a":{"S":"x"},}', '{"a":{"S":"x"}}}', '{"a":"x"}', '{"a":{"S":1}}', '{"a":{"N":7}}', '{"a":{"BOOL":"true"}}', '{"a":{"NULL":false}}', '[{"a":{"S":"x"}}]', '{"a":{"S":"x","N":"1"}}']) {
      expect(wireItemBytes(json), json).toBeUndefined();
    }
    expect(wireItemBytes('{}')).toBe(0);
  });
});

describe('the CSV builder, sized', () => {
  it('gives each item the bytes of its JSON, for any columns, types, empty-cell rule and generated key', () => {
    const column = fc.record({ name: text.filter((name) => name.trim() !== '' && name.trim() === name), type: fc.constantFrom('S', 'S', 'N', 'BOOL', 'M', 'SS') });
    const cell = (/** @type {string} */ type) =>
      fc.oneof(
        { weight: 1, arbitrary: fc.constant('') },
        { weight: 4, arbitrary: type === 'N' ? number : type === 'BOOL' ? fc.constantFrom('true', 'FALSE', 'yes') : type === 'M' ? fc.constantFrom('{"a":{"S":"é"}}', '{}', 'x') : type === 'SS' ? fc.constantFrom('a|b', 'é', '') : text },
      );
    const table = fc.uniqueArray(column, { minLength: 1, maxLength: 6, selector: (c) => c.name.trim() }).chain((columns) =>
      fc.record({
        columns: fc.constant(columns),
        rows: fc.array(fc.tuple(...columns.map((c) => cell(c.type))), { minLength: 1, maxLength: 5 }),
        emptyCell: fc.constantFrom('omit', 'null', 'empty-string'),
        generateKey: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(table, ({ columns, rows, emptyCell, generateKey }) => {
        const names = columns.map((c) => c.name);
        // The key column is the table's key, typed S or N.
        if (!generateKey && columns[0].type !== 'N') columns = [{ ...columns[0], type: 'S' }, ...columns.slice(1)];
        const options = { columnTypes: Object.fromEntries(columns.filter((c) => c.type !== 'S').map((c) => [c.name, c.type])), emptyCell, setSeparator: '|' };
        const config = resolveConfig({ bucket: 'b', key: 'k.csv', table: 'people', ...(generateKey ? { generateKey: true, keyColumn: 'id€' } : { keyColumn: names[0] }), ...options }, {});
        if (generateKey && names.includes('id€')) return;
        const build = createItemBuilder(names, config, source, { sized: true });
        const unsized = createItemBuilder(names, config, source);
        const sizesOnly = createItemBuilder(names, config, source, { sized: true, json: false });
        const outcome = (/** @type {() => import('../../../src/items/item-builder.js').BuiltItem} */ run) => {
          try {
            return run();
          } catch (error) {
            expect(error).toBeInstanceOf(RowError);
            return /** @type {RowError} */ (error).reason;
          }
        };
        rows.forEach((fields, x) => {
          const built = outcome(() => build(fields, x + 2));
          // Without its JSON, the same size, or the same reject.
          const withoutJson = outcome(() => sizesOnly(fields, x + 2));
          if (typeof built === 'string') {
            expect(withoutJson).toBe(built);
            return;
          }
          expect(built.bytes).toBe(itemBytes(JSON.parse(built.json)));
          const flat = columns.every((c) => c.type === 'S' || c.type === 'N' || c.type === 'BOOL');
          expect(withoutJson).toEqual({ ...built, json: flat ? '' : built.json });
          // Sized or not, the same item.
          expect({ ...unsized(fields, x + 2), bytes: built.bytes }).toEqual(built);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('rejects an item over 400 KB without its JSON as with it, and sizes one just under it alike', () => {
    const config = resolveConfig({ bucket: 'b', key: 'k.csv', table: 'people', keyColumn: 'id', columnTypes: { n: 'N' } }, {});
    const names = ['id', 'note', 'n', 'é'];
    const build = createItemBuilder(names, config, source, { sized: true });
    const sizesOnly = createItemBuilder(names, config, source, { sized: true, json: false });
    const besidesNote = itemBytes(JSON.parse(build(['k1', 'x', '12', 'éé'], 2).json)) - 1;
    const under = ['k1', 'x'.repeat(400 * 1024 - besidesNote), '12', 'éé'];
    expect(sizesOnly(under, 2)).toEqual({ ...build(under, 2), json: '' });
    expect(sizesOnly(under, 2).bytes).toBe(400 * 1024);
    const over = ['k1', 'x'.repeat(400 * 1024 - besidesNote + 1), '12', 'éé'];
    expect(() => build(over, 3)).toThrow(expect.objectContaining({ reason: 'ITEM_TOO_LARGE' }));
    expect(() => sizesOnly(over, 3)).toThrow(expect.objectContaining({ reason: 'ITEM_TOO_LARGE', message: 'line 3: item is 409601 bytes; DynamoDB\'s limit is 409600' }));
  });
});

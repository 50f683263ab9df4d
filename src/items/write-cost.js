/**
 * What writing a row costs, as DynamoDB counts it: the item's write capacity units (one per started KB
 * of the item), and one write in each secondary index the item lands in (an index holds items that have
 * all of its key attributes), sized by what the index projects: the keys only, the keys and listed
 * attributes, or the whole item. A row with an index key attribute of another type than the index's
 * definition, or longer than a key may be (2,048 bytes for a partition key, 1,024 for a sort key), is
 * refused by DynamoDB whole, whether or not the index's other key is there: a reject the dry run foresees.
 *
 * Assumed: each put creates its item (a put that replaces an item whose index key changes costs one more
 * index write, for the old entry's removal) and index entries count without the 100 bytes DynamoDB adds
 * for storage.
 */
import { ceilingOf } from '../write/table-facts.js';
import { MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, valueBytes } from './item-size.js';

/** An attribute that is the generated key, or that the header does not have. */
const GENERATED = -1;
const ABSENT = -2;

/**
 * One secondary index, as the cost of a row needs it.
 * @typedef {object} IndexCost
 * @property {string} name
 * @property {'global' | 'local'} kind
 * @property {number[]} keyColumns   columns of the header that hold the index's key attributes (GENERATED, ABSENT: not in the header)
 * @property {number[] | 'ALL'} projected  columns whose attributes the index holds
 * @property {Array<{ column: number, name: string, type: string }>} mistyped  index keys the import types otherwise
 * @property {Array<{ column: number, name: string, most: number }>} keyLimits  index keys in the header, and their most bytes
 * @property {import('../write/table-facts.js').Ceiling | undefined} writeCeiling  the index's own writes per second (a global index's: ceilingOf)
 */

/**
 * @param {string[]} header  trimmed
 * @param {Pick<import('../config.js').ImportConfig, 'keyColumn' | 'sortKeyColumn' | 'generateKey' | 'columnTypes' | 'emptyCell' | 'setSeparator'>} config
 * @param {import('@aws-sdk/client-dynamodb').TableDescription} table
 */
export function createWriteCost(header, config, table) {
  /** Where an attribute comes from: a column of the header, the generated key, or nowhere. @param {string} name */
  const columnOf = (name) => {
    if (name === config.keyColumn && config.generateKey) return GENERATED;
    const at = header.indexOf(name);
    return at === -1 ? ABSENT : at;
  };
  const typeOf = new Map((table.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  const nameBytes = header.map((name) => Buffer.byteLength(name));
  const types = header.map((name) => config.columnTypes[name] ?? 'S');
  const generatedKeyBytes = config.generateKey ? Buffer.byteLength(config.keyColumn) + 36 : 0;
  const tableKeys = [config.keyColumn, config.sortKeyColumn].filter((name) => name !== undefined).map((name) => columnOf(/** @type {string} */ (name)));

  /** @type {IndexCost[]} */
  const indexes = [
    ...(table.GlobalSecondaryIndexes ?? []).map((index) => ({ index, kind: /** @type {const} */ ('global') })),
    ...(table.LocalSecondaryIndexes ?? []).map((index) => ({ index, kind: /** @type {const} */ ('local') })),
  ].map(({ index, kind }) => {
    const keys = (index.KeySchema ?? []).map((k) => ({ name: /** @type {string} */ (k.AttributeName), most: k.KeyType === 'RANGE' ? MAX_SORT_KEY_BYTES : MAX_PARTITION_KEY_BYTES }));
    const keyColumns = keys.map(({ name }) => columnOf(name));
    const projection = index.Projection?.ProjectionType ?? 'ALL';
    const included = projection === 'INCLUDE' ? (index.Projection?.NonKeyAttributes ?? []).map(columnOf) : [];
    const projected = projection === 'ALL' ? /** @type {const} */ ('ALL') : [...new Set([...tableKeys, ...keyColumns, ...included])].filter((column) => column !== ABSENT);
    const inHeader = keys.map(({ name, most }, i) => ({ column: keyColumns[i], name, most, type: typeOf.get(name) ?? 'S' })).filter(({ column }) => column >= 0);
    const mistyped = inHeader.filter(({ column, type }) => types[column] !== type);
    const throughput = /** @type {import('@aws-sdk/client-dynamodb').GlobalSecondaryIndexDescription} */ (index);
    return { name: /** @type {string} */ (index.IndexName), kind, keyColumns, projected, mistyped, keyLimits: inHeader, writeCeiling: kind === 'global' ? ceilingOf(throughput) : undefined };
  });

  const sizes = new Array(header.length).fill(0);
  // Which cells of the row are an empty cell kept as NULL or "" (emptyCell): no index takes either as a key.
  const blank = new Array(header.length).fill(false);
  const { emptyCell, setSeparator } = config;

  /**
   * @param {string[]} fields  a row the item builder accepted
   * @param {number[]} indexWcu  adds each index's write capacity units, in the order of `indexes`
   * @param {number[]} indexItems  adds one for each index the item lands in
   * @returns {{ itemBytes: number, wcu: number, refused: string | undefined }}  refused: why DynamoDB would refuse the row
   */
  function costOf(fields, indexWcu, indexItems) {
    let itemBytes = generatedKeyBytes;
    for (let i = 0; i < fields.length; i++) {
      const value = fields[i];
      if (value === '') {
        blank[i] = emptyCell === 'null' || (emptyCell === 'empty-string' && types[i] === 'S');
        sizes[i] = blank[i] ? nameBytes[i] + (emptyCell === 'null' ? 1 : 0) : 0;
        itemBytes += sizes[i];
        continue;
      }
      blank[i] = false;
      sizes[i] = nameBytes[i] + valueBytes(types[i], value, setSeparator);
      itemBytes += sizes[i];
    }
    const present = (/** @type {number} */ column) => column === GENERATED || (column >= 0 && sizes[column] > 0);
    for (const index of indexes) {
      for (const key of index.keyLimits) if (blank[key.column]) return { itemBytes, wcu: 0, refused: `index ${index.name}'s key "${key.name}" would be ${emptyCell === 'null' ? 'NULL' : 'an empty string'} (an empty cell, emptyCell ${emptyCell})` };
      for (const key of index.mistyped) if (sizes[key.column] > 0) return { itemBytes, wcu: 0, refused: `index ${index.name} types "${key.name}" as ${key.type}` };
      for (const key of index.keyLimits) {
        if (sizes[key.column] - nameBytes[key.column] > key.most) return { itemBytes, wcu: 0, refused: `"${key.name}" is longer than index ${index.name}'s key may be (${key.most} bytes)` };
      }
    }
    for (let x = 0; x < indexes.length; x++) {
      const index = indexes[x];
      if (!index.keyColumns.every(present)) continue;
      const bytes = index.projected === 'ALL' ? itemBytes : index.projected.reduce((sum, column) => sum + (column === GENERATED ? generatedKeyBytes : sizes[column]), 0);
      indexWcu[x] += wcuOf(bytes);
      indexItems[x]++;
    }
    return { itemBytes, wcu: wcuOf(itemBytes), refused: undefined };
  }

  return { indexes, costOf };
}

/** Write capacity units of a write of this many bytes: one per started KB, one at least. @param {number} bytes */
export const wcuOf = (bytes) => Math.max(1, Math.ceil(bytes / 1024));

/**
 * What writing an item costs, as DynamoDB counts it, from the item the import would send (any format): the item's write capacity units (one per started KB
 * of the item), and one write in each secondary index the item lands in (an index holds items that have
 * all of its key attributes), sized by what the index projects: the keys only, the keys and listed
 * attributes, or the whole item. A row with an index key attribute of another type than the index's
 * definition (NULL included), empty, or longer than a key may be (2,048 bytes for a partition key, 1,024
 * for a sort key), is refused by DynamoDB whole, whether or not the index's other key is there: a reject
 * the dry run foresees.
 *
 * Assumed: each put creates its item (a put that replaces an item whose index key changes costs one more
 * index write, for the old entry's removal) and index entries count without the 100 bytes DynamoDB adds
 * for storage.
 */
import { ceilingOf } from './table-facts.js';
import { tableKeysOf } from './table-check.js';
import { attributeBytes, keyValueOf } from '../items/attribute-values.js';
import { itemBytes as sizeOf, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, wireItemBytes } from '../items/item-size.js';

/**
 * One secondary index, as the cost of an item needs it.
 * @typedef {object} IndexCost
 * @property {string} name
 * @property {'global' | 'local'} kind
 * @property {Array<{ name: string, type: string, most: number }>} keys  its key attributes, their types and most bytes
 * @property {string[] | 'ALL'} projected  attributes the index holds
 * @property {import('./table-facts.js').Ceiling | undefined} writeCeiling  the index's own writes per second (a global index's: ceilingOf)
 */

/**
 * @param {import('@aws-sdk/client-dynamodb').TableDescription} table
 */
export function createWriteCost(table) {
  const typeOf = new Map((table.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  const { partition, sort } = tableKeysOf(table);
  const tableKeys = sort === undefined ? [partition.name] : [partition.name, sort.name];

  /** @type {IndexCost[]} */
  const indexes = [
    ...(table.GlobalSecondaryIndexes ?? []).map((index) => ({ index, kind: /** @type {const} */ ('global') })),
    ...(table.LocalSecondaryIndexes ?? []).map((index) => ({ index, kind: /** @type {const} */ ('local') })),
  ].map(({ index, kind }) => {
    const keys = (index.KeySchema ?? []).map((k) => {
      const name = /** @type {string} */ (k.AttributeName);
      return { name, type: typeOf.get(name) ?? 'S', most: k.KeyType === 'RANGE' ? MAX_SORT_KEY_BYTES : MAX_PARTITION_KEY_BYTES };
    });
    const projection = index.Projection?.ProjectionType ?? 'ALL';
    const included = projection === 'INCLUDE' ? (index.Projection?.NonKeyAttributes ?? []) : [];
    const projected = projection === 'ALL' ? /** @type {const} */ ('ALL') : [...new Set([...tableKeys, ...keys.map((key) => key.name), ...included])];
    const throughput = /** @type {import('@aws-sdk/client-dynamodb').GlobalSecondaryIndexDescription} */ (index);
    return { name: /** @type {string} */ (index.IndexName), kind, keys, projected, writeCeiling: kind === 'global' ? ceilingOf(throughput) : undefined };
  });

  /**
   * @param {import('../types.js').Item} item  as the import would put it
   * @param {number[]} indexWcu  adds each index's write capacity units, in the order of `indexes`
   * @param {number[]} indexItems  adds one for each index the item lands in
   * @returns {{ itemBytes: number, wcu: number, refused: string | undefined }}  refused: why DynamoDB would refuse the item
   */
  function costOf(item, indexWcu, indexItems) {
    const itemBytes = sizeOf(item);
    for (const index of indexes) {
      for (const key of index.keys) {
        const value = item[key.name];
        if (value === undefined) continue;
        const found = keyValueOf(value);
        if (found === undefined || found.type !== key.type) return { itemBytes, wcu: 0, refused: `index ${index.name} types "${key.name}" as ${key.type}, and the item's is ${Object.keys(value)[0]}` };
        const bytes = found.type === 'S' ? Buffer.byteLength(found.text) : found.type === 'B' ? attributeBytes(value) : 1;
        if (found.type !== 'N' && bytes === 0) return { itemBytes, wcu: 0, refused: `index ${index.name}'s key "${key.name}" would be empty` };
        if (bytes > key.most) return { itemBytes, wcu: 0, refused: `"${key.name}" is longer than index ${index.name}'s key may be (${key.most} bytes)` };
      }
    }
    for (let x = 0; x < indexes.length; x++) {
      const index = indexes[x];
      if (!index.keys.every((key) => item[key.name] !== undefined)) continue;
      let bytes = itemBytes;
      if (index.projected !== 'ALL') {
        bytes = 0;
        for (const name of index.projected) if (item[name] !== undefined) bytes += Buffer.byteLength(name) + attributeBytes(item[name]);
      }
      indexWcu[x] += wcuOf(bytes);
      indexItems[x]++;
    }
    return { itemBytes, wcu: wcuOf(itemBytes), refused: undefined };
  }

  /**
   * costOf for an item in its wire JSON (a dry run's hot path): on a table without secondary indexes the
   * item is not parsed, its size is the one its builder found, else read from a flat item's JSON.
   * @param {string} json @param {number | undefined} bytes  the item's size, if known
   * @param {number[]} indexWcu @param {number[]} indexItems
   */
  function costOfWire(json, bytes, indexWcu, indexItems) {
    if (indexes.length > 0) return costOf(JSON.parse(json), indexWcu, indexItems);
    const itemBytes = bytes ?? wireItemBytes(json) ?? sizeOf(JSON.parse(json));
    return { itemBytes, wcu: wcuOf(itemBytes), refused: undefined };
  }

  return { indexes, costOf, costOfWire };
}

/** Write capacity units of a write of this many bytes: one per started KB, one at least. @param {number} bytes */
export const wcuOf = (bytes) => Math.max(1, Math.ceil(bytes / 1024));

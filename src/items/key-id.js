/**
 * A row's primary key as one string (its keyId), to find two rows with one key in a batch and to match
 * the items DynamoDB returns unprocessed to the rows they came from.
 */
import { keyValueOf } from './attribute-values.js';

/** @typedef {import('../types.js').Item} Item */

/**
 * The primary key as one string: the partition key's length, a colon, the partition key and the sort key.
 * The length makes the join injective: a key's text may hold any character (a NUL included), so no
 * separator alone could tell ("a\0b", "c") from ("a", "b\0c"). Each part is its value's one spelling
 * (keyValueOf): two rows have one keyId exactly when DynamoDB stores them as one item.
 * @param {string} partition
 * @param {string} sort
 */
export function joinKeyId(partition, sort) {
  return `${partition.length}:${partition}${sort}`;
}

/** The form of keyIds that joinKeyId writes, saved with keyIds a checkpoint carries (spread's key spans). */
export const KEY_ID_FORM = 'length-prefixed';

/**
 * The two parts of a keyId that joinKeyId made.
 * @param {string} keyId
 * @returns {[partition: string, sort: string]}
 */
export function splitKeyId(keyId) {
  const colon = keyId.indexOf(':');
  const end = colon + 1 + Number(keyId.slice(0, colon));
  return [keyId.slice(colon + 1, end), keyId.slice(end)];
}

/**
 * Reads the keyId of an item as DynamoDB returns it in UnprocessedItems, in the same form as the
 * builder's keyId, so returned items can be matched to their rows.
 * @param {Pick<import('../config/index.js').ImportConfig, 'keyColumn' | 'sortKeyColumn'>} config
 * @returns {(item: Item) => string}
 */
export function keyIdReader({ keyColumn, sortKeyColumn }) {
  // A number may come back written otherwise than it was sent (007, 7): compared normalized, as the builder does.
  const valueOf = (/** @type {import('./attribute-values.js').AttributeValue | undefined} */ value) => keyValueOf(value)?.text ?? '';
  if (sortKeyColumn === undefined) return (item) => valueOf(item[keyColumn]);
  return (item) => joinKeyId(valueOf(item[keyColumn]), valueOf(item[sortKeyColumn]));
}

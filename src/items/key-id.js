/**
 * A row's primary key as one string (its keyId), to find two rows with one key in a batch and to match
 * the items DynamoDB returns unprocessed to the rows they came from.
 */
import { keyValueOf } from './attribute-values.js';

/** @typedef {import('../types.js').Item} Item */

/**
 * The primary key as one string: the partition key, and the sort key after a NUL when there is one.
 * @param {string} partition
 * @param {string} sort
 */
export function joinKeyId(partition, sort) {
  return `${partition}\u0000${sort}`;
}

/**
 * Reads the keyId of an item as DynamoDB returns it in UnprocessedItems, in the same form as the
 * builder's keyId, so returned items can be matched to their rows.
 * @param {Pick<import('../config.js').ImportConfig, 'keyColumn' | 'sortKeyColumn'>} config
 * @returns {(item: Item) => string}
 */
export function keyIdReader({ keyColumn, sortKeyColumn }) {
  // A number may come back written otherwise than it was sent (007, 7): compared normalized, as the builder does.
  const valueOf = (/** @type {import('./attribute-values.js').AttributeValue | undefined} */ value) => keyValueOf(value)?.text ?? '';
  if (sortKeyColumn === undefined) return (item) => valueOf(item[keyColumn]);
  return (item) => joinKeyId(valueOf(item[keyColumn]), valueOf(item[sortKeyColumn]));
}

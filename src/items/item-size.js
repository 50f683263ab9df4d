/**
 * An item's size as DynamoDB counts it against its 400 KB limit.
 */

import { attributeBytes } from './attribute-values.js';

/** DynamoDB's largest item. */
export const MAX_ITEM_BYTES = 400 * 1024;

/** DynamoDB's longest keys, in UTF-8 bytes (a key typed N is far shorter). */
export const MAX_PARTITION_KEY_BYTES = 2048;
export const MAX_SORT_KEY_BYTES = 1024;

/**
 * Item size as DynamoDB counts it: attribute name bytes plus value bytes (items/attribute-values.js).
 * @param {Record<string, import('./attribute-values.js').AttributeValue>} item  in DynamoDB's JSON wire form
 */
export function itemBytes(item) {
  let bytes = 0;
  for (const name in item) bytes += Buffer.byteLength(name) + attributeBytes(item[name]);
  return bytes;
}

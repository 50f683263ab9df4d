/**
 * An item's size as DynamoDB counts it against its 400 KB limit.
 */

/** DynamoDB's largest item. */
export const MAX_ITEM_BYTES = 400 * 1024;

/**
 * Item size as DynamoDB counts it: attribute name bytes plus value bytes (numbers roughly one byte per
 * two digits plus one).
 * @param {import('../types.js').Item} item
 */
export function itemBytes(item) {
  let bytes = 0;
  for (const name in item) {
    const value = item[name];
    bytes += Buffer.byteLength(name);
    if (value.S !== undefined) bytes += Buffer.byteLength(value.S);
    else if (value.N !== undefined) bytes += Math.ceil(value.N.length / 2) + 1;
    else bytes += 1;
  }
  return bytes;
}

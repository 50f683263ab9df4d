/**
 * An item's size as DynamoDB counts it against its 400 KB limit.
 */

import { attributeBytes, base64Bytes } from './attribute-values.js';
import { wireAs } from './json-values.js';
import { numberBytes } from './numbers.js';

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

/**
 * A CSV cell's bytes as DynamoDB counts them, from its column type and its text as written (a cell the
 * item builder accepted): a string its UTF-8 bytes, a number one byte per two significant digits plus
 * one, a boolean one, a binary its decoded bytes, a set its members', a map or list as attributeBytes counts it.
 * @param {import('../config.js').ColumnType} type
 * @param {string} text
 * @param {string} separator  the setSeparator, for SS, NS and BS
 */
export function valueBytes(type, text, separator) {
  switch (type) {
    case 'S':
      return Buffer.byteLength(text);
    case 'N':
      return numberBytes(text);
    case 'BOOL':
      return 1;
    case 'B':
      return base64Bytes(text);
    case 'SS':
    case 'NS':
    case 'BS': {
      const count = type === 'SS' ? Buffer.byteLength : type === 'NS' ? numberBytes : base64Bytes;
      return text.split(separator).reduce((sum, member) => sum + count(member), 0);
    }
    default:
      // M and L: their wire form, as the builder writes it (parsed a second time: the dry run's cost only).
      return attributeBytes(JSON.parse(wireAs(type, text, 'a cell', 0, separator)));
  }
}

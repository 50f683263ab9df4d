/**
 * An item's size as DynamoDB counts it against its 400 KB limit.
 */

import { attributeBytes } from './attribute-values.js';
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

// Character codes of the wire form's punctuation and of the types read here.
const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN = 123;
const CLOSE = 125;
const S = 83;
const N = 78;
const PLAIN_JSON = /^[\x20-\x5b\x5d-\x7e]*$/;

/**
 * The size of a flat item straight from its wire JSON, as itemBytes counts it, without building the
 * item: members typed S, N, BOOL or NULL, strings without escapes. Anything else (a map, a list, a set,
 * a binary, an escape, any other shape) is undefined, for the caller to parse and size with itemBytes.
 * Attribute names are distinct in every item the builders make, as JSON.parse would leave them.
 * @param {string} json  `{"name":{"S":"text"},"n":{"N":"7"},"b":{"BOOL":true},"z":{"NULL":true}}`
 * @returns {number | undefined}
 */
export function wireItemBytes(json) {
  const last = json.length - 1;
  if (json.charCodeAt(0) !== OPEN || json.charCodeAt(last) !== CLOSE) return undefined;
  if (last === 1) return 0;
  // Printable ASCII without a backslash (most items): a string's bytes are its characters up to its quote.
  plain = PLAIN_JSON.test(json);
  let bytes = 0;
  let at = 1;
  for (;;) {
    // "name":{"T":
    const name = textBytes(json, at);
    if (name === -1) return undefined;
    bytes += name;
    at = textEnd + 1;
    if (json.charCodeAt(at) !== COLON || json.charCodeAt(at + 1) !== OPEN || json.charCodeAt(at + 2) !== QUOTE) return undefined;
    at += 3;
    const type = json.charCodeAt(at);
    const scalar = json.charCodeAt(at + 1) === QUOTE && json.charCodeAt(at + 2) === COLON;
    if (scalar && type === S) {
      const text = textBytes(json, at + 3);
      if (text === -1) return undefined;
      bytes += text;
      at = textEnd + 1;
    } else if (scalar && type === N && json.charCodeAt(at + 3) === QUOTE) {
      const end = json.indexOf('"', at + 4);
      if (end === -1) return undefined;
      bytes += numberBytes(json.slice(at + 4, end));
      at = end + 1;
    } else if (json.startsWith('BOOL":true', at) || json.startsWith('NULL":true', at)) {
      bytes += 1;
      at += 10;
    } else if (json.startsWith('BOOL":false', at)) {
      bytes += 1;
      at += 11;
    } else return undefined;
    if (json.charCodeAt(at) !== CLOSE) return undefined;
    at++;
    if (at === last) return bytes;
    if (json.charCodeAt(at) !== COMMA) return undefined;
    at++;
  }
}

/** Where the last string textBytes read closes (its quote): a second result without an object a call. */
let textEnd = 0;
/** Whether the item wireItemBytes reads is plain (PLAIN_JSON). */
let plain = false;

/**
 * The UTF-8 bytes of the JSON string that opens at `at`, if it has no escape and no half surrogate pair.
 * @param {string} json @param {number} at  its opening quote
 * @returns {number}  -1 if not; textEnd is its closing quote
 */
function textBytes(json, at) {
  if (json.charCodeAt(at) !== QUOTE) return -1;
  if (plain) {
    textEnd = json.indexOf('"', at + 1);
    return textEnd === -1 ? -1 : textEnd - at - 1;
  }
  let bytes = 0;
  for (let x = at + 1; x < json.length; x++) {
    const code = json.charCodeAt(x);
    if (code === QUOTE) {
      textEnd = x;
      return bytes;
    }
    if (code < 0x80) {
      if (code === BACKSLASH || code < 0x20) return -1;
      bytes += 1;
    } else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const low = json.charCodeAt(x + 1);
      if (!(low >= 0xdc00 && low <= 0xdfff)) return -1;
      bytes += 4;
      x++;
    } else if (code >= 0xdc00 && code <= 0xdfff) return -1;
    else bytes += 3;
  }
  return -1;
}

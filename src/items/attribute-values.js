/**
 * DynamoDB's attribute values of every type (S, N, B, BOOL, NULL, M, L, SS, NS, BS): checked as DynamoDB
 * would check them before a write, and sized as DynamoDB counts them. A value DynamoDB would refuse is a
 * RowError here, with its reason, so that one bad row is rejected with its line instead of failing its batch.
 */
import { RowError } from '../errors.js';
import { isDynamoNumber, normalizeNumber, numberBytes } from './numbers.js';

/**
 * An attribute value in DynamoDB's JSON wire form (binaries as base64).
 * @typedef {{ S?: string, N?: string, B?: string, BOOL?: boolean, NULL?: boolean, M?: Record<string, AttributeValue>, L?: AttributeValue[], SS?: string[], NS?: string[], BS?: string[] }} AttributeValue
 */

// Standard base64 with its padding, as DynamoDB's JSON carries binary values.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// String.prototype.isWellFormed (Node 20+), which the ES2022 types this project checks against lack.
/** Whether a text has no half of a UTF-16 surrogate pair (which has no UTF-8 form, so DynamoDB cannot store it). @param {string} text */
export const isWellFormed = (text) => /** @type {{ isWellFormed(): boolean }} */ (/** @type {unknown} */ (text)).isWellFormed();

/** A string DynamoDB cannot store (half a surrogate pair, from a lone `\\ud800` escape) is INVALID_JSON. @param {string} text @param {string} what  e.g. `attribute "a"` @param {number} line */
export function checkWellFormed(text, what, line) {
  if (!isWellFormed(text)) throw new RowError('INVALID_JSON', `line ${line}: ${what} has half a UTF-16 surrogate pair (a lone \\u escape), which DynamoDB cannot store`);
}

/** An attribute's or a map member's name: at least one character, and one DynamoDB can store. @param {string} name @param {string} where  e.g. `attribute "m"`, or `the item` @param {number} line */
export function checkName(name, where, line) {
  if (name === '') throw new RowError('INVALID_ATTRIBUTE_VALUE', `line ${line}: ${where} has a member with an empty name; DynamoDB's names are at least one character`);
  checkWellFormed(name, `a name in ${where}`, line);
}

/** Whether a text is base64 as DynamoDB takes it. @param {string} text */
export const isBase64 = (text) => BASE64.test(text);

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * base64 as its decoded bytes write it: the bits of the last digit past the last byte are zero. `AR==`
 * and `AQ==` are both the byte 0x01, which DynamoDB stores as one value; a binary is written and
 * compared in this one spelling (some DynamoDB-compatible servers refuse the other).
 * @param {string} text  base64 (isBase64)
 */
export function canonicalBase64(text) {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (padding === 0) return text;
  const at = text.length - padding - 1;
  const digit = BASE64_DIGITS.indexOf(text[at]);
  // Two digits before '==' carry 12 bits for one byte (4 spare); three before '=' carry 18 for two (2 spare).
  const spare = padding === 2 ? 0b1111 : 0b11;
  if ((digit & spare) === 0) return text;
  return `${text.slice(0, at)}${BASE64_DIGITS[digit & ~spare]}${text.slice(at + 1)}`;
}

/** Bytes a base64 text decodes to. @param {string} text  base64 */
export const base64Bytes = (text) => (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);

const TYPES = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);

/**
 * Checks one attribute value of DynamoDB JSON, deeply: one known type, a value of that type's shape,
 * numbers DynamoDB takes, base64 binaries, sets non-empty and without duplicates.
 * @param {unknown} value
 * @param {string} path  what and where it is, for the message: `attribute "a"`, `attribute "a"."b"[2]`, `column "c"`
 * @param {number} line
 * @returns {asserts value is AttributeValue}
 */
export function checkAttributeValue(value, path, line) {
  const bad = (/** @type {string} */ what) => new RowError('INVALID_ATTRIBUTE_VALUE', `line ${line}: ${path} ${what}`);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('is not a typed value such as {"S": "text"}');
  const types = Object.keys(value);
  if (types.length !== 1 || !TYPES.has(types[0])) throw bad(`has ${types.length === 1 ? `type ${JSON.stringify(types[0])}` : `${types.length} types`}; a value has one of S, N, B, BOOL, NULL, M, L, SS, NS, BS`);
  const type = types[0];
  const inner = /** @type {Record<string, unknown>} */ (value)[type];
  switch (type) {
    case 'S':
      if (typeof inner !== 'string') throw bad('is typed S but its value is not a string');
      checkWellFormed(inner, path, line);
      return;
    case 'N':
      if (typeof inner !== 'string' || !isDynamoNumber(inner)) throw new RowError('INVALID_NUMBER', `line ${line}: ${path} is typed N but its value is not a number DynamoDB takes, written as a string`);
      return;
    case 'B':
      if (typeof inner !== 'string' || !isBase64(inner)) throw new RowError('INVALID_BINARY', `line ${line}: ${path} is typed B but its value is not base64`);
      /** @type {AttributeValue} */ (value).B = canonicalBase64(inner);
      return;
    case 'BOOL':
      if (typeof inner !== 'boolean') throw bad('is typed BOOL but its value is not true or false');
      return;
    case 'NULL':
      if (inner !== true) throw bad('is typed NULL but its value is not true');
      return;
    case 'M':
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) throw bad('is typed M but its value is not an object');
      for (const [name, member] of Object.entries(inner)) {
        checkName(name, path, line);
        checkAttributeValue(member, `${path}.${JSON.stringify(name)}`, line);
      }
      return;
    case 'L':
      if (!Array.isArray(inner)) throw bad('is typed L but its value is not an array');
      inner.forEach((member, index) => checkAttributeValue(member, `${path}[${index}]`, line));
      return;
    default:
      checkSet(/** @type {'SS' | 'NS' | 'BS'} */ (type), inner, path, line);
  }
}

/**
 * A set: a non-empty array of strings, each a number (NS) or base64 (BS), no two alike (numbers by value,
 * binaries by their bytes). A BS member is rewritten in place as canonical base64.
 * @param {'SS' | 'NS' | 'BS'} type @param {unknown} members @param {string} path @param {number} line
 */
export function checkSet(type, members, path, line) {
  if (!Array.isArray(members) || members.length === 0) throw new RowError('INVALID_SET', `line ${line}: ${path} is typed ${type} but is ${Array.isArray(members) ? 'empty; DynamoDB has no empty sets (leave the attribute out)' : 'not an array'}`);
  const seen = new Set();
  for (let i = 0; i < members.length; i++) {
    const member = members[i];
    if (typeof member !== 'string') throw new RowError('INVALID_SET', `line ${line}: ${path} is typed ${type} but has a member that is not a string`);
    if (type === 'NS' && !isDynamoNumber(member)) throw new RowError('INVALID_NUMBER', `line ${line}: ${path} is typed NS but has a member that is not a number DynamoDB takes`);
    if (type === 'BS' && !isBase64(member)) throw new RowError('INVALID_BINARY', `line ${line}: ${path} is typed BS but has a member that is not base64`);
    if (type === 'SS') checkWellFormed(member, `a member of ${path}`, line);
    if (type === 'BS') members[i] = canonicalBase64(member);
    const id = type === 'NS' ? normalizeNumber(member) : members[i];
    if (seen.has(id)) throw new RowError('INVALID_SET', `line ${line}: ${path} is typed ${type} but has a member twice; a set's members are distinct`);
    seen.add(id);
  }
}

/**
 * A value's bytes as DynamoDB counts them: a string its UTF-8 bytes, a number one byte per two significant
 * digits plus one, a binary its bytes, BOOL and NULL one, a set the sum of its members, a map or list 3
 * bytes plus 1 per member plus the members (and a map's names).
 * @param {AttributeValue} value  checked
 * @returns {number}
 */
export function attributeBytes(value) {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return base64Bytes(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.M !== undefined) {
    let bytes = 3;
    for (const name in value.M) bytes += 1 + Buffer.byteLength(name) + attributeBytes(value.M[name]);
    return bytes;
  }
  if (value.L !== undefined) {
    let bytes = 3;
    for (const member of value.L) bytes += 1 + attributeBytes(member);
    return bytes;
  }
  let bytes = 0;
  if (value.SS !== undefined) for (const member of value.SS) bytes += Buffer.byteLength(member);
  else if (value.NS !== undefined) for (const member of value.NS) bytes += numberBytes(member);
  else if (value.BS !== undefined) for (const member of value.BS) bytes += base64Bytes(member);
  return bytes;
}

/**
 * A key attribute's value as one string (its part of a keyId), and its bytes for the key length limits.
 * Numbers are normalized (`007` and `7` are one key); binaries are their canonical base64 (one per bytes).
 * @param {AttributeValue | undefined} value
 * @returns {{ type: 'S' | 'N' | 'B', text: string } | undefined}  undefined if it is no key type
 */
export function keyValueOf(value) {
  if (value === undefined) return undefined;
  if (typeof value.S === 'string') return { type: 'S', text: value.S };
  if (typeof value.N === 'string') return { type: 'N', text: normalizeNumber(value.N) };
  if (typeof value.B === 'string') return { type: 'B', text: canonicalBase64(value.B) };
  return undefined;
}

/**
 * JSON values as DynamoDB attribute values, written straight as DynamoDB's JSON wire text. Numbers keep
 * their text exactly (a 20-digit id never goes through a JS float): lossless-json hands each number's
 * text over. A string maps to S, a number to N, true and false to BOOL, null to NULL, an array to L, an
 * object to M; a column type (columnTypes) asks for another type, as a CSV cell's does.
 *
 * (@aws-sdk/lib-dynamodb's marshalling with NumberValue was the first choice and does not fit: an object
 * with a member named "constructor" is refused as a class instance, and one named "__proto__" is lost,
 * so a file's arbitrary attribute names would be rejected or changed.)
 */
import { parse } from 'lossless-json';
import { RowError } from '../errors.js';
import { canonicalBase64, checkName, checkSet, checkWellFormed, isBase64 } from './attribute-values.js';
import { isDynamoNumber } from './numbers.js';

/** A JSON number, as its text. */
export class JsonNumber {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
}

const toNumber = (/** @type {string} */ text) => new JsonNumber(text);

/**
 * A JSON text as values, numbers as JsonNumber. Not JSON, a name twice with two values, or a string with
 * half a UTF-16 surrogate pair (which has no UTF-8 form) is INVALID_JSON.
 * @param {string} text @param {number} line @param {string} what  what the text is, for the message
 * @returns {unknown}
 */
export function parseJson(text, line, what) {
  let value;
  try {
    value = parse(text, null, toNumber);
  } catch (error) {
    throw new RowError('INVALID_JSON', `line ${line}: ${what} is not JSON (${/** @type {Error} */ (error).message})`);
  }
  return value;
}

/** @param {string} text @param {string} path @param {number} line */
function numberText(text, path, line) {
  if (!isDynamoNumber(text)) throw new RowError('INVALID_NUMBER', `line ${line}: ${path} is not a number DynamoDB takes (at most 38 significant digits, magnitude from 1E-130 to under 1E+126)`);
  return text;
}

/**
 * A JSON value as the attribute value of its own JSON type, as wire text.
 * @param {unknown} value @param {string} path  e.g. `attribute "a"`, for messages @param {number} line
 * @returns {string}
 */
export function wireOf(value, path, line) {
  if (value === null) return '{"NULL":true}';
  if (typeof value === 'string') {
    checkWellFormed(value, path, line);
    return `{"S":${JSON.stringify(value)}}`;
  }
  if (typeof value === 'boolean') return value ? '{"BOOL":true}' : '{"BOOL":false}';
  if (value instanceof JsonNumber) return `{"N":"${numberText(value.text, path, line)}"}`;
  if (Array.isArray(value)) return `{"L":[${value.map((member, index) => wireOf(member, `${path}[${index}]`, line)).join(',')}]}`;
  return `{"M":${membersOf(/** @type {Record<string, unknown>} */ (value), path, line)}}`;
}

/** An object's members as a wire map's text. @param {Record<string, unknown>} object @param {string} path @param {number} line */
export function membersOf(object, path, line) {
  const members = [];
  for (const name of Object.keys(object)) {
    checkName(name, path, line);
    members.push(`${JSON.stringify(name)}:${wireOf(object[name], `${path}.${JSON.stringify(name)}`, line)}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * A value (a CSV cell's text, or a JSON value) as the attribute value of a column type, as wire text:
 * S from text or a number; N from a number or its text; BOOL from true/false or their text in any case;
 * B from base64 text; M and L from an object or array, or JSON text of one; SS, NS and BS from an array
 * or from text cut by `separator`. null is NULL whatever the type.
 * @param {import('../config/index.js').ColumnType} type @param {unknown} value @param {string} path @param {number} line
 * @param {string} separator
 * @returns {string}
 */
export function wireAs(type, value, path, line, separator) {
  if (value === null) return '{"NULL":true}';
  const text = typeof value === 'string' ? value : value instanceof JsonNumber ? value.text : undefined;
  switch (type) {
    case 'S':
      if (text === undefined) throw new RowError('INVALID_ATTRIBUTE_VALUE', `line ${line}: ${path} is typed S but is not a string or a number`);
      checkWellFormed(text, path, line);
      return `{"S":${JSON.stringify(text)}}`;
    case 'N':
      if (text === undefined) throw new RowError('INVALID_NUMBER', `line ${line}: ${path} is typed N but is not a number`);
      return `{"N":"${numberText(text, path, line)}"}`;
    case 'BOOL': {
      const lower = typeof value === 'boolean' ? String(value) : typeof value === 'string' ? value.toLowerCase() : '';
      if (lower !== 'true' && lower !== 'false') throw new RowError('INVALID_BOOL', `line ${line}: ${path} is typed BOOL but is not true or false`);
      return `{"BOOL":${lower}}`;
    }
    case 'B':
      if (typeof value !== 'string' || !isBase64(value)) throw new RowError('INVALID_BINARY', `line ${line}: ${path} is typed B but is not base64`);
      return `{"B":"${canonicalBase64(value)}"}`;
    case 'M':
    case 'L': {
      const tree = typeof value === 'string' ? parseJson(value, line, path) : value;
      const isList = Array.isArray(tree);
      if (tree === null || typeof tree !== 'object' || tree instanceof JsonNumber || isList !== (type === 'L')) {
        throw new RowError('INVALID_JSON', `line ${line}: ${path} is typed ${type} but is not a JSON ${type === 'L' ? 'array' : 'object'}`);
      }
      return wireOf(tree, path, line);
    }
    default: {
      let members;
      if (typeof value === 'string') members = value.split(separator);
      else if (Array.isArray(value)) members = value.map((member) => (member instanceof JsonNumber && type === 'NS' ? member.text : member));
      else throw new RowError('INVALID_SET', `line ${line}: ${path} is typed ${type} but is not an array or text cut by ${JSON.stringify(separator)}`);
      if (members.some((member) => member === '')) throw new RowError('INVALID_SET', `line ${line}: ${path} is typed ${type} but has an empty member (two separators ${JSON.stringify(separator)} in a row, or one at an end)`);
      checkSet(type, members, path, line);
      return `{"${type}":${JSON.stringify(members)}}`;
    }
  }
}

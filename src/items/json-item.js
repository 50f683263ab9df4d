/**
 * JSON records (one line each) to DynamoDB items, in the builder shape of item-builder.js.
 *
 * JSON Lines: each line an object; its members are attributes, typed by their JSON type (json-values.js)
 * or by columnTypes. DynamoDB JSON: each line as DynamoDB's export to S3 writes it: `{"Item": {...}}` of
 * a full export, or an incremental export's `{"Metadata": ..., "Keys": {...}, "NewImage": {...}}`, whose
 * line without a NewImage is the delete of its Keys. Its typed values are checked (attribute-values.js)
 * and written as they are.
 *
 * Every item's key attributes must be there, of the table's key types, non-empty and within DynamoDB's
 * key lengths; the item within 400 KB. In `mode: delete`, only the key is read and written.
 */
import { ConfigError, RowError } from '../errors.js';
import { base64Bytes, checkAttributeValue, checkName, keyValueOf } from './attribute-values.js';
import { itemBytes, MAX_ITEM_BYTES, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES } from './item-size.js';
import { joinKeyId } from './key-id.js';
import { JsonNumber, parseJson, wireAs, wireOf } from './json-values.js';

/** @typedef {import('./attribute-values.js').AttributeValue} AttributeValue */
/** @typedef {import('../write/table-check.js').TableKeys} TableKeys */
/** @typedef {import('../write/table-check.js').KeyAttribute} KeyAttribute */

/**
 * @param {'jsonl' | 'dynamodb-json'} format
 * @param {Pick<import('../config/index.js').ImportConfig, 'columnTypes' | 'setSeparator' | 'mode' | 'rename' | 'drop'>} config
 * @param {import('../write/table-check.js').TableKeys} keys
 * @returns {(fields: string[], line: number) => import('./item-builder.js').BuiltItem}
 */
export function createJsonItemBuilder(format, config, keys) {
  const deletes = config.mode === 'delete';
  if (format !== 'jsonl' && (config.drop.length > 0 || Object.keys(config.rename).length > 0)) {
    throw new ConfigError(config.drop.length > 0 ? 'drop' : 'rename', config.drop.length > 0 ? config.drop.join(',') : JSON.stringify(config.rename), 'shapes CSV and JSON Lines; a DynamoDB export\'s items are written as the table held them: leave it out');
  }
  return format === 'jsonl' ? jsonLinesBuilder(config, keys, deletes) : dynamodbJsonBuilder(keys, deletes);
}

/**
 * @param {Pick<import('../config/index.js').ImportConfig, 'columnTypes' | 'setSeparator' | 'rename' | 'drop'>} config @param {import('../write/table-check.js').TableKeys} keys @param {boolean} deletes
 * @returns {(fields: string[], line: number) => import('./item-builder.js').BuiltItem}
 */
function jsonLinesBuilder({ columnTypes, setSeparator, rename, drop }, keys, deletes) {
  const names = keyNames(keys);
  const shaped = drop.length > 0 || Object.keys(rename).length > 0;
  const dropped = new Set(drop);
  return function buildItem(fields, line) {
    const text = fields[0];
    const object = parseJson(text, line, 'the line');
    if (!isObject(object)) throw new RowError('INVALID_JSON', `line ${line}: the line is JSON but not an object; each line of JSON Lines is one item, {"name": value, ...}`);
    const members = [];
    /** The key attributes' values, read back from their wire text (the item's is not parsed again). @type {Record<string, AttributeValue>} */
    const keyValues = Object.create(null);
    // Attributes are dropped by the names the line gives them, then written under their new names.
    const seen = shaped ? new Set() : undefined;
    for (const source of deletes && !shaped ? names.filter((key) => Object.hasOwn(object, key)) : Object.keys(object)) {
      let name = source;
      if (seen !== undefined) {
        if (dropped.has(source)) continue;
        name = rename[source] ?? source;
        if (deletes && !names.includes(name)) continue;
        if (seen.has(name)) throw new RowError('INVALID_JSON', `line ${line}: two attributes are written as ${JSON.stringify(name)} after the renames; an item has one attribute of a name`);
        seen.add(name);
      }
      checkName(name, 'the item', line);
      const type = columnTypes[name];
      const path = `attribute ${JSON.stringify(name)}`;
      const value = object[source];
      const wire = type === undefined ? wireOf(value, path, line) : wireAs(type, value, path, line, setSeparator);
      if (names.includes(name)) keyValues[name] = JSON.parse(wire);
      members.push(`${JSON.stringify(name)}:${wire}`);
    }
    const json = `{${members.join(',')}}`;
    // Each character is at most 3 bytes of the item (overheads of maps and lists included): only long lines are sized.
    const sized = !deletes && text.length * 3 > MAX_ITEM_BYTES ? JSON.parse(json) : undefined;
    return finish(json, keyValues, sized, keys, line, deletes ? 'delete' : undefined);
  };
}

/**
 * @param {import('../write/table-check.js').TableKeys} keys @param {boolean} deletes
 * @returns {(fields: string[], line: number) => import('./item-builder.js').BuiltItem}
 */
function dynamodbJsonBuilder(keys, deletes) {
  return function buildItem(fields, line) {
    const record = parseJson(fields[0], line, 'the line');
    if (!isObject(record)) throw new RowError('INVALID_JSON', `line ${line}: the line is JSON but not an object; DynamoDB JSON has one {"Item": {...}} per line`);
    /** @type {unknown} */
    let image;
    /** @type {'put' | 'delete' | undefined} */
    let op;
    if (record.Item !== undefined) image = record.Item;
    else if (record.NewImage !== undefined) image = record.NewImage;
    else if (record.Keys !== undefined) {
      image = record.Keys;
      op = 'delete';
    } else {
      throw new RowError('INVALID_JSON', `line ${line}: the line has no "Item" (a full export's), "NewImage" or "Keys" (an incremental export's); DynamoDB JSON has one {"Item": {...}} per line`);
    }
    if (!isObject(image)) throw new RowError('INVALID_ATTRIBUTE_VALUE', `line ${line}: the line's item is not an object of attributes`);
    if (deletes) op = 'delete';
    /** @type {Record<string, unknown>} */
    const item = op === 'delete' ? pick(image, keyNames(keys)) : image;
    for (const name of Object.keys(item)) {
      checkName(name, 'the item', line);
      checkAttributeValue(item[name], `attribute ${JSON.stringify(name)}`, line);
    }
    const wire = /** @type {Record<string, AttributeValue>} */ (item);
    return finish(JSON.stringify(wire), wire, op === 'delete' ? undefined : wire, keys, line, op);
  };
}

/**
 * The key checks, in the oracle's order (missing or empty, of the table's type, the item's size, the keys' lengths), and the keyId.
 * @param {string} json  the item's (or key's) wire JSON
 * @param {Record<string, AttributeValue>} keyValues  holds the key attributes (the item itself will do)
 * @param {Record<string, AttributeValue> | undefined} sized  the item, when it may be over 400 KB
 * @param {import('../write/table-check.js').TableKeys} keys @param {number} line @param {'put' | 'delete' | undefined} op
 * @returns {import('./item-builder.js').BuiltItem}
 */
function finish(json, keyValues, sized, keys, line, op) {
  const partition = keyOf(keyValues, keys.partition, line, 'partition');
  const sort = keys.sort === undefined ? undefined : keyOf(keyValues, keys.sort, line, 'sort');
  if (sized !== undefined) {
    const bytes = itemBytes(sized);
    if (bytes > MAX_ITEM_BYTES) throw new RowError('ITEM_TOO_LARGE', `line ${line}: item is ${bytes} bytes; DynamoDB's limit is ${MAX_ITEM_BYTES}`);
  }
  if (partition.bytes > MAX_PARTITION_KEY_BYTES) throw new RowError('KEY_TOO_LONG', `line ${line}: partition key "${keys.partition.name}" is ${partition.bytes} bytes; DynamoDB's limit for a partition key is ${MAX_PARTITION_KEY_BYTES}`);
  if (sort !== undefined && sort.bytes > MAX_SORT_KEY_BYTES) throw new RowError('KEY_TOO_LONG', `line ${line}: sort key "${keys.sort?.name}" is ${sort.bytes} bytes; DynamoDB's limit for a sort key is ${MAX_SORT_KEY_BYTES}`);
  // A delete's JSON is its key alone, in the table's key order.
  const keyJson = op === 'delete' ? `{${[keys.partition, keys.sort].filter((key) => key !== undefined).map((key) => `${JSON.stringify(key.name)}:${JSON.stringify(keyValues[key.name])}`).join(',')}}` : json;
  return { json: keyJson, keyId: sort === undefined ? partition.text : joinKeyId(partition.text, sort.text), op };
}

/**
 * @param {Record<string, AttributeValue>} item @param {KeyAttribute} key @param {number} line @param {string} which
 */
function keyOf(item, key, line, which) {
  const value = item[key.name];
  if (value === undefined) throw new RowError('MISSING_KEY', `line ${line}: the ${which} key "${key.name}" is missing`);
  const found = keyValueOf(value);
  if (found === undefined || found.type !== key.type) {
    const type = Object.keys(value)[0];
    throw new RowError('KEY_TYPE', `line ${line}: the ${which} key "${key.name}" is ${type}, but the table's is ${key.type}${found === undefined ? '' : `; set columnTypes to "${key.name}:${key.type}" if the file writes it as ${type === 'S' ? 'a string' : 'a number'}`}`);
  }
  if (found.text === '') throw new RowError('MISSING_KEY', `line ${line}: the ${which} key "${key.name}" is empty`);
  const bytes = found.type === 'B' ? base64Bytes(found.text) : found.type === 'S' ? Buffer.byteLength(found.text) : 0;
  return { text: found.text, bytes };
}

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof JsonNumber);

/** @param {import('../write/table-check.js').TableKeys} keys */
const keyNames = (keys) => (keys.sort === undefined ? [keys.partition.name] : [keys.partition.name, keys.sort.name]);

/** @param {Record<string, unknown>} object @param {string[]} names */
function pick(object, names) {
  // No prototype: a key named __proto__ is a member like any other.
  /** @type {Record<string, unknown>} */
  const picked = Object.create(null);
  for (const name of names) if (Object.hasOwn(object, name)) picked[name] = object[name];
  return picked;
}

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
import { nestMembers, nestProblem } from './nest.js';
import { noShaping } from './shaping.js';
import { createTtlReader, ttlAfter } from './ttl.js';

/** @typedef {import('./attribute-values.js').AttributeValue} AttributeValue */
/** @typedef {import('../write/table-check.js').TableKeys} TableKeys */
/** @typedef {import('../write/table-check.js').KeyAttribute} KeyAttribute */

/** The options a JSON item builder reads. @typedef {Pick<import('../config/index.js').ImportConfig, 'columnTypes' | 'setSeparator' | 'mode' | 'rename' | 'drop' | 'ttl' | 'nest'>} JsonConfig */

/**
 * @param {'jsonl' | 'dynamodb-json'} format
 * @param {JsonConfig} config
 * @param {import('../write/table-check.js').TableKeys} keys
 * @param {import('./shaping.js').Shaping} [shaping]
 * @returns {(fields: string[], line: number) => import('./item-builder.js').BuiltItem}
 */
export function createJsonItemBuilder(format, config, keys, shaping = noShaping()) {
  const deletes = config.mode === 'delete';
  if (format !== 'jsonl') {
    const [option, value] = config.drop.length > 0 ? ['drop', config.drop.join(',')] : Object.keys(config.rename).length > 0 ? ['rename', JSON.stringify(config.rename)] : config.ttl !== undefined ? ['ttl', config.ttl] : config.nest ? ['nest', true] : [];
    if (option !== undefined) throw new ConfigError(option, value, 'shapes CSV and JSON Lines; a DynamoDB export\'s items are written as the table held them: leave it out');
    return dynamodbJsonBuilder(keys, deletes);
  }
  checkTableKeys(config, keys);
  return jsonLinesBuilder(config, keys, deletes, shaping);
}

/**
 * The table's keys against the TTL column and nest (the options' checks know the key columns only by
 * keyColumn, which JSON Lines does not read): a key is neither the TTL attribute nor dotted under nest.
 * @param {JsonConfig} config @param {TableKeys} keys
 */
function checkTableKeys(config, keys) {
  for (const name of keyNames(keys)) {
    if (config.ttl?.column === name) throw new ConfigError('ttl', config.ttl.column, `"${name}" is one of the table's keys; DynamoDB's TTL attribute is another attribute, written as N: name one that is not a key`);
    if (config.nest && name.includes('.')) throw new ConfigError('nest', true, `the table's key "${name}" has a dot, which the "nest" option would read as a map and its member: leave the "nest" option out, or rename the attribute to the key's name from another (the "rename" option)`);
  }
}

/**
 * @param {JsonConfig} config @param {import('../write/table-check.js').TableKeys} keys @param {boolean} deletes
 * @param {import('./shaping.js').Shaping} shaping
 * @returns {((fields: string[], line: number) => import('./item-builder.js').BuiltItem) & { absentColumns: () => string[] }}
 */
function jsonLinesBuilder({ columnTypes, setSeparator, rename, drop, ttl, nest: nested }, keys, deletes, shaping) {
  const names = keyNames(keys);
  // A delete reads the keys only: no TTL, nothing to nest.
  const nest = nested && !deletes;
  const ttlWire = deletes || ttl === undefined ? undefined : jsonTtl(ttl, shaping);
  const shaped = drop.length > 0 || Object.keys(rename).length > 0 || ttlWire !== undefined || nest;
  const dropped = new Set(drop);
  // JSON lines differ in their attributes, so a drop or rename naming one no line has is no mistake to
  // refuse; the segment warns of it at its end (absentColumns), as it may be a misspelled one.
  const unseen = new Set([...drop, ...Object.keys(rename)]);
  const nearMiss = nearMissWarning([...drop, ...Object.keys(rename), ...(ttl !== undefined && ttl.after === undefined ? [ttl.column] : []), ...Object.keys(columnTypes)], shaping);
  const buildItem = function buildItem(/** @type {string[]} */ fields, /** @type {number} */ line) {
    const text = fields[0];
    const object = parseJson(text, line, 'the line');
    if (!isObject(object)) throw new RowError('INVALID_JSON', `line ${line}: the line is JSON but not an object; each line of JSON Lines is one item, {"name": value, ...}`);
    nearMiss(object, line);
    /** @type {string[]} */
    let members = [];
    /** Under nest, the members as [name, wire text], nested once all are read. @type {Array<[string, string]> | undefined} */
    const pairs = nest ? [] : undefined;
    /** The key attributes' values, read back from their wire text (the item's is not parsed again). @type {Record<string, AttributeValue>} */
    const keyValues = Object.create(null);
    // Attributes are dropped by the names the line gives them, then written under their new names.
    const seen = shaped ? new Set() : undefined;
    for (const source of deletes && !shaped ? names.filter((key) => Object.hasOwn(object, key)) : Object.keys(object)) {
      let name = source;
      if (seen !== undefined) {
        if (unseen.size > 0) unseen.delete(source);
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
      const wire = ttlWire !== undefined && name === ttl?.column ? ttlWire(value, line) : type === undefined ? wireOf(value, path, line) : wireAs(type, value, path, line, setSeparator);
      if (names.includes(name)) keyValues[name] = JSON.parse(wire);
      if (pairs !== undefined) pairs.push([name, wire]);
      else members.push(`${JSON.stringify(name)}:${wire}`);
    }
    const filled = ttlWire?.filled;
    if (filled !== undefined) {
      if (pairs !== undefined) pairs.push(filled);
      else members.push(`${JSON.stringify(filled[0])}:${filled[1]}`);
    }
    if (pairs !== undefined) members = nestLine(pairs, names, keyValues, line);
    const json = `{${members.join(',')}}`;
    // Each character is at most 3 bytes of the item (overheads of maps and lists included): only long lines
    // are sized. Nested maps add overheads the line does not show: those items are sized exactly.
    const sized = !deletes && (nest || text.length * 3 > MAX_ITEM_BYTES) ? JSON.parse(json) : undefined;
    return finish(json, keyValues, sized, keys, line, deletes ? 'delete' : undefined);
  };
  return Object.assign(buildItem, { absentColumns: () => [...unseen] });
}

/** Lines looked at for an attribute named in another case than an option names it: a misspelling shows early. */
const NEAR_MISS_LINES = 1_000;

/**
 * A warning, once, at the first of the first lines that lacks an attribute an option names (drop,
 * rename, ttl, columnTypes) but has one that differs only in case or spaces: `--drop ssn` over lines with
 * "SSN" would write every SSN. Lines differ, so an absent attribute is no mistake to refuse.
 * @param {string[]} names @param {import('./shaping.js').Shaping} shaping
 * @returns {(object: Record<string, unknown>, line: number) => void}
 */
function nearMissWarning(names, shaping) {
  if (names.length === 0) return () => {};
  const fold = (/** @type {string} */ name) => name.toLowerCase().replace(/\s+/g, '');
  let left = NEAR_MISS_LINES;
  return (object, line) => {
    if (left <= 0) return;
    left--;
    for (const name of names) {
      if (Object.hasOwn(object, name)) continue;
      const near = Object.keys(object).find((attribute) => fold(attribute) === fold(name));
      if (near === undefined) continue;
      left = 0;
      shaping.warn(`line ${line} has the attribute "${near}" where an option names "${name}": names are compared exactly, so it is not dropped, renamed or typed; name it as the lines spell it`, { line, attribute: near, option: name });
      return;
    }
  };
}

/**
 * The TTL attribute of JSON Lines: its value read as a CSV cell's (a number's text, or a string; null is
 * NULL, as for any typed attribute; anything else INVALID_TTL), or, filled, the same member in every line,
 * which a line must not have itself.
 * @param {import('../config/values.js').TtlOption} ttl @param {import('./shaping.js').Shaping} shaping
 * @returns {((value: unknown, line: number) => string) & { filled?: [string, string] }}
 */
function jsonTtl(ttl, shaping) {
  if (ttl.after !== undefined) {
    const filled = /** @type {[string, string]} */ ([ttl.column, `{"N":"${ttlAfter(shaping.importTime, ttl.after)}"}`]);
    const refuse = (/** @type {unknown} */ _value, /** @type {number} */ line) => {
      throw new RowError('INVALID_TTL', `line ${line}: the line has the TTL attribute ${JSON.stringify(ttl.column)}, which ttl fills with the import's time plus ${ttl.after} s: drop it (drop) to fill it, or read it (ttl without a duration)`);
    };
    return Object.assign(refuse, { filled });
  }
  const read = createTtlReader(ttl.column, shaping.warn);
  return (value, line) => (value === null ? '{"NULL":true}' : read(typeof value === 'string' ? value : value instanceof JsonNumber ? value.text : '', line));
}

/**
 * A line's members nested by their dotted names (nest), once every value is read: a name with an empty
 * part is INVALID_ATTRIBUTE_VALUE, a name inside another (`a` and `a.b`) INVALID_JSON. A map named as a
 * key is that key's value (of the wrong type: KEY_TYPE).
 * @param {Array<[string, string]>} pairs @param {string[]} keys @param {Record<string, AttributeValue>} keyValues @param {number} line
 */
function nestLine(pairs, keys, keyValues, line) {
  const problem = nestProblem(pairs.map(([name]) => name));
  if (problem !== undefined && 'empty' in problem) {
    throw new RowError('INVALID_ATTRIBUTE_VALUE', `line ${line}: with nest, the attribute ${JSON.stringify(pairs[problem.empty][0])} has an empty part between its dots (a..b, .a or a.); DynamoDB's names are at least one character`);
  }
  if (problem !== undefined) {
    throw new RowError('INVALID_JSON', `line ${line}: with nest, the attribute ${JSON.stringify(pairs[problem.inner][0])} would be a member of the map ${JSON.stringify(pairs[problem.outer][0])}, which the line has as an attribute of its own`);
  }
  return nestMembers(pairs).map(([name, wire]) => {
    if (keys.includes(name)) keyValues[name] = JSON.parse(wire);
    return `${JSON.stringify(name)}:${wire}`;
  });
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

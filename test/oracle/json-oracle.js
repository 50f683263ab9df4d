/**
 * The sequential oracle of the JSON formats (issue 35): a JSON Lines or DynamoDB JSON file's bytes, read
 * the plain way, each line applied in file order as a PutItem or DeleteItem of its key would be. Like
 * oracle.js it imports nothing from src/; the values' rules (base64, numbers, sets, names, sizes) are
 * oracle.js's, the JSON grammar json-text.js's.
 *
 * Lines. A line ends at LF; a CR before it is dropped; lines count from 1; a UTF-8 BOM at the file's
 * start is dropped. A line that is not UTF-8 is INVALID_UTF8; a line of nothing but spaces and tabs is
 * skipped but counts as a line. Every other line is a row (rowsRead).
 *
 * JSON Lines (format 'jsonl'). Not JSON (a name twice with two values included), or not an object:
 * INVALID_JSON. Each member in order: its name (checkName), then its value: by its JSON type
 * (jsonToAttribute), or by columnTypes (jsonAs). In delete mode only the key members are read.
 *
 * DynamoDB JSON (format 'dynamodb-json'). Not JSON or not an object: INVALID_JSON. "Item", else
 * "NewImage", is a put of that image; else "Keys" a delete of that key; none of them: INVALID_JSON. An
 * image that is not an object is INVALID_ATTRIBUTE_VALUE. Each attribute (of the key only, for a delete
 * or in delete mode) in order: its name, then its typed value (typedValue), deeply.
 *
 * Then the keys, partition then sort: absent is MISSING_KEY; of another type than the table's, KEY_TYPE;
 * an empty string or binary, MISSING_KEY. Then a put's item over 400 KB is ITEM_TOO_LARGE; then a key
 * over its length limit KEY_TOO_LONG. Keys compare as DynamoDB compares them (oracle.js keyIdOf).
 */
import { hasLoneSurrogate, JsonNumber, JsonSyntaxError, parseJsonText } from './json-text.js';
import { filledTtl, nested, nestTrouble, readTtl, ttlValue } from './shape-oracle.js';
import {
  applyRow,
  base64ToBytes,
  canonicalBase64,
  checkName,
  initialTable,
  isDynamoNumber,
  itemBytes,
  jsonToAttribute,
  keyBytes,
  keyIdOf,
  readRecords,
  utf8SourceOf as sourceOf,
  MAX_ITEM_BYTES,
  MAX_PARTITION_KEY_BYTES,
  MAX_SORT_KEY_BYTES,
  Refusal,
  setOf,
  appliedCounts,
} from './oracle.js';
import { applyWrite } from './write-oracle.js';

/** @typedef {import('./oracle.js').Item} Item */
/** @typedef {import('./oracle.js').AttributeValue} AttributeValue */
/** @typedef {import('./oracle.js').Expected} Expected */
/** @typedef {{ name: string, type: 'S' | 'N' | 'B' }} KeyAttribute */
/** @typedef {{ partition: KeyAttribute, sort?: KeyAttribute }} TableKeys */

/**
 * @typedef {object} JsonOracleOptions
 * @property {'jsonl' | 'dynamodb-json'} format
 * @property {TableKeys} tableKeys
 * @property {Record<string, string>} [columnTypes]  JSON Lines only
 * @property {string} [setSeparator]  default '|'
 * @property {string} [mode]          'put' (default) or 'delete'
 * @property {string} [writeMode]     put (default), if-absent, newer or update (write-oracle.js)
 * @property {string} [versionColumn]
 * @property {Item[]} [initialItems]
 * @property {boolean} [fromRejects]  the file is a rejects file: CSV of line, reason, message and record,
 *   each record one line of the source
 * @property {string[]} [drop]  JSON Lines only: attributes not written, by their names in the line
 * @property {Record<string, string>} [rename]  JSON Lines only: attributes written under other names
 * @property {string} [ttl]  JSON Lines only: the TTL attribute, or attribute:+Nd (shape-oracle.js)
 * @property {boolean} [nest]  JSON Lines only: dotted names become nested maps (shape-oracle.js)
 * @property {number} [importTime]  the import's time (epoch ms), which a filled TTL attribute counts from
 */

/** A function declaration, so that a call to it ends the code path for the type checker. @param {string} reason @returns {never} */
function refuse(reason) {
  throw new Refusal(reason);
}

/**
 * What a correct import of these JSON bytes must leave behind.
 * @param {Buffer} bytes
 * @param {JsonOracleOptions} options
 * @returns {Expected}
 */
export function expectedJsonImport(bytes, options) {
  const keys = { keyColumn: options.tableKeys.partition.name, sortKeyColumn: options.tableKeys.sort?.name };
  const { items, itemLines } = initialTable(options.initialItems, keys);
  /** @type {import('./oracle.js').Reject[]} */
  const rejects = [];
  let rowsRead = 0;
  let skipped = 0;
  /** Rows applied as puts and as deletes, and their keys. */
  const applied = { puts: 0, deletes: 0, keys: /** @type {Map<string, 'put' | 'delete'>} */ (new Map()) };
  for (const { line, text, reason } of options.fromRejects === true ? rejectsFileLines(bytes) : jsonLines(bytes)) {
    if (text === undefined) {
      rowsRead++;
      rejects.push({ line, reason: /** @type {string} */ (reason) });
      continue;
    }
    if (options.fromRejects !== true && /^[ \t]*$/.test(text)) continue;
    rowsRead++;
    try {
      const row = options.format === 'jsonl' ? jsonLinesRow(text, options) : dynamodbJsonRow(text, options);
      const keyId = checkKeys(row.item, row.op, options.tableKeys, keys);
      if (row.op === 'delete') {
        applyRow(items, itemLines, keyId, undefined, line);
        applied.deletes++;
        applied.keys.set(keyId, 'delete');
        continue;
      }
      const outcome = applyWrite(items, itemLines, keyId, row.item, line, options);
      if (outcome === 'skipped') skipped++;
      else if (outcome === 'INVALID_VERSION' || outcome === 'REJECTED_BY_TABLE') rejects.push({ line, reason: outcome, fields: [text] });
      else {
        applied.puts++;
        applied.keys.set(keyId, 'put');
      }
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      rejects.push({ line, reason: error.reason, fields: [text] });
    }
  }
  return { rowsRead, rejects, items, itemLines, skipped, applied: appliedCounts(applied) };
}

/**
 * A JSON file's lines: each with its number and text, or the reason it has none (not UTF-8).
 * @param {Buffer} bytes
 * @returns {Array<{ line: number, text?: string, reason?: string }>}
 */
function jsonLines(bytes) {
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const lines = [];
  let line = 0;
  while (body.length > 0) {
    line++;
    const end = body.indexOf(0x0a);
    let raw = end === -1 ? body : body.subarray(0, end);
    body = end === -1 ? Buffer.alloc(0) : body.subarray(end + 1);
    if (raw[raw.length - 1] === 0x0d) raw = raw.subarray(0, -1);
    try {
      lines.push({ line, text: strict.decode(raw) });
    } catch {
      lines.push({ line, reason: 'INVALID_UTF8' });
    }
  }
  return lines;
}

/**
 * A JSON import's rejects file (fromRejects): CSV whose header is line, reason, message, record; each
 * row's record is one line of the source, at the line its CSV record starts on.
 * @param {Buffer} bytes
 * @returns {Array<{ line: number, text?: string, reason?: string }>}
 */
function rejectsFileLines(bytes) {
  const [header, ...rows] = readRecords(sourceOf(bytes), ',');
  if (header?.fields?.join(',') !== 'line,reason,message,record') throw new Error('not the rejects file of a JSON import');
  return rows.map((row) => (row.fields === undefined ? { line: row.line, reason: row.reason } : { line: row.line, text: row.fields[3] ?? '' }));
}

/** @param {string} text @returns {import('./json-text.js').JsonValue} */
function parseLine(text) {
  try {
    return parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) refuse('INVALID_JSON');
    throw error;
  }
}

/**
 * @param {string} text @param {JsonOracleOptions} options
 * @returns {{ item: Item, op: 'put' | 'delete' }}
 */
function jsonLinesRow(text, options) {
  const object = parseLine(text);
  if (!(object instanceof Map)) refuse('INVALID_JSON');
  const deletes = options.mode === 'delete';
  const keyNames = [options.tableKeys.partition.name, options.tableKeys.sort?.name];
  /** @type {Item} */
  const item = Object.create(null);
  const drop = new Set(options.drop ?? []);
  const rename = new Map(Object.entries(options.rename ?? {}));
  const ttl = deletes ? undefined : readTtl(options.ttl).ttl;
  for (const [source, value] of object) {
    // Dropped by the name the line gives it, then written under its new name; two onto one name: refused.
    if (drop.has(source)) continue;
    const name = rename.get(source) ?? source;
    if (deletes && !keyNames.includes(name)) continue;
    if (Object.hasOwn(item, name)) refuse('INVALID_JSON');
    checkName(name);
    if (ttl !== undefined && name === ttl.column) {
      define(item, name, ttlAttribute(value, ttl.after !== undefined));
      continue;
    }
    const type = options.columnTypes === undefined ? undefined : Object.getOwnPropertyDescriptor(options.columnTypes, name)?.value;
    define(item, name, type === undefined ? jsonToAttribute(value) : jsonAs(type, value, options.setSeparator ?? '|'));
  }
  if (ttl?.after !== undefined) define(item, ttl.column, { N: filledTtl(options.importTime ?? NaN, ttl.after) });
  // Nested once every value is read: a name with an empty part, or one inside another, rejects the line.
  if (options.nest === true && !deletes) {
    const trouble = nestTrouble(Object.keys(item));
    if (trouble === 'empty') refuse('INVALID_ATTRIBUTE_VALUE');
    if (trouble === 'conflict') refuse('INVALID_JSON');
    return { item: nested(item), op: 'put' };
  }
  return { item, op: deletes ? 'delete' : 'put' };
}

/**
 * The TTL attribute's value: null is NULL; a number's text or a string is read by ttlValue; anything else,
 * or any value where the import fills the attribute, is INVALID_TTL.
 * @param {import('./json-text.js').JsonValue} value @param {boolean} filled
 * @returns {AttributeValue}
 */
function ttlAttribute(value, filled) {
  if (filled) return refuse('INVALID_TTL');
  if (value === null) return { NULL: true };
  const text = value instanceof JsonNumber ? value.text : typeof value === 'string' ? value : undefined;
  const seconds = text === undefined ? undefined : ttlValue(text);
  return seconds === undefined ? refuse('INVALID_TTL') : { N: seconds };
}

/**
 * A JSON Lines value as a column type asks (README: "columnTypes overrides a member's type as for
 * CSV"): null is NULL whatever the type; S from a string or a number's text; N from a number or a
 * string of one; BOOL from true/false or their text in any case; B from base64 text; M and L from an
 * object or array, or JSON text of one; SS, NS and BS from an array, or text cut by the separator.
 * @param {string} type @param {import('./json-text.js').JsonValue} value @param {string} separator
 * @returns {AttributeValue}
 */
function jsonAs(type, value, separator) {
  if (value === null) return { NULL: true };
  const text = typeof value === 'string' ? value : value instanceof JsonNumber ? value.text : undefined;
  switch (type) {
    case 'S':
      if (text === undefined) refuse('INVALID_ATTRIBUTE_VALUE');
      return hasLoneSurrogate(text) ? refuse('INVALID_JSON') : { S: text };
    case 'N':
      return text !== undefined && isDynamoNumber(text) ? { N: text } : refuse('INVALID_NUMBER');
    case 'BOOL': {
      const lower = typeof value === 'boolean' ? String(value) : typeof value === 'string' ? value.toLowerCase() : '';
      return lower === 'true' || lower === 'false' ? { BOOL: lower === 'true' } : refuse('INVALID_BOOL');
    }
    case 'B':
      return typeof value === 'string' && base64ToBytes(value) !== undefined ? { B: canonicalBase64(value) } : refuse('INVALID_BINARY');
    case 'M':
    case 'L': {
      const tree = typeof value === 'string' ? parseLine(value) : value;
      if (type === 'M' ? !(tree instanceof Map) : !Array.isArray(tree)) refuse('INVALID_JSON');
      return jsonToAttribute(tree);
    }
    default: {
      /** @type {unknown[]} */
      let members;
      if (typeof value === 'string') members = value.split(separator);
      else if (Array.isArray(value)) members = value.map((member) => (member instanceof JsonNumber && type === 'NS' ? member.text : member));
      else return refuse('INVALID_SET');
      if (members.includes('')) refuse('INVALID_SET');
      return setOf(type, members);
    }
  }
}

/**
 * @param {string} text @param {JsonOracleOptions} options
 * @returns {{ item: Item, op: 'put' | 'delete' }}
 */
function dynamodbJsonRow(text, options) {
  const record = parseLine(text);
  if (!(record instanceof Map)) refuse('INVALID_JSON');
  /** @type {'put' | 'delete'} */
  let op = 'put';
  let image;
  if (record.has('Item')) image = record.get('Item');
  else if (record.has('NewImage')) image = record.get('NewImage');
  else if (record.has('Keys')) {
    image = record.get('Keys');
    op = 'delete';
  } else refuse('INVALID_JSON');
  if (!(image instanceof Map)) refuse('INVALID_ATTRIBUTE_VALUE');
  if (options.mode === 'delete') op = 'delete';
  const keyNames = [options.tableKeys.partition.name, options.tableKeys.sort?.name];
  /** @type {Item} */
  const item = Object.create(null);
  for (const [name, value] of image) {
    if (op === 'delete' && !keyNames.includes(name)) continue;
    checkName(name);
    define(item, name, typedValue(value));
  }
  return { item, op };
}

const TYPES = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);

/**
 * A DynamoDB JSON typed value, checked deeply as DynamoDB would take it: one type of the ten, a value of
 * its shape (else INVALID_ATTRIBUTE_VALUE), N a number written as a string (INVALID_NUMBER), B base64
 * (INVALID_BINARY; written canonical), sets as setOf, M's names as checkName.
 * @param {import('./json-text.js').JsonValue} value
 * @returns {AttributeValue}
 */
function typedValue(value) {
  if (!(value instanceof Map) || value.size !== 1) return refuse('INVALID_ATTRIBUTE_VALUE');
  const [[type, inner]] = value;
  if (!TYPES.has(type)) refuse('INVALID_ATTRIBUTE_VALUE');
  switch (type) {
    case 'S':
      if (typeof inner !== 'string') refuse('INVALID_ATTRIBUTE_VALUE');
      return hasLoneSurrogate(inner) ? refuse('INVALID_JSON') : { S: inner };
    case 'N':
      return typeof inner === 'string' && isDynamoNumber(inner) ? { N: inner } : refuse('INVALID_NUMBER');
    case 'B':
      return typeof inner === 'string' && base64ToBytes(inner) !== undefined ? { B: canonicalBase64(inner) } : refuse('INVALID_BINARY');
    case 'BOOL':
      return typeof inner === 'boolean' ? { BOOL: inner } : refuse('INVALID_ATTRIBUTE_VALUE');
    case 'NULL':
      return inner === true ? { NULL: true } : refuse('INVALID_ATTRIBUTE_VALUE');
    case 'M': {
      if (!(inner instanceof Map)) refuse('INVALID_ATTRIBUTE_VALUE');
      /** @type {Record<string, AttributeValue>} */
      const members = Object.create(null);
      for (const [name, member] of inner) {
        checkName(name);
        define(members, name, typedValue(member));
      }
      return { M: members };
    }
    case 'L':
      if (!Array.isArray(inner)) refuse('INVALID_ATTRIBUTE_VALUE');
      return { L: inner.map(typedValue) };
    default:
      if (!Array.isArray(inner) || inner.length === 0) refuse('INVALID_SET');
      return setOf(type, inner);
  }
}

/**
 * The key checks, partition then sort, then the sizes; returns the key id.
 * @param {Item} item @param {'put' | 'delete'} op @param {TableKeys} tableKeys @param {{ keyColumn: string, sortKeyColumn?: string }} keys
 */
function checkKeys(item, op, tableKeys, keys) {
  for (const key of [tableKeys.partition, tableKeys.sort]) {
    if (key === undefined) continue;
    const value = Object.getOwnPropertyDescriptor(item, key.name)?.value;
    if (value === undefined) refuse('MISSING_KEY');
    if (!(key.type in value)) refuse('KEY_TYPE');
    if (value[key.type] === '') refuse('MISSING_KEY');
  }
  if (op === 'put' && itemBytes(item) > MAX_ITEM_BYTES) refuse('ITEM_TOO_LARGE');
  if (keyBytes(Object.getOwnPropertyDescriptor(item, tableKeys.partition.name)?.value) > MAX_PARTITION_KEY_BYTES) refuse('KEY_TOO_LONG');
  if (tableKeys.sort !== undefined && keyBytes(Object.getOwnPropertyDescriptor(item, tableKeys.sort.name)?.value) > MAX_SORT_KEY_BYTES) refuse('KEY_TOO_LONG');
  return keyIdOf(item, keys);
}

/** An own property, whatever its name. @param {Record<string, any>} object @param {string} name @param {unknown} value */
function define(object, name, value) {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
}

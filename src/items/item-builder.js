/**
 * CSV records to DynamoDB items. The header names the attributes; each column gets its type once, so
 * the per-row path is one loop that writes the item's wire JSON directly: no AttributeValue objects,
 * no generic marshalling, no JSON.stringify of a tree (docs/design/items.md has the figures).
 */
import { v5 as uuidv5 } from 'uuid';
import { RowError } from '../errors.js';
import { shapeHeader } from './header.js';
import { nestItem } from './nest.js';
import { createTtlReader, ttlAfter } from './ttl.js';
import { noShaping } from './shaping.js';
import { itemBytes, MAX_ITEM_BYTES, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES } from './item-size.js';
import { joinKeyId } from './key-id.js';
import { isDynamoNumber, normalizeNumber, numberBytes } from './numbers.js';
import { base64Bytes, canonicalBase64 } from './attribute-values.js';
import { wireAs } from './json-values.js';
import { sourceId } from '../source/source-name.js';

/** @typedef {import('../config/index.js').ImportConfig} ImportConfig */
/** @typedef {import('./shaping.js').Shaping} Shaping */

/** Namespace of generated keys: uuid v5 of (bucket, key, ETag, line) under it is stable across re-runs. */
const GENERATED_KEY_NAMESPACE = '6f1f4a52-3c0e-4f5e-9d3a-6a2b8f0c1e47';

/**
 * @typedef {object} BuiltItem
 * @property {string} json   the item as DynamoDB's JSON wire form: {"name":{"S":"value"},...}; '' from a builder
 *   asked for sizes without JSON
 * @property {string} keyId  primary key as one string, to find duplicates within a batch
 * @property {'put' | 'delete'} [op]  a delete's json is the key only (default: put)
 * @property {number} [bytes]  the item's size as DynamoDB counts it, when the builder was asked for it
 */

// Strings with nothing JSON must escape (quote, backslash, control characters) are written as they
// are; the rest, and anything not ASCII, go through JSON.stringify. Most CSV values are the former.
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** @param {string} value */
const jsonString = (value) => (PLAIN_ASCII.test(value) ? `"${value}"` : JSON.stringify(value));

/** A key value that cannot be written: empty, or only spaces (other whitespace is kept as written). @param {string | undefined} value */
const isBlankKey = (value) => value === undefined || value === '' || (value.charCodeAt(0) === 32 && !/[^ ]/.test(value));

/**
 * @param {string[]} header  the first record, BOM already stripped by the parser
 * @param {ImportConfig} config
 * @param {{ etag: string }} source  the object version, for deterministic generated keys
 * @param {{ sized?: boolean, json?: boolean, shaping?: Shaping }} [options]  sized: every item's bytes (a dry run's), else none;
 *   json false: the item's JSON is not wanted (a dry run's on a table without indexes), and is not assembled
 *   when its size can be had without it
 * @returns {(fields: string[], line: number) => BuiltItem}
 */
export function createItemBuilder(header, config, source, { sized = false, json: wantJson = true, shaping = noShaping() } = {}) {
  // Columns are dropped by the names the file gives them, then written under their new names (rename):
  // the keys, the types and the TTL column name them as written; then dotted names are nested (nest).
  const { names, dropped } = shapeHeader(header, config);
  const skip = dropped.includes(true) ? dropped : undefined;
  const indexOfKept = (/** @type {string} */ name) => names.findIndex((written, i) => !dropped[i] && written === name);
  const ttl = ttlOf(config, indexOfKept, shaping);

  const types = names.map((name, i) => (i === ttl.index ? TTL : config.columnTypes[name] ?? 'S'));
  const keyIndex = config.generateKey ? -1 : indexOfKept(config.keyColumn);
  const sortIndex = config.sortKeyColumn === undefined ? -1 : indexOfKept(config.sortKeyColumn);
  const keyPrefix = `${sourceId(config)}#${source.etag}:`;
  // What comes before each column's value in the item's JSON: its quoted name and its type.
  const opening = names.map((name, i) => `${jsonString(name)}:{"${types[i]}":`);
  const commaOpening = opening.map((piece) => `,${piece}`);
  const generatedKeyOpening = `${jsonString(config.keyColumn)}:{"S":`;
  // Types past the scalars are written by json-values.js, after their name only (the type is in what it writes).
  const typedOpening = names.map((name) => `${jsonString(name)}:`);
  const emptyCell = config.emptyCell;
  const nullPiece = names.map((name) => `${jsonString(name)}:{"NULL":true}`);
  const emptyStringPiece = names.map((name, i) => (types[i] === 'S' ? `${jsonString(name)}:{"S":""}` : undefined));
  // A cell typed M or L may be a larger item than its characters suggest: such items are sized exactly.
  const sizeExactly = types.some((type) => type === 'M' || type === 'L');
  // Byte length is at most 3 x UTF-16 length (and attribute names count too): rows under this many
  // characters cannot reach 400 KB, so only rare huge rows pay for an exact size.
  const nameChars = names.reduce((sum, name) => sum + name.length, 0) + (keyIndex === -1 ? config.keyColumn.length + 36 : 0) + (ttl.piece?.length ?? 0);
  // A key is one however it is written: N by its value (007, 7), B by its bytes (AQ==, AR==).
  const keyIdOf = (/** @type {number} */ index, /** @type {string} */ value) => (types[index] === 'N' ? normalizeNumber(value) : types[index] === 'B' ? canonicalBase64(value) : value);
  // A key typed B is counted by its bytes, not by its base64's.
  const keyBytes = (/** @type {number} */ index, /** @type {string} */ value) => (types[index] === 'B' ? base64Bytes(value) : Buffer.byteLength(value));
  const fastSizeLimit = Math.floor(MAX_ITEM_BYTES / 3) - nameChars;
  // A sized item's bytes are added up as its S, N and BOOL members are written (the JSON is not read
  // again); a file with other types is sized from its JSON.
  // A delete writes the key only: the other columns are not read, nor checked.
  const keysOnly = config.mode === 'delete';
  // Nested items are sized exactly, once nested.
  const nest = config.nest && !keysOnly;
  const sizeMembers = sized && !nest && types.every((type) => type === 'S' || type === 'N' || type === 'BOOL' || type === TTL);
  // Joining the pieces is most of what building costs: skipped where nothing reads the JSON.
  const assemble = wantJson || !sizeMembers;
  const ttlPiece = keysOnly ? undefined : ttl.piece;
  const nameBytes = names.map((name) => Buffer.byteLength(name));
  const generatedKeyBytes = Buffer.byteLength(config.keyColumn) + 36;

  // The item's JSON is assembled from its pieces with one join, which makes a flat string; concatenation
  // would make a rope five times its size, held as long as the row is (docs/design/items.md).
  /** @type {string[]} */
  const pieces = [];
  const op = keysOnly ? 'delete' : undefined;
  return function buildItem(fields, line) {
    pieces.length = 0;
    pieces.push('{');
    let chars = 0;
    let bytes = 0;
    for (let i = 0; i < fields.length; i++) {
      if (keysOnly && i !== keyIndex && i !== sortIndex) continue;
      if (skip !== undefined && skip[i]) continue;
      const value = fields[i];
      if (value === '') {
        if (emptyCell === 'omit') continue;
        const piece = emptyCell === 'null' ? nullPiece[i] : emptyStringPiece[i];
        if (piece === undefined) continue;
        pieces.push(pieces.length === 1 ? '' : ',', piece);
        // NULL is one byte, an empty string none.
        if (sizeMembers) bytes += nameBytes[i] + (emptyCell === 'null' ? 1 : 0);
        continue;
      }
      chars += value.length;
      const type = types[i];
      if (type !== 'S' && type !== 'N' && type !== 'BOOL') {
        // The TTL column's type is past the scalars too: a file without one pays nothing for it.
        if (type === TTL) {
          const wire = /** @type {NonNullable<typeof ttl.read>} */ (ttl.read)(value, line);
          pieces.push(pieces.length === 1 ? '' : ',', typedOpening[i], wire);
          // {"N":"seconds"}
          if (sizeMembers) bytes += nameBytes[i] + numberBytes(wire.slice(6, -2));
          continue;
        }
        pieces.push(pieces.length === 1 ? '' : ',', typedOpening[i], wireAs(type, value, `column "${names[i]}"`, line, config.setSeparator));
        continue;
      }
      pieces.push(pieces.length === 1 ? opening[i] : commaOpening[i]);
      if (type === 'S') {
        // jsonString's rule, pushed as pieces: its quoted copy would cost 400 bytes a row more.
        if (PLAIN_ASCII.test(value)) {
          pieces.push('"', value, '"}');
          if (sizeMembers) bytes += nameBytes[i] + value.length;
        } else {
          pieces.push(JSON.stringify(value), '}');
          if (sizeMembers) bytes += nameBytes[i] + Buffer.byteLength(value);
        }
      } else if (type === 'N') {
        if (!isDynamoNumber(value)) {
          throw new RowError('INVALID_NUMBER', `line ${line}: column "${names[i]}" is typed N but its value is not a number DynamoDB takes (at most 38 significant digits, magnitude from 1E-130 to under 1E+126)`);
        }
        pieces.push('"', value, '"}');
        if (sizeMembers) bytes += nameBytes[i] + numberBytes(value);
      } else {
        const lower = value.toLowerCase();
        if (lower !== 'true' && lower !== 'false') {
          throw new RowError('INVALID_BOOL', `line ${line}: column "${names[i]}" is typed BOOL but its value is not true or false`);
        }
        pieces.push(lower, '}');
        if (sizeMembers) bytes += nameBytes[i] + 1;
      }
    }

    // A TTL column the import fills: the same value in every row.
    if (ttlPiece !== undefined) {
      pieces.push(pieces.length === 1 ? '' : ',', ttlPiece);
      bytes += ttl.bytes;
    }
    // The checks in the oracle's order (test/oracle/oracle.js): empty keys, the item's size, the keys' sizes.
    let keyValue;
    if (keyIndex === -1) {
      keyValue = uuidv5(keyPrefix + line, GENERATED_KEY_NAMESPACE);
      pieces.push(pieces.length === 1 ? '' : ',', generatedKeyOpening, '"', keyValue, '"}');
      bytes += generatedKeyBytes;
    } else {
      keyValue = fields[keyIndex];
      if (isBlankKey(keyValue)) {
        throw new RowError('MISSING_KEY', `line ${line}: key column "${config.keyColumn}" is empty or only spaces`);
      }
    }
    const sortValue = sortIndex === -1 ? undefined : fields[sortIndex];
    if (sortIndex !== -1 && isBlankKey(sortValue)) {
      throw new RowError('MISSING_KEY', `line ${line}: sort key column "${config.sortKeyColumn}" is empty or only spaces`);
    }

    pieces.push('}');
    let json = assemble ? pieces.join('') : '';
    if (nest) {
      const item = /** @type {Record<string, import('./attribute-values.js').AttributeValue>} */ (nestItem(JSON.parse(json)));
      json = JSON.stringify(item);
      bytes = itemBytes(item);
      if (bytes > MAX_ITEM_BYTES) throw new RowError('ITEM_TOO_LARGE', `line ${line}: item is ${bytes} bytes; DynamoDB's limit is ${MAX_ITEM_BYTES}`);
    } else if (chars > fastSizeLimit || sizeExactly || (sized && !sizeMembers)) {
      if (!sizeMembers) bytes = itemBytes(JSON.parse(json));
      if (bytes > MAX_ITEM_BYTES) {
        throw new RowError('ITEM_TOO_LARGE', `line ${line}: item is ${bytes} bytes; DynamoDB's limit is ${MAX_ITEM_BYTES}`);
      }
    }
    const size = sized ? bytes : undefined;
    if (keyValue.length > 682 && keyBytes(keyIndex, keyValue) > MAX_PARTITION_KEY_BYTES) {
      throw new RowError('KEY_TOO_LONG', `line ${line}: key column "${config.keyColumn}" is ${keyBytes(keyIndex, keyValue)} bytes; DynamoDB's limit for a partition key is ${MAX_PARTITION_KEY_BYTES}`);
    }
    if (sortValue === undefined) return { json, keyId: keyIndex === -1 ? keyValue : keyIdOf(keyIndex, keyValue), op, bytes: size };
    if (sortValue.length > 341 && keyBytes(sortIndex, sortValue) > MAX_SORT_KEY_BYTES) {
      throw new RowError('KEY_TOO_LONG', `line ${line}: sort key column "${config.sortKeyColumn}" is ${keyBytes(sortIndex, sortValue)} bytes; DynamoDB's limit for a sort key is ${MAX_SORT_KEY_BYTES}`);
    }
    const keyId = joinKeyId(keyIndex === -1 ? keyValue : keyIdOf(keyIndex, keyValue), keyIdOf(sortIndex, sortValue));
    return { json, keyId, op, bytes: size };
  };
}

/** The type the TTL column is written by (as N, from numbers or dates), beside the column types. */
const TTL = 'TTL';

/**
 * The TTL column of a header: read from the column at `index` (its values checked and converted), or
 * filled by the import, the same piece in every row (with its size, as DynamoDB counts it).
 * @param {ImportConfig} config @param {(name: string) => number} indexOfKept @param {Shaping} shaping
 * @returns {{ index: number, read?: (text: string, line: number) => string, piece?: string, bytes: number }}
 */
function ttlOf(config, indexOfKept, shaping) {
  const { ttl } = config;
  if (ttl === undefined) return { index: -1, bytes: 0 };
  if (ttl.after === undefined) return { index: indexOfKept(ttl.column), read: createTtlReader(ttl.column, shaping.warn), bytes: 0 };
  const seconds = ttlAfter(shaping.importTime, ttl.after);
  return { index: -1, piece: `${jsonString(ttl.column)}:{"N":"${seconds}"}`, bytes: Buffer.byteLength(ttl.column) + numberBytes(seconds) };
}

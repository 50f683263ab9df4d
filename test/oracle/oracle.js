/**
 * The sequential oracle: what a correct import of a file's bytes must leave behind, computed the slow,
 * plain way (issue 17). It reads the bytes one unit at a time, finds the records, checks the header,
 * turns each row into an item, and applies the rows one by one in file order, as sequential PutItems
 * would: a later row with the same primary key replaces the earlier item, and a rejected row changes
 * nothing. Every rejected row is listed with its line and reason.
 *
 * It shares no code with the pipeline (nothing from src/ is imported): it is the reference the
 * pipeline is compared with, so it is written to be read and checked by eye, not to be fast.
 *
 * The rules (the target behaviour; where the pipeline differs, the pipeline is wrong):
 *
 * Encoding. `encoding` 'auto' (default): a UTF-8 BOM (EF BB BF) means UTF-8 and is dropped, a UTF-16LE
 * BOM (FF FE) means UTF-16LE and is dropped, a UTF-32LE BOM (FF FE 00 00) or a UTF-16BE BOM (FE FF) is a job error
 * UNSUPPORTED_ENCODING, anything else is UTF-8. Or explicitly 'utf-8', 'utf-16le', 'windows-1252',
 * 'latin1' (a BOM of that encoding is still dropped). In UTF-8, records are found on the bytes (the
 * quote, the delimiter's bytes, CR and LF), and a record whose bytes are not valid UTF-8 is rejected as
 * INVALID_UTF8 at its start line. In UTF-16LE, records are found on the 2-byte code units, and a record
 * with a surrogate that is not half of a pair, or the half unit of a file of odd length, is rejected as
 * INVALID_UTF16.
 *
 * Records. CRLF, LF and CR are each one line break (mixed too, and inside quoted fields). Lines count
 * from 1; the BOM is no line. An empty line is skipped but counts. The first non-empty record is the
 * header. A field is quoted only when `"` is its first character; inside, `""` is a quote; a `"`
 * followed by the delimiter, a line break or the end of the file closes it; followed by anything else,
 * the record is MALFORMED_CSV. A quoted field still open at the end of the file is MALFORMED_CSV. A
 * record of more than MAX_RECORD_BYTES source bytes (from its first byte to its line break) is
 * RECORD_TOO_LARGE. After a MALFORMED_CSV or RECORD_TOO_LARGE record, reading resumes at the start of
 * the physical line after the record's start line. A `"` inside an unquoted field is kept as written.
 * Every record after the header is a row and counts in rowsRead, bad ones too.
 *
 * Header. Names are trimmed of surrounding U+0020 spaces. Job errors (code HEADER): a nameless column,
 * a name twice, no keyColumn column (unless generateKey), a keyColumn column with generateKey, no
 * sortKeyColumn column when one is set, a columnTypes entry for a column the header lacks (other than
 * keyColumn). Any name is an ordinary name, `__proto__` and `constructor` included.
 *
 * Rows, checked in this order: FIELD_COUNT; then each column in order: an empty cell is left out; S is
 * the value as written; N must be a DynamoDB number (INVALID_NUMBER); BOOL is true or false in any
 * case (INVALID_BOOL); then MISSING_KEY (key or sort key empty or only U+0020 spaces); with
 * generateKey the key is the UUID v5 of `${bucket}/${key}#${etag}:${line}`; then ITEM_TOO_LARGE
 * (over 400 KB as DynamoDB counts it); then KEY_TOO_LONG (partition key over 2048 UTF-8 bytes,
 * sort key over 1024). Keys typed N are one key when their values are equal (`007`, `7`, `7.0`).
 */
import { v5 as uuidv5 } from 'uuid';

export const MAX_RECORD_BYTES = 1024 * 1024;
export const MAX_ITEM_BYTES = 400 * 1024;
export const MAX_PARTITION_KEY_BYTES = 2048;
export const MAX_SORT_KEY_BYTES = 1024;
export const GENERATED_KEY_NAMESPACE = '6f1f4a52-3c0e-4f5e-9d3a-6a2b8f0c1e47';

/** Reasons whose rejects carry the record's fields, which a comparison checks. */
export const REASONS_WITH_FIELDS = new Set(['FIELD_COUNT', 'INVALID_NUMBER', 'INVALID_BOOL', 'MISSING_KEY', 'KEY_TOO_LONG', 'ITEM_TOO_LARGE', 'REJECTED_BY_TABLE']);

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** @typedef {{ S: string } | { N: string } | { BOOL: boolean }} AttributeValue */
/** @typedef {Record<string, AttributeValue>} Item */
/** @typedef {'S' | 'N' | 'BOOL'} ColumnType */

/**
 * @typedef {object} OracleOptions
 * @property {string} [keyColumn]      default 'id'
 * @property {string} [sortKeyColumn]
 * @property {boolean} [generateKey]   default false
 * @property {Record<string, string> | string} [columnTypes]  `{ age: 'N' }` or 'age:N,active:BOOL'
 * @property {string} [delimiter]      default ','; '\\t' means a tab
 * @property {string} [encoding]       'auto' (default), 'utf-8', 'utf-16le', 'windows-1252', 'latin1'
 * @property {string} [bucket]         for generated keys
 * @property {string} [key]            for generated keys
 * @property {string} [etag]           for generated keys (without quotes)
 */

/**
 * @typedef {object} Reject
 * @property {number} line
 * @property {string} reason
 * @property {string[]} [fields]   for the reasons in REASONS_WITH_FIELDS
 */

/**
 * @typedef {object} Expected
 * @property {{ code: string, message: string }} [error]  a job error: nothing is imported
 * @property {number} rowsRead
 * @property {Reject[]} rejects          in file order
 * @property {Map<string, Item>} items   primary key id (see keyIdOf) -> the final item
 * @property {Map<string, number>} itemLines  primary key id -> the line of the row that made the final item
 * @property {string[]} [header]         the header's names, trimmed
 */

/**
 * What a correct import of these bytes must leave behind.
 * @param {Buffer | Uint8Array} bytes
 * @param {OracleOptions} [options]
 * @returns {Expected}
 */
export function expectedImport(bytes, options = {}) {
  const settings = readOptions(options);
  const source = decodeSource(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), settings.encoding);
  if ('error' in source) return failed(source.error.code, source.error.message);
  if (settings.optionError !== undefined) return failed('OPTIONS', settings.optionError);

  const records = readRecords(source, settings.delimiter);

  /** @type {string[] | undefined} */
  let names;
  let rowsRead = 0;
  /** @type {Reject[]} */
  const rejects = [];
  /** @type {Map<string, Item>} */
  const items = new Map();
  /** @type {Map<string, number>} */
  const itemLines = new Map();

  for (const record of records) {
    if (names === undefined) {
      if (record.fields === undefined) return failed('HEADER', `line ${record.line}: the header record is ${record.reason}`);
      names = record.fields.map(trimSpaces);
      const problem = headerProblem(names, settings);
      if (problem !== undefined) return failed('HEADER', problem);
      continue;
    }
    rowsRead++;
    if (record.fields === undefined) {
      rejects.push({ line: record.line, reason: record.reason });
      continue;
    }
    const row = rowToItem(record.fields, record.line, names, settings);
    if ('reason' in row) {
      rejects.push({ line: record.line, reason: row.reason, fields: record.fields });
      continue;
    }
    items.set(row.keyId, row.item);
    itemLines.set(row.keyId, record.line);
  }
  return { rowsRead, rejects, items, itemLines, ...(names === undefined ? {} : { header: names }) };
}

/** @param {string} code @param {string} message @returns {Expected} */
function failed(code, message) {
  return { error: { code, message }, rowsRead: 0, rejects: [], items: new Map(), itemLines: new Map() };
}

// ---------------------------------------------------------------------------------------------------
// Options

/**
 * @typedef {object} Settings
 * @property {string} keyColumn
 * @property {string | undefined} sortKeyColumn
 * @property {boolean} generateKey
 * @property {Map<string, ColumnType>} columnTypes
 * @property {string} delimiter
 * @property {string} encoding
 * @property {string} generatedKeyPrefix
 * @property {string | undefined} optionError
 */

/** @param {OracleOptions} options @returns {Settings} */
export function readOptions(options) {
  const keyColumn = options.keyColumn ?? 'id';
  const sortKeyColumn = options.sortKeyColumn;
  const generateKey = options.generateKey === true;
  /** @type {Map<string, ColumnType>} */
  const columnTypes = new Map();
  let optionError;
  const raw = options.columnTypes ?? {};
  /** @type {Array<[string, string]>} */
  const pairs = [];
  if (typeof raw === 'string') {
    for (const part of raw.split(',')) {
      if (part.trim() === '') continue;
      const at = part.lastIndexOf(':');
      pairs.push([part.slice(0, at).trim(), part.slice(at + 1).trim()]);
    }
  } else {
    // Own properties only: a column named "constructor" has no type unless it is given one.
    for (const name of Object.keys(raw)) pairs.push([name, String(Object.getOwnPropertyDescriptor(raw, name)?.value)]);
  }
  for (const [name, type] of pairs) {
    const upper = type.toUpperCase();
    if (upper !== 'S' && upper !== 'N' && upper !== 'BOOL') optionError = `column "${name}" has type ${type}`;
    else columnTypes.set(name, upper);
  }
  if (sortKeyColumn === keyColumn) optionError = 'sortKeyColumn equals keyColumn';
  if (columnTypes.get(keyColumn) === 'BOOL' || (sortKeyColumn !== undefined && columnTypes.get(sortKeyColumn) === 'BOOL')) optionError = 'a key column typed BOOL';
  if (generateKey && columnTypes.get(keyColumn) === 'N') optionError = 'generateKey with a key typed N';
  const delimiter = options.delimiter === '\\t' ? '\t' : (options.delimiter ?? ',');
  if (delimiter.length === 0 || delimiter === '"' || delimiter === '\r' || delimiter === '\n') optionError = `delimiter ${JSON.stringify(delimiter)}`;
  return {
    keyColumn,
    sortKeyColumn,
    generateKey,
    columnTypes,
    delimiter,
    encoding: (options.encoding ?? 'auto').toLowerCase(),
    generatedKeyPrefix: `${options.bucket}/${options.key}#${options.etag}:`,
    optionError,
  };
}

// ---------------------------------------------------------------------------------------------------
// Encoding: the source as a list of units (bytes for UTF-8, UTF-16 code units for the others)

/**
 * @typedef {object} Source
 * @property {ArrayLike<number>} units       what the record reader walks over
 * @property {number} unitBytes              source bytes per unit
 * @property {(delimiter: string) => number[]} delimiterUnits
 * @property {(units: number[]) => string} text   a field's units as text (valid by then)
 * @property {(from: number, to: number) => boolean} valid  whether units[from, to) are valid text
 * @property {string} invalidReason          the reject reason of a record that is not
 */

/**
 * @param {Buffer} bytes
 * @param {string} encoding
 * @returns {Source | { error: { code: string, message: string } }}
 */
function decodeSource(bytes, encoding) {
  const startsWith = (/** @type {number[]} */ prefix) => prefix.every((byte, i) => bytes[i] === byte);
  if (encoding === 'auto') {
    if (startsWith([0xef, 0xbb, 0xbf])) return utf8Source(bytes.subarray(3));
    if (startsWith([0xff, 0xfe, 0, 0])) return { error: { code: 'UNSUPPORTED_ENCODING', message: 'a UTF-32LE byte order mark' } };
    if (startsWith([0xff, 0xfe])) return utf16leSource(bytes.subarray(2));
    if (startsWith([0xfe, 0xff])) return { error: { code: 'UNSUPPORTED_ENCODING', message: 'a UTF-16BE byte order mark' } };
    return utf8Source(bytes);
  }
  if (encoding === 'utf-8' || encoding === 'utf8') return utf8Source(startsWith([0xef, 0xbb, 0xbf]) ? bytes.subarray(3) : bytes);
  if (encoding === 'utf-16le') return utf16leSource(startsWith([0xff, 0xfe]) ? bytes.subarray(2) : bytes);
  if (encoding === 'windows-1252') {
    // Node 20's TextDecoder('windows-1252') decodes 0x80-0x9F as latin1, so the table is spelled out here.
    let text = '';
    for (const byte of bytes) text += byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_80_9F[byte - 0x80] : String.fromCharCode(byte);
    return codeUnitSource(text, 1);
  }
  if (encoding === 'latin1') {
    // Byte n is U+00nn.
    let text = '';
    for (const byte of bytes) text += String.fromCharCode(byte);
    return codeUnitSource(text, 1);
  }
  return { error: { code: 'UNSUPPORTED_ENCODING', message: `encoding ${encoding}` } };
}

/** Bytes 0x80-0x9F in windows-1252 (the WHATWG Encoding Standard's index); the other bytes are latin1. */
const WINDOWS_1252_80_9F = [
  '\u20ac', '\u0081', '\u201a', '\u0192', '\u201e', '\u2026', '\u2020', '\u2021', '\u02c6', '\u2030', '\u0160', '\u2039', '\u0152', '\u008d', '\u017d', '\u008f',
  '\u0090', '\u2018', '\u2019', '\u201c', '\u201d', '\u2022', '\u2013', '\u2014', '\u02dc', '\u2122', '\u0161', '\u203a', '\u0153', '\u009d', '\u017e', '\u0178',
];

/** @param {Buffer} bytes @returns {Source} */
function utf8Source(bytes) {
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  return {
    units: bytes,
    unitBytes: 1,
    invalidReason: 'INVALID_UTF8',
    delimiterUnits: (delimiter) => [...Buffer.from(delimiter, 'utf8')],
    text: (units) => strict.decode(Uint8Array.from(units)),
    valid(from, to) {
      try {
        strict.decode(bytes.subarray(from, to));
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** @param {Buffer} bytes @returns {Source} */
function utf16leSource(bytes) {
  // Code units by hand: a last lone byte is a unit of its own, HALF_UNIT, which no text holds.
  const units = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) units.push(bytes[i] + 256 * bytes[i + 1]);
  if (bytes.length % 2 === 1) units.push(HALF_UNIT);
  const isHigh = (/** @type {number} */ unit) => unit >= 0xd800 && unit <= 0xdbff;
  const isLow = (/** @type {number} */ unit) => unit >= 0xdc00 && unit <= 0xdfff;
  return {
    ...codeUnitSource('', 2),
    units,
    invalidReason: 'INVALID_UTF16',
    valid(from, to) {
      for (let i = from; i < to; i++) {
        if (units[i] === HALF_UNIT) return false;
        if (isHigh(units[i])) {
          if (i + 1 >= to || !isLow(units[i + 1])) return false;
          i++;
        } else if (isLow(units[i])) return false;
      }
      return true;
    },
  };
}

const HALF_UNIT = -1;

/** @param {string} text @param {number} unitBytes @returns {Source} */
function codeUnitSource(text, unitBytes) {
  const units = [];
  for (let i = 0; i < text.length; i++) units.push(text.charCodeAt(i));
  return {
    units,
    unitBytes,
    invalidReason: 'INVALID_TEXT',
    delimiterUnits: (delimiter) => [...delimiter].flatMap((char) => Array.from({ length: char.length }, (_, i) => char.charCodeAt(i))),
    text: (codes) => {
      let out = '';
      for (const code of codes) out += String.fromCharCode(code);
      return out;
    },
    valid: () => true,
  };
}

// ---------------------------------------------------------------------------------------------------
// Records

/**
 * @typedef {{ line: number, fields: string[] } | { line: number, fields: undefined, reason: string }} SourceRecord
 */

/**
 * Every non-empty record of the source, in order, each with the line it starts on.
 * @param {Source} source
 * @param {string} delimiter
 * @returns {SourceRecord[]}
 */
export function readRecords(source, delimiter) {
  const { units } = source;
  const end = units.length;
  const delimiterUnits = source.delimiterUnits(delimiter);
  /** @type {SourceRecord[]} */
  const records = [];
  let at = 0;
  let line = 1;
  while (at < end) {
    // An empty line: nothing before its line break.
    if (units[at] === LF) {
      at += 1;
      line += 1;
      continue;
    }
    if (units[at] === CR) {
      at += units[at + 1] === LF ? 2 : 1;
      line += 1;
      continue;
    }
    const record = readRecord(source, at, delimiterUnits);
    const tooLarge = (record.reach - at) * source.unitBytes > MAX_RECORD_BYTES;
    if (tooLarge || record.malformed) {
      records.push({ line, fields: undefined, reason: tooLarge ? 'RECORD_TOO_LARGE' : 'MALFORMED_CSV' });
      at = startOfNextLine(units, at);
      line += 1;
      continue;
    }
    if (!source.valid(at, record.reach)) {
      records.push({ line, fields: undefined, reason: source.invalidReason });
    } else {
      records.push({ line, fields: record.fields.map((field) => source.text(field)) });
    }
    at = record.next;
    line += record.lineBreaks;
  }
  return records;
}

/**
 * Reads one record from `start`, which is not a line break.
 * @param {Source} source
 * @param {number} start
 * @param {number[]} delimiterUnits
 * @returns {{ malformed: boolean, fields: number[][], reach: number, next: number, lineBreaks: number }}
 *   reach: where reading stopped (the record's line break, the end of the file, or the unit that made
 *   it malformed); next: where the next record starts; lineBreaks: line breaks up to `next`
 */
function readRecord(source, start, delimiterUnits) {
  const { units } = source;
  const end = units.length;
  /** @type {number[][]} */
  const fields = [];
  let lineBreaks = 0;
  let i = start;
  const delimiterAt = (/** @type {number} */ at) => delimiterUnits.every((unit, k) => units[at + k] === unit);
  const lineBreakAt = (/** @type {number} */ at) => units[at] === LF || units[at] === CR;
  /** The record ends at the line break at `at` (or the end of the file). */
  const finish = (/** @type {number} */ at) => {
    if (at >= end) return { malformed: false, fields, reach: at, next: end, lineBreaks };
    const next = units[at] === CR && units[at + 1] === LF ? at + 2 : at + 1;
    return { malformed: false, fields, reach: at, next, lineBreaks: lineBreaks + 1 };
  };

  for (;;) {
    /** @type {number[]} */
    const field = [];
    fields.push(field);
    if (units[i] === QUOTE) {
      // A quoted field: up to the quote that closes it.
      i += 1;
      for (;;) {
        if (i >= end) return { malformed: true, fields, reach: end, next: end, lineBreaks };
        const unit = units[i];
        if (unit === QUOTE) {
          if (units[i + 1] === QUOTE) {
            field.push(QUOTE);
            i += 2;
            continue;
          }
          i += 1; // the closing quote
          break;
        }
        if (unit === CR && units[i + 1] === LF) {
          field.push(CR, LF);
          lineBreaks += 1;
          i += 2;
          continue;
        }
        if (unit === CR || unit === LF) lineBreaks += 1;
        field.push(unit);
        i += 1;
      }
      // After the closing quote: the delimiter, a line break or the end of the file.
      if (i >= end || lineBreakAt(i)) return finish(i);
      if (delimiterAt(i)) {
        i += delimiterUnits.length;
        continue;
      }
      return { malformed: true, fields, reach: i, next: end, lineBreaks };
    }
    // An unquoted field: up to the delimiter, a line break or the end of the file; quotes are text.
    while (i < end && !lineBreakAt(i) && !delimiterAt(i)) {
      field.push(units[i]);
      i += 1;
    }
    if (i >= end || lineBreakAt(i)) return finish(i);
    i += delimiterUnits.length;
  }
}

/**
 * The first unit of the physical line after the one `at` is on (quotes do not matter here).
 * @param {ArrayLike<number>} units @param {number} at
 */
function startOfNextLine(units, at) {
  let i = at;
  while (i < units.length && units[i] !== LF && units[i] !== CR) i += 1;
  if (i >= units.length) return units.length;
  return units[i] === CR && units[i + 1] === LF ? i + 2 : i + 1;
}

// ---------------------------------------------------------------------------------------------------
// Header and rows

/** Surrounding U+0020 spaces removed (only those). @param {string} name */
function trimSpaces(name) {
  let from = 0;
  let to = name.length;
  while (from < to && name[from] === ' ') from++;
  while (to > from && name[to - 1] === ' ') to--;
  return name.slice(from, to);
}

/** @param {string[]} names @param {Settings} settings @returns {string | undefined} */
function headerProblem(names, settings) {
  const seen = new Set();
  for (let i = 0; i < names.length; i++) {
    if (names[i] === '') return `header column ${i + 1} has no name`;
    if (seen.has(names[i])) return `header names column "${names[i]}" twice`;
    seen.add(names[i]);
  }
  if (!settings.generateKey && !seen.has(settings.keyColumn)) return `no key column "${settings.keyColumn}"`;
  if (settings.generateKey && seen.has(settings.keyColumn)) return `generateKey, but the header has a "${settings.keyColumn}" column`;
  if (settings.sortKeyColumn !== undefined && !seen.has(settings.sortKeyColumn)) return `no sort key column "${settings.sortKeyColumn}"`;
  for (const column of settings.columnTypes.keys()) {
    if (!seen.has(column) && column !== settings.keyColumn) return `columnTypes names "${column}", not in the header`;
  }
  return undefined;
}

/** @param {Settings} settings @param {string} name @returns {ColumnType} */
function typeOf(settings, name) {
  return settings.columnTypes.get(name) ?? 'S';
}

/** Empty, or nothing but U+0020 spaces. @param {string | undefined} value */
function blankKey(value) {
  return value === undefined || /^ *$/.test(value);
}

/**
 * @param {string[]} fields @param {number} line @param {string[]} names @param {Settings} settings
 * @returns {{ reason: string } | { item: Item, keyId: string }}
 */
function rowToItem(fields, line, names, settings) {
  if (fields.length !== names.length) return { reason: 'FIELD_COUNT' };
  /** @type {Item} */
  const item = Object.create(null);
  for (let i = 0; i < names.length; i++) {
    const value = fields[i];
    if (value === '') continue;
    const type = typeOf(settings, names[i]);
    if (type === 'S') {
      setAttribute(item, names[i], { S: value });
    } else if (type === 'N') {
      if (!isDynamoNumber(value)) return { reason: 'INVALID_NUMBER' };
      setAttribute(item, names[i], { N: value });
    } else {
      if (/^[tT][rR][uU][eE]$/.test(value)) setAttribute(item, names[i], { BOOL: true });
      else if (/^[fF][aA][lL][sS][eE]$/.test(value)) setAttribute(item, names[i], { BOOL: false });
      else return { reason: 'INVALID_BOOL' };
    }
  }
  if (!settings.generateKey && blankKey(fields[names.indexOf(settings.keyColumn)])) return { reason: 'MISSING_KEY' };
  if (settings.sortKeyColumn !== undefined && blankKey(fields[names.indexOf(settings.sortKeyColumn)])) return { reason: 'MISSING_KEY' };
  if (settings.generateKey) {
    setAttribute(item, settings.keyColumn, { S: uuidv5(`${settings.generatedKeyPrefix}${line}`, GENERATED_KEY_NAMESPACE) });
  }
  if (itemBytes(item) > MAX_ITEM_BYTES) return { reason: 'ITEM_TOO_LARGE' };
  const partition = attribute(item, settings.keyColumn);
  if (partition !== undefined && 'S' in partition && Buffer.byteLength(partition.S, 'utf8') > MAX_PARTITION_KEY_BYTES) return { reason: 'KEY_TOO_LONG' };
  const sort = settings.sortKeyColumn === undefined ? undefined : attribute(item, settings.sortKeyColumn);
  if (sort !== undefined && 'S' in sort && Buffer.byteLength(sort.S, 'utf8') > MAX_SORT_KEY_BYTES) return { reason: 'KEY_TOO_LONG' };
  return { item, keyId: keyIdOf(item, settings) };
}

/** An own property, whatever its name (`__proto__` too). @param {Item} item @param {string} name @param {AttributeValue} value */
function setAttribute(item, name, value) {
  Object.defineProperty(item, name, { value, enumerable: true, writable: true, configurable: true });
}

/** @param {Record<string, any>} item @param {string} name @returns {AttributeValue | undefined} */
function attribute(item, name) {
  return Object.prototype.hasOwnProperty.call(item, name) ? Object.getOwnPropertyDescriptor(item, name)?.value : undefined;
}

/**
 * The primary key of an item (as the oracle builds it, or as DynamoDB returns it) as one string: equal
 * keys give equal strings, numbers compared by value.
 * @param {Record<string, any>} item
 * @param {{ keyColumn?: string, sortKeyColumn?: string }} options
 */
export function keyIdOf(item, options) {
  const keyColumn = options.keyColumn ?? 'id';
  const parts = [keyPart(attribute(item, keyColumn))];
  if (options.sortKeyColumn !== undefined) parts.push(keyPart(attribute(item, options.sortKeyColumn)));
  return JSON.stringify(parts);
}

/** @param {AttributeValue | undefined} value */
function keyPart(value) {
  if (value === undefined) return null;
  if ('N' in value) return `N:${normalizeNumber(value.N)}`;
  if ('S' in value) return `S:${value.S}`;
  return `BOOL:${value.BOOL}`;
}

/**
 * Item size as DynamoDB counts it: each attribute's name in UTF-8 bytes plus its value: a string's
 * UTF-8 bytes, a number's significant digits halved (rounded up) plus one, a boolean one.
 * @param {Item} item
 */
export function itemBytes(item) {
  let bytes = 0;
  for (const name of Object.keys(item)) {
    const value = /** @type {AttributeValue} */ (attribute(item, name));
    bytes += Buffer.byteLength(name, 'utf8');
    if ('S' in value) bytes += Buffer.byteLength(value.S, 'utf8');
    else if ('N' in value) bytes += Math.ceil(parseNumber(value.N).digits.replace(/^0$/, '').length / 2) + 1;
    else bytes += 1;
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------------
// Numbers

const NUMBER = /^(-?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?$/;

/**
 * A number's value as sign, significant digits (no leading or trailing zeros; "0" for zero) and the
 * power of ten of its last digit: value = sign digits x 10^exponent.
 * @param {string} text
 * @returns {{ negative: boolean, digits: string, exponent: bigint }}
 */
function parseNumber(text) {
  const match = NUMBER.exec(text);
  if (match === null) throw new Error(`not a number: ${JSON.stringify(text)}`);
  const [, sign, mantissa, exponentText] = match;
  const dot = mantissa.indexOf('.');
  const whole = dot === -1 ? mantissa : mantissa.slice(0, dot);
  const fraction = dot === -1 ? '' : mantissa.slice(dot + 1);
  let digits = whole + fraction;
  let exponent = BigInt(exponentText ?? '0') - BigInt(fraction.length);
  digits = digits.replace(/^0+/, '');
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent += 1n;
  }
  if (digits === '') return { negative: false, digits: '0', exponent: 0n };
  return { negative: sign === '-', digits, exponent };
}

/**
 * One canonical text for each numeric value: `007`, `7`, `7.0` and `70E-1` all give `7e0`; `-0` and
 * `0.00` give `0`. Throws on text that is not a number.
 * @param {string} text
 */
export function normalizeNumber(text) {
  const { negative, digits, exponent } = parseNumber(text);
  if (digits === '0') return '0';
  return `${negative ? '-' : ''}${digits}e${exponent}`;
}

/**
 * A number DynamoDB stores: the syntax, at most 38 significant digits, and 0 or a magnitude from
 * 1E-130 up to (not including) 1E+126.
 * @param {string} text
 */
export function isDynamoNumber(text) {
  if (!NUMBER.test(text)) return false;
  const { digits, exponent } = parseNumber(text);
  if (digits === '0') return true;
  if (digits.length > 38) return false;
  // The power of ten of the leading digit: the magnitude is in [10^order, 10^(order+1)).
  const order = BigInt(digits.length - 1) + exponent;
  return order >= -130n && order <= 125n;
}

// ---------------------------------------------------------------------------------------------------
// Items

/**
 * Two items are the same: the same attribute names, each with the same type and value (numbers by
 * value: DynamoDB returns `7` for `007`).
 * @param {Record<string, any>} a @param {Record<string, any>} b
 */
export function sameItem(a, b) {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  for (const name of names) {
    const left = attribute(a, name);
    const right = attribute(b, name);
    if (left === undefined || right === undefined || !sameValue(left, right)) return false;
  }
  return true;
}

/** @param {AttributeValue} a @param {AttributeValue} b */
function sameValue(a, b) {
  if ('S' in a) return 'S' in b && a.S === b.S;
  if ('N' in a) return 'N' in b && typeof b.N === 'string' && NUMBER.test(b.N) && normalizeNumber(a.N) === normalizeNumber(b.N);
  if ('BOOL' in a) return 'BOOL' in b && a.BOOL === b.BOOL;
  return false;
}

/** An item as plain JSON-able text, `__proto__` included. @param {Record<string, any>} item */
export function itemText(item) {
  const parts = Object.keys(item)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${JSON.stringify(attribute(item, name))}`);
  return `{${parts.join(',')}}`;
}

/**
 * The item with every map's members in name order, every set's in sorted order and numbers normalized:
 * DynamoDB keeps no order, and may give a number back written otherwise (`2.50` as `2.5`).
 * @param {any} value @returns {any}
 */
export function canonicalItem(value) {
  if (Array.isArray(value)) return value.map(canonicalItem);
  if (value === null || typeof value !== 'object') return value;
  // No prototype: an attribute named __proto__ is kept as a member, not taken for the prototype.
  /** @type {Record<string, any>} */
  const out = Object.create(null);
  for (const name of Object.keys(value).sort()) {
    const member = value[name];
    if (name === 'N' && typeof member === 'string') out[name] = normalizeNumber(member);
    else if (name === 'NS' && Array.isArray(member)) out[name] = member.map(normalizeNumber).sort();
    else out[name] = (name === 'SS' || name === 'BS') && Array.isArray(member) ? [...member].sort() : canonicalItem(member);
  }
  return out;
}

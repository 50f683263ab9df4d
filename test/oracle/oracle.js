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
 *
 * Every other column type (README, "Every type from CSV"): B is standard base64 with its padding
 * (INVALID_BINARY otherwise); padding bits that are not zero ("AR==") are accepted, the value is the
 * decoded bytes and is written as their canonical base64 ("AQ=="). M and L are a JSON cell (not JSON,
 * or an array for M / an object for L: INVALID_JSON), its values by their JSON type as in JSON Lines
 * (jsonToAttribute). SS, NS and BS are cut by setSeparator: an empty member is INVALID_SET; then each
 * member in order: NS a number (INVALID_NUMBER), BS base64 (INVALID_BINARY), and none equal to one
 * before it (INVALID_SET; numbers by value, binaries by their bytes). emptyCell: 'omit' leaves an empty
 * cell out, 'null' makes it NULL (any type), 'empty-string' makes it "" in an S column and leaves it out
 * in others. Key columns are S, N or B; a B key is its bytes (its length too).
 *
 * Keys as DynamoDB has them: two rows are one item exactly when their key attributes are equal: S by
 * the exact string (NUL and other control characters are characters like any other), N by value, B by
 * the decoded bytes. `mode: 'delete'`: only the key columns are read (their cells checked), and a
 * row removes its key's item, if there is one. `initialItems` is what the table holds before.
 */
import { v5 as uuidv5 } from 'uuid';
import { hasLoneSurrogate, JsonNumber, JsonSyntaxError, parseJsonText } from './json-text.js';
import { applyWrite } from './write-oracle.js';
import { filledTtl, nested, nestTrouble, readTtl, ttlValue } from './shape-oracle.js';

export const MAX_RECORD_BYTES = 1024 * 1024;
export const MAX_ITEM_BYTES = 400 * 1024;
export const MAX_PARTITION_KEY_BYTES = 2048;
export const MAX_SORT_KEY_BYTES = 1024;
export const GENERATED_KEY_NAMESPACE = '6f1f4a52-3c0e-4f5e-9d3a-6a2b8f0c1e47';

/** Reasons whose rejects carry the record's fields, which a comparison checks. */
export const REASONS_WITH_FIELDS = new Set(['FIELD_COUNT', 'INVALID_NUMBER', 'INVALID_BOOL', 'INVALID_BINARY', 'INVALID_SET', 'INVALID_TTL', 'INVALID_JSON', 'INVALID_ATTRIBUTE_VALUE', 'KEY_TYPE', 'MISSING_KEY', 'KEY_TOO_LONG', 'ITEM_TOO_LARGE', 'REJECTED_BY_TABLE', 'INVALID_VERSION']);

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** An attribute value in DynamoDB's JSON (binaries as base64). @typedef {Record<string, any>} AttributeValue */
/** @typedef {Record<string, AttributeValue>} Item */
/** @typedef {'S' | 'N' | 'BOOL' | 'B' | 'M' | 'L' | 'SS' | 'NS' | 'BS'} ColumnType */
const COLUMN_TYPES = new Set(['S', 'N', 'BOOL', 'B', 'M', 'L', 'SS', 'NS', 'BS']);

/**
 * @typedef {object} OracleOptions
 * @property {string} [keyColumn]      default 'id'
 * @property {string} [writeMode]      put (default), if-absent, newer or update (write-oracle.js)
 * @property {string} [versionColumn]
 * @property {string} [sortKeyColumn]
 * @property {boolean} [generateKey]   default false
 * @property {Record<string, string> | string} [columnTypes]  `{ age: 'N' }` or 'age:N,active:BOOL'
 * @property {string} [delimiter]      default ','; '\\t' means a tab
 * @property {string} [encoding]       'auto' (default), 'utf-8', 'utf-16le', 'windows-1252', 'latin1'
 * @property {string} [bucket]         for generated keys
 * @property {string} [key]            for generated keys
 * @property {string} [etag]           for generated keys (without quotes)
 * @property {string} [emptyCell]      'omit' (default), 'null', 'empty-string'
 * @property {string} [setSeparator]   default '|'
 * @property {string} [mode]           'put' (default) or 'delete'
 * @property {Item[]} [initialItems]   what the table holds before the import
 * @property {boolean} [fromRejects]   the file is a rejects file: line, reason and message columns first
 * @property {string[] | string} [drop]  columns not written, by their names in the file
 * @property {Record<string, string> | string} [rename]  columns written under other names: `{ old: 'new' }` or 'old:new,...'
 * @property {string} [ttl]            the TTL column, or column:+Nd (shape-oracle.js)
 * @property {boolean} [nest]          dotted names become nested maps (shape-oracle.js)
 * @property {number} [importTime]     the import's time (epoch ms), which a filled TTL column counts from
 */

/**
 * @typedef {object} Reject
 * @property {number} line
 * @property {string} reason
 * @property {string[]} [fields]   for the reasons in REASONS_WITH_FIELDS
 */

/**
 * @typedef {object} Expected
 * @property {{ code: string, message: string, alternatives?: string[] }} [error]  a job error: nothing is imported (alternatives: other codes as right, where two rules meet)
 * @property {number} rowsRead
 * @property {Reject[]} rejects          in file order
 * @property {Map<string, Item>} items   primary key id (see keyIdOf) -> the final item
 * @property {Map<string, number>} itemLines  primary key id -> the line of the row that made the final item
 * @property {number} [skipped]          rows a conditional write mode's condition kept out (write-oracle.js)
 * @property {string[]} [header]         the header's names, trimmed
 * @property {{ puts: number, deletes: number, keys: number, lastPuts: number, lastDeletes: number }} [applied]  rows applied as puts (written) and deletes, the keys they name,
 *   and those keys whose last row is a put or a delete (a key's last row is never collapsed: the summary's written and deleted are at least these)
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
  if (settings.optionError !== undefined) return failed('CONFIG_INVALID', settings.optionError);

  const records = readRecords(source, settings.delimiter);

  /** @type {string[] | undefined} */
  let header;
  /** @type {Array<string | undefined>} */
  let names = [];
  let rowsRead = 0;
  let skipped = 0;
  /** @type {Reject[]} */
  const rejects = [];
  const { items, itemLines } = initialTable(options.initialItems, settings);
  /** Rows applied as puts and as deletes, and their keys (the summary's written, deleted and collapsed account for them). */
  const applied = { puts: 0, deletes: 0, keys: /** @type {Map<string, 'put' | 'delete'>} */ (new Map()) };

  for (const record of records) {
    if (header === undefined) {
      if (record.fields === undefined) return failed('HEADER', `line ${record.line}: the header record is ${record.reason}`);
      header = record.fields.map(trimSpaces);
      // A rejects file (fromRejects): the importer's three columns, then the source's.
      if (options.fromRejects === true) {
        if (header.length < 4 || header[0] !== 'line' || header[1] !== 'reason' || header[2] !== 'message') return failed('HEADER', 'not a rejects file');
        header = header.slice(3);
      }
      // A dropped column has no name (its cells are counted, not written); the others their new ones.
      names = header.map((name) => (settings.drop.has(name) ? undefined : settings.rename.get(name) ?? name));
      const problem = headerProblem(/** @type {string[]} */ (names.filter((name) => name !== undefined)), settings);
      const named = optionColumnProblem(header, /** @type {string[]} */ (names.filter((name) => name !== undefined)), settings, options);
      // A header the job refuses (HEADER) and an option naming a column it lacks (CONFIG_INVALID) in one
      // case: either is right.
      if (problem !== undefined) return { ...failed('HEADER', problem), ...(named === undefined ? {} : { error: { code: 'HEADER', message: problem, alternatives: ['CONFIG_INVALID'] } }) };
      if (named !== undefined) return failed('CONFIG_INVALID', named);
      continue;
    }
    rowsRead++;
    if (record.fields === undefined) {
      rejects.push({ line: record.line, reason: record.reason });
      continue;
    }
    const fields = options.fromRejects === true ? record.fields.slice(3) : record.fields;
    const row = rowToItem(fields, record.line, names, settings);
    if ('reason' in row) {
      rejects.push({ line: record.line, reason: row.reason, fields });
      continue;
    }
    if (settings.mode === 'delete') {
      applyRow(items, itemLines, row.keyId, undefined, record.line);
      applied.deletes++;
      applied.keys.set(row.keyId, 'delete');
      continue;
    }
    const outcome = applyWrite(items, itemLines, row.keyId, row.item, record.line, options);
    if (outcome === 'skipped') skipped++;
    else if (outcome === 'INVALID_VERSION' || outcome === 'REJECTED_BY_TABLE') rejects.push({ line: record.line, reason: outcome, fields });
    else applied.puts++;
    if (outcome === 'written') applied.keys.set(row.keyId, 'put');
  }
  return { rowsRead, rejects, items, itemLines, skipped, applied: appliedCounts(applied), ...(header === undefined ? {} : { header }) };
}

/**
 * The table before the import: its items by key id, each from line 0.
 * @param {Item[] | undefined} initialItems @param {{ keyColumn?: string, sortKeyColumn?: string }} keys
 */
export function initialTable(initialItems, keys) {
  /** @type {Map<string, Item>} */
  const items = new Map();
  /** @type {Map<string, number>} */
  const itemLines = new Map();
  for (const item of initialItems ?? []) {
    const id = keyIdOf(item, keys);
    items.set(id, item);
    itemLines.set(id, 0);
  }
  return { items, itemLines };
}

/**
 * One row applied to the table, as a PutItem (item) or a DeleteItem (undefined) of its key would be.
 * @param {Map<string, Item>} items @param {Map<string, number>} itemLines @param {string} keyId
 * @param {Item | undefined} item @param {number} line
 */
export function applyRow(items, itemLines, keyId, item, line) {
  if (item === undefined) {
    items.delete(keyId);
    itemLines.delete(keyId);
    return;
  }
  items.set(keyId, item);
  itemLines.set(keyId, line);
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
 * @property {'omit' | 'null' | 'empty-string'} emptyCell
 * @property {string} setSeparator
 * @property {'put' | 'delete'} mode
 * @property {Set<string>} drop
 * @property {Map<string, string>} rename
 * @property {{ column: string, after?: number } | undefined} ttl
 * @property {boolean} nest
 * @property {number} importTime
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
    if (!COLUMN_TYPES.has(upper)) optionError = `column "${name}" has type ${type}`;
    else columnTypes.set(name, /** @type {ColumnType} */ (upper));
  }
  if (sortKeyColumn === keyColumn) optionError = 'sortKeyColumn equals keyColumn';
  const keyType = (/** @type {string | undefined} */ name) => (name === undefined ? 'S' : columnTypes.get(name) ?? 'S');
  if (!['S', 'N', 'B'].includes(keyType(keyColumn)) || !['S', 'N', 'B'].includes(keyType(sortKeyColumn))) optionError = 'a key column typed other than S, N or B';
  if (generateKey && columnTypes.get(keyColumn) === 'N') optionError = 'generateKey with a key typed N';
  // Columns dropped by their names in the file, then renamed; keys and types name them as written.
  const drop = new Set(typeof options.drop === 'string' ? options.drop.split(',').map((/** @type {string} */ name) => name.trim()).filter((/** @type {string} */ name) => name !== '') : (options.drop ?? []));
  /** @type {Map<string, string>} */
  const rename = new Map();
  if (typeof options.rename === 'string') {
    for (const part of options.rename.split(',')) if (part.trim() !== '') rename.set(part.slice(0, part.indexOf(':')).trim(), part.slice(part.indexOf(':') + 1).trim());
  } else {
    for (const [from, to] of Object.entries(options.rename ?? {})) rename.set(from, to);
  }
  const keyNames = [...(generateKey ? [] : [keyColumn]), ...(sortKeyColumn === undefined ? [] : [sortKeyColumn])];
  const targets = [...rename.values()];
  if (new Set(targets).size !== targets.length) optionError = 'two columns renamed onto one name';
  optionError = optionsContradiction(options) ?? optionError;
  for (const name of drop) {
    if (rename.has(name)) optionError = `"${name}" both dropped and renamed`;
    if (keyNames.includes(name) && !targets.includes(name)) optionError = `drops the key column "${name}"`;
  }
  for (const [from, to] of rename) if (keyNames.includes(from) && from !== to && !targets.includes(from)) optionError = `renames the key column "${from}" away`;
  // The TTL column and nest, against the keys and types (shape-oracle.js).
  const { ttl, error: ttlError } = readTtl(options.ttl);
  if (ttlError !== undefined) optionError = ttlError;
  if (ttl !== undefined && (ttl.column === keyColumn || ttl.column === sortKeyColumn)) optionError = 'the TTL column is a key';
  if (ttl !== undefined && (columnTypes.get(ttl.column) ?? 'N') !== 'N') optionError = 'the TTL column typed other than N';
  if (ttl !== undefined && options.mode === 'delete') optionError = 'ttl in a delete';
  const nest = options.nest === true;
  if (nest && [keyColumn, sortKeyColumn, ttl?.column].some((name) => name?.includes('.'))) optionError = 'a key or the TTL column dotted under nest';
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
    emptyCell: /** @type {Settings['emptyCell']} */ (options.emptyCell ?? 'omit'),
    setSeparator: options.setSeparator ?? '|',
    mode: options.mode === 'delete' ? 'delete' : 'put',
    drop,
    rename,
    ttl,
    nest,
    importTime: options.importTime ?? NaN,
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

/** A UTF-8 file's units as the record reader walks them (no BOM handling). @param {Buffer} bytes */
export const utf8SourceOf = (bytes) => utf8Source(bytes);

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
  /** @type {number[]} */
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
  const filled = settings.ttl?.after === undefined ? undefined : settings.ttl.column;
  const added = [...(settings.generateKey ? [settings.keyColumn] : []), ...(filled === undefined ? [] : [filled])];
  if (settings.nest && nestTrouble([...names, ...added]) !== undefined) return `names that cannot be nested (${nestTrouble([...names, ...added])})`;
  return undefined;
}

/**
 * An option that names a CSV column the header lacks (issue 46): refused before any row is read, as a
 * ConfigError (CONFIG_INVALID), every such option the same way. Names are compared exactly (`ssn` is not
 * `SSN`). drop and rename name columns as the file writes them; keyColumn, sortKeyColumn, columnTypes,
 * ttl and versionColumn as they are after the drops and renames (so types naming a dropped column is a
 * contradiction, refused too).
 * @param {string[]} header  as written, trimmed @param {string[]} names  after drop and rename
 * @param {Settings} settings @param {OracleOptions} options
 * @returns {string | undefined}
 */
export function optionColumnProblem(header, names, settings, options) {
  const inFile = new Set(header);
  const seen = new Set(names);
  for (const name of settings.drop) if (!inFile.has(name)) return `drop names "${name}", not in the header`;
  for (const name of settings.rename.keys()) if (!inFile.has(name)) return `rename names "${name}", not in the header`;
  if (!settings.generateKey && !seen.has(settings.keyColumn)) return `no key column "${settings.keyColumn}"`;
  // The options' own mistakes against the header, as the key column's: generateKey over a key column the
  // file has, a TTL column to fill that the file has.
  if (settings.generateKey && seen.has(settings.keyColumn)) return `generateKey, but the header has a "${settings.keyColumn}" column`;
  if (settings.sortKeyColumn !== undefined && !seen.has(settings.sortKeyColumn)) return `no sort key column "${settings.sortKeyColumn}"`;
  const filled = settings.ttl?.after === undefined ? undefined : settings.ttl.column;
  for (const column of settings.columnTypes.keys()) {
    if (!seen.has(column) && !(settings.generateKey && column === settings.keyColumn) && column !== filled) return `columnTypes names "${column}", not in the header`;
  }
  if (settings.ttl !== undefined && filled === undefined && !seen.has(settings.ttl.column)) return 'no TTL column';
  if (filled !== undefined && seen.has(filled)) return 'the header has the TTL column the import fills';
  if (options.versionColumn !== undefined && !seen.has(options.versionColumn)) return `versionColumn names "${options.versionColumn}", not in the header`;
  return undefined;
}

/**
 * Options that contradict each other whatever the file (issue 46): a column renamed twice
 * (`a:p,a:q`), a column both typed and dropped. Every format refuses them, CONFIG_INVALID.
 * @param {{ rename?: Record<string, string> | string, drop?: string[] | string, columnTypes?: Record<string, string> | string }} options
 * @returns {string | undefined}
 */
export function optionsContradiction(options) {
  if (typeof options.rename === 'string') {
    const from = options.rename.split(',').filter((part) => part.trim() !== '').map((part) => part.slice(0, part.indexOf(':')).trim());
    const twice = from.find((name, i) => from.indexOf(name) !== i);
    if (twice !== undefined) return `rename names "${twice}" twice`;
  }
  const drop = typeof options.drop === 'string' ? options.drop.split(',').map((name) => name.trim()) : (options.drop ?? []);
  const typed = typeof options.columnTypes === 'string' ? options.columnTypes.split(',').map((part) => part.slice(0, part.lastIndexOf(':')).trim()) : Object.keys(options.columnTypes ?? {});
  const both = typed.find((name) => drop.includes(name));
  if (both !== undefined) return `"${both}" is both typed and dropped`;
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
 * @param {string[]} fields @param {number} line @param {Array<string | undefined>} names  a dropped column's undefined @param {Settings} settings
 * @returns {{ reason: string } | { item: Item, keyId: string }}
 */
function rowToItem(fields, line, names, settings) {
  if (fields.length !== names.length) return { reason: 'FIELD_COUNT' };
  /** @type {Item} */
  let item = Object.create(null);
  const isKey = (/** @type {string} */ name) => name === settings.keyColumn || name === settings.sortKeyColumn;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (name === undefined) continue;
    // A delete reads the key columns only.
    if (settings.mode === 'delete' && !isKey(name)) continue;
    const value = fields[i];
    const isTtl = settings.ttl !== undefined && name === settings.ttl.column;
    // The TTL column is N, from numbers or dates.
    const type = isTtl ? 'N' : typeOf(settings, name);
    if (value === '') {
      if (settings.emptyCell === 'null') setAttribute(item, name, { NULL: true });
      else if (settings.emptyCell === 'empty-string' && type === 'S') setAttribute(item, name, { S: '' });
      continue;
    }
    if (isTtl) {
      const seconds = ttlValue(value);
      if (seconds === undefined) return { reason: 'INVALID_TTL' };
      setAttribute(item, name, { N: seconds });
      continue;
    }
    try {
      setAttribute(item, name, cellToAttribute(type, value, settings.setSeparator));
    } catch (error) {
      if (error instanceof Refusal) return { reason: error.reason };
      throw error;
    }
  }
  if (!settings.generateKey && blankKey(fields[names.indexOf(settings.keyColumn)])) return { reason: 'MISSING_KEY' };
  if (settings.sortKeyColumn !== undefined && blankKey(fields[names.indexOf(settings.sortKeyColumn)])) return { reason: 'MISSING_KEY' };
  if (settings.generateKey) {
    setAttribute(item, settings.keyColumn, { S: uuidv5(`${settings.generatedKeyPrefix}${line}`, GENERATED_KEY_NAMESPACE) });
  }
  if (settings.ttl?.after !== undefined && settings.mode !== 'delete') setAttribute(item, settings.ttl.column, { N: filledTtl(settings.importTime, settings.ttl.after) });
  if (settings.nest && settings.mode !== 'delete') item = nested(item);
  if (itemBytes(item) > MAX_ITEM_BYTES) return { reason: 'ITEM_TOO_LARGE' };
  if (keyBytes(attribute(item, settings.keyColumn)) > MAX_PARTITION_KEY_BYTES) return { reason: 'KEY_TOO_LONG' };
  if (settings.sortKeyColumn !== undefined && keyBytes(attribute(item, settings.sortKeyColumn)) > MAX_SORT_KEY_BYTES) return { reason: 'KEY_TOO_LONG' };
  return { item, keyId: keyIdOf(item, settings) };
}

/** A key attribute's length as DynamoDB's key limits count it: a string's UTF-8 bytes, a binary's bytes. @param {AttributeValue | undefined} value */
export function keyBytes(value) {
  if (value === undefined) return 0;
  if ('S' in value) return Buffer.byteLength(value.S, 'utf8');
  if ('B' in value) return base64ToBytes(value.B)?.length ?? 0;
  return 0;
}

// ---------------------------------------------------------------------------------------------------
// Values of every type

/** Why a value cannot be written: the row's reject reason. */
export class Refusal extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(reason);
    this.reason = reason;
  }
}

/** A function declaration, so that a call to it ends the code path for the type checker. @param {string} reason @returns {never} */
function refuse(reason) {
  throw new Refusal(reason);
}

// Standard base64 with its padding; the last character before the padding may carry bits that are not zero.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The bytes a base64 text stands for, read six bits a character (padding bits dropped), or undefined
 * if it is not base64 as DynamoDB's JSON carries binaries.
 * @param {string} text
 */
export function base64ToBytes(text) {
  if (!BASE64.test(text)) return undefined;
  const digits = text.replace(/=+$/, '');
  const bytes = [];
  let bits = 0;
  let held = 0;
  for (const char of digits) {
    held = (held << 6) | BASE64_DIGITS.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((held >> bits) & 0xff);
      held &= (1 << bits) - 1;
    }
  }
  return Buffer.from(bytes);
}

/** The one base64 text DynamoDB gives back for a binary, from any base64 text of it. @param {string} text */
export function canonicalBase64(text) {
  const bytes = base64ToBytes(text);
  if (bytes === undefined) throw new Error(`not base64: ${JSON.stringify(text)}`);
  return bytes.toString('base64');
}

/**
 * A CSV cell (not empty) as a value of its column's type.
 * @param {ColumnType} type @param {string} text @param {string} separator
 * @returns {AttributeValue}
 */
function cellToAttribute(type, text, separator) {
  switch (type) {
    case 'S':
      return { S: text };
    case 'N':
      return isDynamoNumber(text) ? { N: text } : refuse('INVALID_NUMBER');
    case 'BOOL':
      if (/^true$/i.test(text)) return { BOOL: true };
      if (/^false$/i.test(text)) return { BOOL: false };
      return refuse('INVALID_BOOL');
    case 'B':
      return base64ToBytes(text) === undefined ? refuse('INVALID_BINARY') : { B: canonicalBase64(text) };
    case 'M':
    case 'L':
      return jsonCell(type, text);
    default: {
      const members = text.split(separator);
      if (members.includes('')) refuse('INVALID_SET');
      return setOf(type, members);
    }
  }
}

/** @param {'M' | 'L'} type @param {string} text */
function jsonCell(type, text) {
  let tree;
  try {
    tree = parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) refuse('INVALID_JSON');
    throw error;
  }
  if (type === 'M' ? !(tree instanceof Map) : !Array.isArray(tree)) refuse('INVALID_JSON');
  return jsonToAttribute(tree);
}

/**
 * A JSON value as the attribute value of its JSON type: a string S (half a surrogate pair: INVALID_JSON,
 * it has no UTF-8 form), a number N as written (INVALID_NUMBER if DynamoDB would not take it), true and
 * false BOOL, null NULL, an array L, an object M (an empty name: INVALID_ATTRIBUTE_VALUE).
 * @param {import('./json-text.js').JsonValue} value
 * @returns {AttributeValue}
 */
export function jsonToAttribute(value) {
  if (value === null) return { NULL: true };
  if (typeof value === 'boolean') return { BOOL: value };
  if (typeof value === 'string') return hasLoneSurrogate(value) ? refuse('INVALID_JSON') : { S: value };
  if (value instanceof JsonNumber) return isDynamoNumber(value.text) ? { N: value.text } : refuse('INVALID_NUMBER');
  if (Array.isArray(value)) return { L: value.map(jsonToAttribute) };
  /** @type {Record<string, AttributeValue>} */
  const members = Object.create(null);
  for (const [name, member] of value) {
    checkName(name);
    setAttribute(members, name, jsonToAttribute(member));
  }
  return { M: members };
}

/** An attribute's or a map member's name: not empty, and with a UTF-8 form. @param {string} name */
export function checkName(name) {
  if (name === '') refuse('INVALID_ATTRIBUTE_VALUE');
  if (hasLoneSurrogate(name)) refuse('INVALID_JSON');
}

/**
 * A set's members, each checked in order: a string (INVALID_SET), a number (NS), base64 (BS, written
 * canonical), none equal to one before it (numbers by value, binaries by their bytes). Not empty.
 * @param {string} type  SS, NS or BS @param {unknown[]} members
 * @returns {AttributeValue}
 */
export function setOf(type, members) {
  if (members.length === 0) refuse('INVALID_SET');
  const seen = new Set();
  const written = [];
  for (const member of members) {
    if (typeof member !== 'string') return refuse('INVALID_SET');
    let id = member;
    if (type === 'NS') {
      if (!isDynamoNumber(member)) refuse('INVALID_NUMBER');
      id = normalizeNumber(member);
    } else if (type === 'BS') {
      const bytes = base64ToBytes(member);
      if (bytes === undefined) refuse('INVALID_BINARY');
      id = bytes.toString('hex');
    } else if (hasLoneSurrogate(member)) refuse('INVALID_JSON');
    if (seen.has(id)) refuse('INVALID_SET');
    seen.add(id);
    written.push(type === 'BS' ? canonicalBase64(member) : member);
  }
  return { [type]: written };
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

/**
 * A key attribute as DynamoDB compares it: S by the exact string, N by value, B by its bytes.
 * @param {AttributeValue | undefined} value
 */
function keyPart(value) {
  if (value === undefined) return null;
  if ('N' in value) return `N:${normalizeNumber(value.N)}`;
  if ('S' in value) return `S:${value.S}`;
  if ('B' in value) return `B:${base64ToBytes(value.B)?.toString('hex') ?? `not base64 ${value.B}`}`;
  return `${Object.keys(value)[0]}:${JSON.stringify(Object.values(value)[0])}`;
}

/**
 * Item size as DynamoDB counts it: each attribute's name in UTF-8 bytes plus its value (valueBytes).
 * @param {Item} item
 */
export function itemBytes(item) {
  let bytes = 0;
  for (const name of Object.keys(item)) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(/** @type {AttributeValue} */ (attribute(item, name)));
  return bytes;
}

/**
 * A value's bytes: a string's UTF-8 bytes, a number's significant digits halved (rounded up) plus one, a
 * binary's bytes, BOOL and NULL one, a set the sum of its members, a map or list 3 plus 1 a member plus
 * the members (and a map's names).
 * @param {AttributeValue} value
 * @returns {number}
 */
function valueBytes(value) {
  const numberBytes = (/** @type {string} */ text) => Math.ceil(parseNumber(text).digits.replace(/^0$/, '').length / 2) + 1;
  const binaryBytes = (/** @type {string} */ text) => base64ToBytes(text)?.length ?? 0;
  if ('S' in value) return Buffer.byteLength(value.S, 'utf8');
  if ('N' in value) return numberBytes(value.N);
  if ('B' in value) return binaryBytes(value.B);
  if ('BOOL' in value || 'NULL' in value) return 1;
  if ('SS' in value) return value.SS.reduce((/** @type {number} */ sum, /** @type {string} */ member) => sum + Buffer.byteLength(member, 'utf8'), 0);
  if ('NS' in value) return value.NS.reduce((/** @type {number} */ sum, /** @type {string} */ member) => sum + numberBytes(member), 0);
  if ('BS' in value) return value.BS.reduce((/** @type {number} */ sum, /** @type {string} */ member) => sum + binaryBytes(member), 0);
  if ('L' in value) return value.L.reduce((/** @type {number} */ sum, /** @type {AttributeValue} */ member) => sum + 1 + valueBytes(member), 3);
  let bytes = 3;
  for (const name of Object.keys(value.M)) bytes += 1 + Buffer.byteLength(name, 'utf8') + valueBytes(/** @type {AttributeValue} */ (attribute(value.M, name)));
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
 * Two items are the same: the same attribute names, each with the same type and value, deeply (numbers
 * by value: DynamoDB returns `7` for `007`; binaries by their bytes; sets in any order).
 * @param {Record<string, any>} a @param {Record<string, any>} b
 */
export function sameItem(a, b) {
  try {
    return JSON.stringify(canonicalItem(a)) === JSON.stringify(canonicalItem(b));
  } catch {
    // A number or binary that is not one: not the same as anything.
    return false;
  }
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
    else if (name === 'B' && typeof member === 'string') out[name] = canonicalBase64(member);
    else if (name === 'BS' && Array.isArray(member)) out[name] = member.map(canonicalBase64).sort();
    else out[name] = (name === 'SS' || name === 'BS') && Array.isArray(member) ? [...member].sort() : canonicalItem(member);
  }
  return out;
}

/**
 * The counts of the rows applied: puts, deletes, the keys they name, and those keys whose last row is a
 * put or a delete.
 * @param {{ puts: number, deletes: number, keys: Map<string, 'put' | 'delete'> }} applied
 */
export function appliedCounts({ puts, deletes, keys }) {
  let lastPuts = 0;
  for (const op of keys.values()) if (op === 'put') lastPuts++;
  return { puts, deletes, keys: keys.size, lastPuts, lastDeletes: keys.size - lastPuts };
}

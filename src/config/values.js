/**
 * The parsers of option values: each takes the raw value (a string from the environment or the command
 * line, anything from a payload) and the name to blame, and returns the typed value or throws a
 * ConfigError naming the option, the value and what is allowed.
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';

/** How a file's records are written: CSV, JSON Lines, or DynamoDB JSON (an export's `{"Item": ...}` lines). @typedef {'csv' | 'jsonl' | 'dynamodb-json'} Format */

/**
 * A column's DynamoDB type: scalars as written (B as base64), M and L from a JSON cell, SS, NS and BS
 * from a cell whose members are cut by setSeparator.
 * @typedef {'S' | 'N' | 'BOOL' | 'B' | 'M' | 'L' | 'SS' | 'NS' | 'BS'} ColumnType
 */

/** The encoding option's values. @typedef {'auto' | Encoding} EncodingOption */
/** An encoding once decided. @typedef {'utf-8' | 'utf-16le' | 'windows-1252' | 'latin1'} Encoding */

/** Option spellings of an encoding and what they mean. */
export const ENCODING_NAMES = new Map([
  ['auto', 'auto'],
  ['utf-8', 'utf-8'],
  ['utf8', 'utf-8'],
  ['utf-16le', 'utf-16le'],
  ['utf16le', 'utf-16le'],
  ['windows-1252', 'windows-1252'],
  ['cp1252', 'windows-1252'],
  ['latin1', 'latin1'],
  ['iso-8859-1', 'latin1'],
]);

/** Decided encodings, as a checkpoint or a shard carries them. */
export const ENCODINGS = new Set(['utf-8', 'utf-16le', 'windows-1252', 'latin1']);

/** Decided formats, as a checkpoint or a shard carries them. */
export const FORMATS = new Set(['csv', 'jsonl', 'dynamodb-json']);

/** @param {string | undefined} value */
export function emptyToUndefined(value) {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** @param {unknown} raw @param {string} name */
export function requiredString(raw, name) {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new ConfigError(name, raw, 'a non-empty string is required');
  }
  return raw;
}

/** @param {unknown} raw @param {string} name */
export function optionalString(raw, name) {
  return raw === undefined ? undefined : requiredString(raw, name);
}

/** An absolute path, as the command line resolves it (a worker process may run elsewhere). @param {unknown} raw @param {string} name */
export function localPath(raw, name) {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !path.isAbsolute(raw)) throw new ConfigError(name, raw, 'an absolute path is required (the command line resolves a relative one)');
  return raw;
}

/** @param {unknown} raw @param {string} name */
export function tableName(raw, name) {
  if (raw === undefined) {
    throw new ConfigError(name, raw, 'name the target table in the payload ("table") or in the TABLE_NAME environment variable');
  }
  if (typeof raw !== 'string' || !/^[a-zA-Z0-9_.-]{3,255}$/.test(raw)) {
    throw new ConfigError(name, raw, 'a DynamoDB table name is 3-255 characters of a-z, A-Z, 0-9, "_", "-" and "."');
  }
  return raw;
}

/** @param {unknown} raw @param {string} name */
export function keyPrefix(raw, name) {
  if (typeof raw !== 'string' || raw === '' || raw.startsWith('/') || !raw.endsWith('/')) {
    throw new ConfigError(name, raw, `use a key prefix that ends with "/" and does not start with one, such as "${name.startsWith('status') ? '_imports/' : 'rejects/'}"`);
  }
  return raw;
}

/** An S3 key prefix: any text, "" for the whole bucket, but not starting with "/" (S3 keys rarely do). @param {unknown} raw @param {string} name */
export function keyPrefixOrEmpty(raw, name) {
  if (typeof raw !== 'string' || raw.startsWith('/')) throw new ConfigError(name, raw, 'use the key prefix of the objects to import, without a leading "/", e.g. "imports/2026-11/" ("" for the whole bucket)');
  return raw;
}

/** Key endings, as a list or separated by commas: ".csv,.csv.gz". @param {unknown} raw @param {string} name */
export function suffixList(raw, name) {
  const list = typeof raw === 'string' ? raw.split(',').map((part) => part.trim()) : raw;
  if (!Array.isArray(list) || list.some((part) => typeof part !== 'string' || part === '')) throw new ConfigError(name, raw, 'list key endings separated by commas, e.g. ".csv,.csv.gz"');
  return list;
}

/**
 * Column renames, "old:new,..." or {"old": "new"}: no name empty, no two onto one name, no column twice.
 * @param {unknown} raw @param {string} name @returns {Record<string, string>}
 */
export function renames(raw, name) {
  /** @type {Array<[string, unknown]>} */
  let pairs;
  if (typeof raw === 'string') {
    pairs = raw.split(',').filter((part) => part.trim() !== '').map((part) => {
      const at = part.indexOf(':');
      if (at <= 0) throw new ConfigError(name, raw, `"${part}" is not old:new; write e.g. "user_id:id,mail:email"`);
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    });
  } else if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    pairs = Object.entries(raw);
  } else {
    throw new ConfigError(name, raw, 'use an object like {"user_id":"id"} or a string like "user_id:id,mail:email"');
  }
  // No prototype: a column named constructor or __proto__ must not find Object's members.
  /** @type {Record<string, string>} */
  const map = Object.create(null);
  const targets = new Set();
  for (const [from, to] of pairs) {
    if (from === '' || typeof to !== 'string' || to === '') throw new ConfigError(name, raw, 'each rename names a column and its new name, neither empty: "old:new"');
    if (targets.has(to)) throw new ConfigError(name, raw, `two columns are renamed "${to}": an item has one attribute of a name`);
    if (from in map) throw new ConfigError(name, raw, `"${from}" is renamed twice ("${map[from]}" and "${to}"): a column is written under one name; keep one of them`);
    targets.add(to);
    map[from] = to;
  }
  return map;
}

/**
 * The TTL column (ttl): a column read as times, or with `:+N<d|h|m|s>` filled with the import's time
 * plus that long, in epoch seconds. The duration is at least a second (a zero one expires every item as
 * it is written) and at most 100 years. Also its own parsed form, as a checkpoint carries it.
 * @typedef {{ column: string, after?: number }} TtlOption  after: seconds after the import's time
 */

/** Seconds in each unit of a ttl duration. */
export const TTL_UNITS = /** @type {const} */ ({ d: 86_400, h: 3_600, m: 60, s: 1 });

/** The longest ttl duration: 100 years of 365 days (an expiry past it is more likely a typo). */
export const MAX_TTL_AFTER = 36_500 * 86_400;

/** @param {unknown} raw @param {string} name @returns {TtlOption} */
export function ttlOption(raw, name) {
  const fix = 'name the column DynamoDB\'s TTL reads, e.g. "expires", or "expires:+30d" to write the import\'s time plus 30 days (+Nd, +Nh, +Nm or +Ns)';
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const { column, after, ...rest } = /** @type {Record<string, unknown>} */ (raw);
    if (typeof column !== 'string' || column === '' || Object.keys(rest).length > 0 || (after !== undefined && !(Number.isInteger(after) && /** @type {number} */ (after) >= 1 && /** @type {number} */ (after) <= MAX_TTL_AFTER))) throw new ConfigError(name, raw, fix);
    return after === undefined ? { column } : { column, after: /** @type {number} */ (after) };
  }
  if (typeof raw !== 'string' || raw.trim() === '') throw new ConfigError(name, raw, fix);
  const text = raw.trim();
  // A colon followed by "+" starts the duration; any other colon is part of the column's name.
  const at = text.lastIndexOf(':+');
  if (at === -1) return { column: text };
  const column = text.slice(0, at).trim();
  const duration = /^\+(\d{1,12})([dhms])$/.exec(text.slice(at + 1));
  if (column === '' || duration === null) throw new ConfigError(name, raw, fix);
  const after = Number(duration[1]) * TTL_UNITS[/** @type {keyof typeof TTL_UNITS} */ (duration[2])];
  if (after === 0) throw new ConfigError(name, raw, 'a duration of 0 expires every item as it is written: give at least +1s');
  if (after > MAX_TTL_AFTER) throw new ConfigError(name, raw, 'a duration of at most 36500d (100 years)');
  return { column, after };
}

/** The ttl option as a person writes it: the duration in its largest whole unit (TTL_UNITS, largest first). @param {TtlOption} ttl */
export function ttlSpelled({ column, after }) {
  if (after === undefined) return column;
  const [unit, seconds] = Object.entries(TTL_UNITS).find(([, each]) => after % each === 0) ?? ['s', 1];
  return `${column}:+${after / seconds}${unit}`;
}

/** Column names, as a list or separated by commas: "notes,internal_id". @param {unknown} raw @param {string} name @returns {string[]} */
export function columnList(raw, name) {
  const list = typeof raw === 'string' ? raw.split(',').map((part) => part.trim()).filter((part) => part !== '') : raw;
  if (!Array.isArray(list) || list.some((part) => typeof part !== 'string' || part === '')) throw new ConfigError(name, raw, 'list column names separated by commas, e.g. "notes,internal_id"');
  return [...new Set(list)];
}

/** @param {unknown} raw @param {string} name */
export function tableList(raw, name) {
  const list = typeof raw === 'string' ? raw.split(',').map((t) => t.trim()).filter((t) => t !== '') : raw;
  if (!Array.isArray(list)) throw new ConfigError(name, raw, 'list table names separated by commas');
  return list.map((table) => tableName(table, name));
}


/**
 * @template T
 * @param {(raw: unknown, name: string) => T} parse
 * @returns {(raw: unknown, name: string) => T | undefined}
 */
export function optional(parse) {
  return (raw, name) => (raw === undefined ? undefined : parse(raw, name));
}

/** @param {unknown} raw @param {string} name */
export function boolean(raw, name) {
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new ConfigError(name, raw, 'use true or false');
}

/**
 * @template {string} T
 * @param {readonly T[]} allowed
 * @returns {(raw: unknown, name: string) => T}
 */
export function oneOf(allowed) {
  return (raw, name) => {
    if (typeof raw !== 'string' || !allowed.includes(/** @type {T} */ (raw))) throw new ConfigError(name, raw, `use one of ${allowed.map((value) => `"${value}"`).join(', ')}`);
    return /** @type {T} */ (raw);
  };
}

/** @param {unknown} raw @param {string} name */
export function setSeparator(raw, name) {
  if (typeof raw !== 'string' || raw.length !== 1 || /[\r\n"]/.test(raw)) throw new ConfigError(name, raw, 'use one character other than a quote or a line break, such as "|" or ";"');
  return raw;
}

/** @param {unknown} raw @param {string} name */
export function delimiter(raw, name) {
  const value = raw === '\\t' ? '\t' : raw;
  // ASCII only: the record guard finds delimiters byte by byte (by code unit in UTF-16).
  if (typeof value !== 'string' || value.length !== 1 || value === '"' || value === '\n' || value === '\r' || value.charCodeAt(0) > 0x7f || value === '\0') {
    throw new ConfigError(name, raw, 'use one ASCII character other than a quote or a line break, such as "," ";" "|" or "\\t"');
  }
  return value;
}

/** @param {unknown} raw @param {string} name */
export function encoding(raw, name) {
  const found = typeof raw === 'string' ? ENCODING_NAMES.get(raw.trim().toLowerCase()) : undefined;
  if (found === undefined) {
    throw new ConfigError(name, raw, 'use "auto" (the default: UTF-8, or UTF-16LE when the file starts with its byte order mark), "utf-8", "utf-16le", "windows-1252" (files saved by Excel on Windows) or "latin1"');
  }
  return /** @type {EncodingOption} */ (found);
}

/**
 * @param {number} min
 * @param {number} max
 * @returns {(raw: unknown, name: string) => number}
 */
export function integerIn(min, max) {
  return (raw, name) => {
    const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(name, raw, `use a whole number from ${min} to ${max}`);
    }
    return value;
  };
}

/** A price in USD: a number above 0 (a string from the environment or the command line). @param {unknown} raw @param {string} name */
export function price(raw, name) {
  const value = typeof raw === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1_000) {
    throw new ConfigError(name, raw, "use the price in USD per million write request units of the table's region, such as 0.625 (leave it out for us-east-1's)");
  }
  return value;
}

/** @param {unknown} raw @param {string} name */
export function optionalUrl(raw, name) {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) {
    throw new ConfigError(name, raw, 'use an http:// or https:// URL, such as http://127.0.0.1:8000');
  }
  if (new URL(raw).protocol === 'http:' && !isLoopback(new URL(raw).hostname)) {
    throw new ConfigError(name, raw, 'plain http:// sends the rows and a signed request (with any session token) in clear text: use https://, or http:// to a server on this machine (127.0.0.1, localhost, [::1])');
  }
  return raw;
}

/** Whether a URL's host is this machine: the loopback range, localhost, [::1]. @param {string} hostname */
export function isLoopback(hostname) {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export const COLUMN_TYPES = new Set(['S', 'N', 'BOOL', 'B', 'M', 'L', 'SS', 'NS', 'BS']);
export const SET_TYPES = new Set(['SS', 'NS', 'BS']);

/**
 * Accepts `{"age": "N"}` or the string form `age:N,active:BOOL` (the only form an env var can hold).
 * @param {unknown} raw @param {string} name
 * @returns {Record<string, ColumnType>}
 */
export function columnTypes(raw, name) {
  /** @type {Array<[string, unknown]>} */
  let pairs;
  if (typeof raw === 'string') {
    pairs = raw
      .split(',')
      .filter((part) => part.trim() !== '')
      .map((part) => {
        const at = part.lastIndexOf(':');
        if (at <= 0) throw new ConfigError(name, raw, `"${part}" is not column:TYPE; write e.g. "age:N,active:BOOL"`);
        return [part.slice(0, at).trim(), part.slice(at + 1).trim().toUpperCase()];
      });
  } else if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    pairs = Object.entries(raw).map(([column, type]) => [column, typeof type === 'string' ? type.toUpperCase() : type]);
  } else {
    throw new ConfigError(name, raw, 'use an object like {"age":"N","active":"BOOL"} or a string like "age:N,active:BOOL"');
  }
  // No prototype: a column named constructor, toString or __proto__ must not find Object's members.
  /** @type {Record<string, ColumnType>} */
  const types = Object.create(null);
  for (const [column, type] of pairs) {
    if (typeof type !== 'string' || !COLUMN_TYPES.has(type)) {
      throw new ConfigError(name, raw, `column "${column}" has type ${JSON.stringify(type)}; the types are S, N, BOOL, B (base64), M and L (a JSON cell), SS, NS and BS (members cut by setSeparator)`);
    }
    types[column] = /** @type {ColumnType} */ (type);
  }
  return types;
}

/** An ETag, without the quotes S3 sends around it. @param {unknown} raw @param {string} name */
export function etag(raw, name) {
  return requiredString(raw, name).replaceAll('"', '');
}

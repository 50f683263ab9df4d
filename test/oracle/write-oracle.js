/**
 * The write modes as the sequential oracle applies them (issue 40): each row, in file order, is one
 * call whose condition is evaluated against the table as the rows before it left it. Written from the
 * issue and DynamoDB's documented rules, not from src/:
 *
 *   put        the row's item replaces any item of its key
 *   if-absent  written only where the table has no item of its key; else skipped (ITEM_EXISTS)
 *   newer      written where the table has no item of its key, or the item's version attribute is of
 *              the row's type and lower: N by value, S by UTF-8 bytes; else skipped (NOT_NEWER)
 *   update     the row's attributes set on the item (created if absent), the others kept; with a version
 *              column, under newer's condition
 *
 * A row whose version (newer, or update with a version column) is absent, not N or S, or an empty S is rejected,
 * INVALID_VERSION, and changes nothing.
 *
 * update: any number of attributes is set, up to DynamoDB's 4 KB UpdateExpression; a row past it is
 * rejected REJECTED_BY_TABLE with its line (issue 46), whatever the item holds. How long an expression
 * is depends on the importer's placeholders, which the oracle does not know: it says a row of at most
 * UPDATE_ATTRIBUTES_FIT attributes fits and one of UPDATE_ATTRIBUTES_PAST or more does not, and the
 * generators draw nothing between (applyWrite throws there).
 */
import { normalizeNumber } from './oracle.js';

/** @typedef {import('./oracle.js').Item} Item */
/** @typedef {{ writeMode?: string, versionColumn?: string, keyColumn?: string, sortKeyColumn?: string, tableKeys?: { partition: { name: string }, sort?: { name: string } } }} WriteSettings */

/** Attributes an update sets (its version too) that fit 4 KB whatever the placeholders (`#a12=:a12,` is 10 bytes). */
export const UPDATE_ATTRIBUTES_FIT = 300;
/** Attributes an update sets that do not (two-character placeholders at the least: 8 bytes each). */
export const UPDATE_ATTRIBUTES_PAST = 1000;

/**
 * One row applied by its write mode.
 * @param {Map<string, Item>} items @param {Map<string, number>} itemLines
 * @param {string} keyId @param {Item} item @param {number} line @param {WriteSettings} settings
 * @returns {'written' | 'skipped' | 'INVALID_VERSION' | 'REJECTED_BY_TABLE'}
 */
export function applyWrite(items, itemLines, keyId, item, line, settings) {
  const mode = settings.writeMode ?? 'put';
  const existing = items.get(keyId);
  /** @param {Item} next */
  const write = (next) => {
    items.set(keyId, next);
    itemLines.set(keyId, line);
    return /** @type {const} */ ('written');
  };
  if (mode === 'put') return write(item);
  if (mode === 'if-absent') return existing === undefined ? write(item) : 'skipped';
  const column = settings.versionColumn;
  if (column !== undefined) {
    const version = own(item, column);
    if (version === undefined || typeOf(version) === undefined) return 'INVALID_VERSION';
  }
  // DynamoDB validates a request before it evaluates its condition: an expression past 4 KB is refused
  // whatever the item holds (a stale row too).
  if (mode === 'update') {
    const keyNames = [settings.tableKeys?.partition.name ?? settings.keyColumn, settings.tableKeys?.sort?.name ?? settings.sortKeyColumn];
    const sets = Object.keys(item).filter((name) => !keyNames.includes(name)).length;
    if (sets >= UPDATE_ATTRIBUTES_PAST) return 'REJECTED_BY_TABLE';
    if (sets > UPDATE_ATTRIBUTES_FIT) throw new Error(`an update of ${sets} attributes: the oracle cannot say whether its expression fits 4 KB (generate at most ${UPDATE_ATTRIBUTES_FIT} or at least ${UPDATE_ATTRIBUTES_PAST})`);
  }
  if (column !== undefined && existing !== undefined && !lower(own(existing, column), own(item, column) ?? {})) return 'skipped';
  if (mode === 'newer') return write(item);
  if (mode === 'update') return write({ ...(existing ?? {}), ...item });
  throw new Error(`unknown write mode ${mode}`);
}

/** An item's own attribute (never one of Object.prototype's). @param {Item} item @param {string} name */
function own(item, name) {
  return Object.prototype.hasOwnProperty.call(item, name) ? item[name] : undefined;
}

/** 'N' or 'S', the types a version compares as; undefined for any other (and for an empty S). @param {Record<string, unknown>} value */
function typeOf(value) {
  const types = Object.keys(value);
  if (types.length !== 1) return undefined;
  return types[0] === 'N' || (types[0] === 'S' && value.S !== '') ? types[0] : undefined;
}

/**
 * Whether the item's version is lower than the row's: both of one type, N by value, S by UTF-8 bytes.
 * @param {Record<string, any> | undefined} held @param {Record<string, any>} version
 */
function lower(held, version) {
  if (held === undefined) return false;
  const type = typeOf(held);
  if (type === undefined || type !== typeOf(version)) return false;
  if (type === 'S') return Buffer.compare(Buffer.from(held.S, 'utf8'), Buffer.from(version.S, 'utf8')) < 0;
  return compareNumbers(held.N, version.N) < 0;
}

/**
 * Two DynamoDB numbers compared by value, exactly (38 digits, exponents to 10^125).
 * @param {string} a @param {string} b @returns {number}
 */
export function compareNumbers(a, b) {
  const [x, y] = [a, b].map((text) => {
    const normal = normalizeNumber(text);
    if (normal === '0') return { coefficient: 0n, exponent: 0 };
    const at = normal.indexOf('e');
    return { coefficient: BigInt(normal.slice(0, at)), exponent: Number(normal.slice(at + 1)) };
  });
  const exponent = Math.min(x.exponent, y.exponent);
  const left = x.coefficient * 10n ** BigInt(x.exponent - exponent);
  const right = y.coefficient * 10n ** BigInt(y.exponent - exponent);
  return left < right ? -1 : left > right ? 1 : 0;
}

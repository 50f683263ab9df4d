/**
 * The oracle's model of two shaping options (issue 40, item 4), for oracle.js and json-oracle.js. Like
 * them it imports nothing from src/: it is what the importer is compared with, written from the rules.
 *
 * TTL (`ttl`). "column": that column (as written, after drop and rename) is the TTL attribute, written
 * as N in whole epoch seconds. Its value is a whole number (`-?digits`, at most 38 significant digits,
 * written without leading zeros) or an ISO 8601 date in its extended form: `YYYY-MM-DD` (midnight UTC),
 * or with `THH:MM`, optional `:SS` and an optional fraction (`.` or `,`), and a zone (`Z`, `±HH`,
 * `±HHMM`, `±HH:MM`: hours 00-23, minutes 00-59). Months, days (leap years), hours 00-23, minutes 00-59
 * and seconds 00-60 must be real; :60 is the next minute's first second; the fraction is dropped (toward
 * the past). Anything else is INVALID_TTL. "column:+N<d|h|m|s>": every row gets that attribute, the
 * import's time in whole seconds (floor) plus N units; the file must not hold it (CSV: a header error;
 * JSON Lines: the line is INVALID_TTL). The duration is 1 s to 36500 days.
 *
 * Nest (`nest`). A name with a dot is a path of maps: `a.b.c` is `a: {M: {b: {M: {c: value}}}}`. A name
 * with an empty part (`a..b`, `.a`, `a.`), or a name that is a dotted prefix of another in the same
 * item (`a` and `a.b`), cannot be nested (CSV: a header error; JSON Lines: the line is
 * INVALID_ATTRIBUTE_VALUE for an empty part, else INVALID_JSON).
 */

/** The ttl option as { column, after? } (after: seconds), or an error text. @param {unknown} raw */
export function readTtl(raw) {
  if (raw === undefined) return { ttl: undefined };
  if (typeof raw !== 'string') return { error: 'ttl is not text' };
  const match = /^(.*):\+([0-9]+)([dhms])$/s.exec(raw.trim());
  if (match === null) return raw.includes(':+') ? { error: 'a bad ttl duration' } : { ttl: { column: raw.trim() } };
  const unit = { d: 24 * 60 * 60, h: 60 * 60, m: 60, s: 1 }[/** @type {'d' | 'h' | 'm' | 's'} */ (match[3])];
  const after = Number(match[2]) * unit;
  if (match[1].trim() === '' || after < 1 || after > 36500 * 24 * 60 * 60 || match[2].length > 12) return { error: 'a bad ttl duration' };
  return { ttl: { column: match[1].trim(), after } };
}

/**
 * A TTL value's epoch seconds as N text, or undefined (INVALID_TTL).
 * @param {string} text
 * @returns {string | undefined}
 */
export function ttlValue(text) {
  if (/^-?[0-9]+$/.test(text)) {
    const value = BigInt(text);
    const digits = (value < 0n ? -value : value).toString();
    return digits.length > 38 ? undefined : value.toString();
  }
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(T([0-9]{2}):([0-9]{2})(:([0-9]{2})([.,][0-9]+)?)?(Z|([+-])([0-9]{2})(:?([0-9]{2}))?))?$/.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = match[4] === undefined ? 0 : Number(match[5]);
  const minute = match[4] === undefined ? 0 : Number(match[6]);
  const second = match[8] === undefined ? 0 : Number(match[8]);
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  // The calendar by Date, the year set on its own (Date.UTC takes 0-99 for 1900-1999): a day that is not
  // real comes back as another.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  let seconds = Math.round(date.getTime() / 1000) + hour * 3600 + minute * 60 + second;
  // Groups 11-14: the offset's sign, hours, then minutes (with or without a colon).
  if (match[11] !== undefined) {
    const offsetHours = Number(match[12]);
    const offsetMinutes = match[14] === undefined ? 0 : Number(match[14]);
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    seconds -= (match[11] === '-' ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  }
  return String(seconds);
}

/** The filled TTL value: the import's time (ms) in whole seconds, plus the duration. @param {number} importTime @param {number} after */
export const filledTtl = (importTime, after) => String(Math.floor(importTime / 1000) + after);

/**
 * Why a list of names cannot be nested: 'empty' (a name with an empty part), 'conflict' (one inside
 * another), or undefined.
 * @param {string[]} names
 */
export function nestTrouble(names) {
  if (names.some((name) => name.includes('.') && name.split('.').some((part) => part === ''))) return 'empty';
  for (const outer of names) for (const inner of names) if (inner.startsWith(`${outer}.`)) return 'conflict';
  return undefined;
}

/**
 * An item with its dotted names made maps (nestTrouble found nothing wrong with its names).
 * @param {Record<string, any>} item
 * @returns {Record<string, any>}
 */
export function nested(item) {
  /** @type {Record<string, any>} */
  const out = Object.create(null);
  for (const name of Object.keys(item)) {
    const parts = name.split('.');
    let map = out;
    parts.slice(0, -1).forEach((part) => {
      if (!Object.hasOwn(map, part)) define(map, part, { M: Object.create(null) });
      map = map[part].M;
    });
    define(map, parts[parts.length - 1], item[name]);
  }
  return out;
}

/** An own property, whatever its name. @param {Record<string, any>} object @param {string} name @param {unknown} value */
function define(object, name, value) {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
}

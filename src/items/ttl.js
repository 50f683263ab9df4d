/**
 * The TTL attribute (option `ttl`): a column read as a time and written as N, in whole epoch seconds,
 * which is what DynamoDB's Time to Live reads. A value is either
 *   - a whole number of seconds, `-?digits` (a number of 12 digits or more, at least 1e11, is still
 *     written, but looks like milliseconds: as seconds it is after the year 5138, as milliseconds after
 *     March 1973; the import warns once), or
 *   - an ISO 8601 date or date-time in its extended form with a zone: `2026-11-26` (midnight UTC),
 *     `2026-11-26T14:05Z`, `2026-11-26T14:05:09.75+01:00` (offsets ±HH, ±HHMM or ±HH:MM). A fraction of a
 *     second is dropped, which rounds toward the past; a leap second (:60) is the next minute's first
 *     second, as POSIX time has no leap seconds. Years 0000-9999; before 1970 is a negative number.
 * Anything else is INVALID_TTL. `column:+30d` writes the import's time plus the duration instead.
 */
import { RowError } from '../errors.js';

/** Values at or past this many seconds look like milliseconds (see above). */
export const MILLISECONDS_FROM = 1e11;

const WHOLE_NUMBER = /^-?\d+$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?))?$/;

/**
 * A TTL value's epoch seconds as N text (no leading zeros, no "-0"), or undefined if it is neither a
 * whole number nor an ISO 8601 date with a zone.
 * @param {string} text
 * @returns {string | undefined}
 */
export function ttlSeconds(text) {
  if (WHOLE_NUMBER.test(text)) {
    const digits = text.replace(/^-?0*/, '');
    // DynamoDB's numbers have at most 38 significant digits.
    if (digits.length > 38) return undefined;
    return digits === '' ? '0' : text.startsWith('-') ? `-${digits}` : digits;
  }
  const seconds = isoSeconds(text);
  return seconds === undefined ? undefined : String(seconds);
}

/** Whether a TTL value (N text from ttlSeconds) looks like milliseconds. @param {string} seconds */
export const looksLikeMilliseconds = (seconds) => seconds.replace('-', '').length >= 12;

/**
 * Epoch seconds of an ISO 8601 date (midnight UTC) or date-time with a zone, the fraction dropped; undefined
 * if the text is not one or names no real day, hour, minute or second.
 * @param {string} text
 */
function isoSeconds(text) {
  const match = ISO_DATE.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', zone = 'Z'] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number);
  // A time without a zone names no instant: refused with the rest (the regex asks for one after a time).
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 60) return undefined;
  let offset = 0;
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (oh > 23 || om > 59) return undefined;
    offset = (zone[0] === '-' ? -1 : 1) * (oh * 3_600 + om * 60);
  }
  return daysSinceEpoch(y, mo, d) * 86_400 + h * 3_600 + mi * 60 + s - offset;
}

/** @param {number} year @param {number} month  1-12 */
function daysInMonth(year, month) {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil):
 * integer arithmetic, so that years 0-99 are not read as 1900-1999 as Date.UTC reads them.
 * @param {number} year @param {number} month  1-12 @param {number} day
 */
function daysSinceEpoch(year, month, day) {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * The N text every row gets under `column:+duration`: the import's time, in whole seconds (toward the
 * past), plus the duration.
 * @param {number} importTime  epoch milliseconds @param {number} after  seconds
 */
export const ttlAfter = (importTime, after) => String(Math.floor(importTime / 1000) + after);

/**
 * Reads one column's TTL values: each as its wire text, `{"N":"seconds"}`. A value that is neither
 * form is INVALID_TTL (the message names the column, never the value); the first that looks like
 * milliseconds is reported to `warn`, once.
 * @param {string} column  as written
 * @param {(message: string, fields: Record<string, unknown>) => void} warn
 * @returns {(text: string, line: number) => string}
 */
export function createTtlReader(column, warn) {
  let warned = false;
  return function ttlWire(text, line) {
    const seconds = ttlSeconds(text);
    if (seconds === undefined) {
      throw new RowError('INVALID_TTL', `line ${line}: the TTL column "${column}" is neither whole epoch seconds nor an ISO 8601 date (2026-11-26, or 2026-11-26T14:05:00Z with Z or an offset)`);
    }
    if (!warned && looksLikeMilliseconds(seconds)) {
      warned = true;
      warn('TTL values look like milliseconds', {
        column,
        line,
        fix: `"${column}" holds a value of 12 digits or more (line ${line}), which as seconds is after the year 5138: DynamoDB's TTL reads epoch seconds, so such items never expire; write seconds (milliseconds / 1000) or ISO 8601 dates. The values are written as they are.`,
      });
    }
    return `{"N":"${seconds}"}`;
  };
}

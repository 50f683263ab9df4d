/**
 * DynamoDB's number type as text: checked as written and kept as written (never through a JS float).
 * DynamoDB takes up to 38 significant digits, and magnitudes from 1E-130 up to (not including) 1E+126,
 * or zero; it stores a number without its insignificant zeros, so `007` and `7.0` are one key.
 */

// DynamoDB numbers: optional sign, digits with an optional fraction, optional exponent.
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A number's significant digits and the power of ten of the first of them (undefined for zero).
 * @param {string} value  matches NUMBER
 */
function decompose(value) {
  const unsigned = value[0] === '-' ? value.slice(1) : value;
  const e = unsigned.search(/[eE]/);
  const mantissa = e === -1 ? unsigned : unsigned.slice(0, e);
  const exponent = e === -1 ? 0 : Number(unsigned.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const integerDigits = dot === -1 ? mantissa.length : dot;
  const digits = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const first = digits.search(/[1-9]/);
  if (first === -1) return { digits: '', power: undefined };
  return { digits: digits.slice(first).replace(/0+$/, ''), power: integerDigits - 1 - first + exponent };
}

/** Whether DynamoDB takes this text as a number. @param {string} value */
export function isDynamoNumber(value) {
  if (!NUMBER.test(value)) return false;
  // No exponent and at most 38 characters: at most 38 digits, and a magnitude from 1E-37 to under 1E+38.
  if (value.length <= 38 && !/[eE]/.test(value)) return true;
  const { digits, power } = decompose(value);
  if (power === undefined) return true;
  return digits.length <= 38 && power >= -130 && power <= 125;
}

/**
 * One text for every way of writing the same number (`007`, `7`, `7.0`, `70E-1` give `7E0`), as
 * DynamoDB compares keys. @param {string} value  a DynamoDB number
 */
export function normalizeNumber(value) {
  const { digits, power } = decompose(value);
  if (power === undefined) return '0';
  return `${value[0] === '-' ? '-' : ''}${digits}E${power}`;
}

/** Bytes DynamoDB counts for a number: one per two significant digits, plus one. @param {string} value */
export function numberBytes(value) {
  return Math.ceil(decompose(value).digits.length / 2) + 1;
}

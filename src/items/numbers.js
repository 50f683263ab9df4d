/**
 * DynamoDB's number type as text: checked as written and kept as written (never through a JS float).
 */

// DynamoDB numbers: optional sign, digits with an optional fraction, optional exponent.
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** @param {string} value */
export function isDynamoNumber(value) {
  if (!NUMBER.test(value)) return false;
  if (value.length <= 38) return true;
  // At most 38 significant digits: count them without leading and trailing zeros.
  const mantissa = value.replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length <= 38;
}

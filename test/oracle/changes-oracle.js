/**
 * The sequential oracle of a DynamoDB JSON file (issue 20): an export's `{"Item": ...}` lines and an
 * incremental export's `{"Keys", "NewImage"}` lines, applied one by one in file order, as sequential
 * PutItem and DeleteItem calls would: a put replaces the item of its key, a delete removes it, a rejected
 * line changes nothing. Like oracle.js it imports nothing from src/, and is written to be checked by eye.
 * DynamoDB JSON writes numbers as strings, so JSON.parse reads every value exactly.
 *
 * The rules:
 * Lines. A line ends at LF (a CR before it is dropped); lines count from 1; a line of spaces and tabs is
 * skipped but counts; a UTF-8 BOM at the file's start is dropped. Every other line is a row.
 * Rows, checked in this order: not JSON, not an object, or an object with none of Item, NewImage, Keys:
 * INVALID_JSON. The image (Item, else NewImage) is a put of it; Keys without NewImage is a delete of that
 * key. Each attribute value has exactly one of S, N, BOOL, NULL, SS, NS, L, M (B, BS: not generated
 * here), else INVALID_ATTRIBUTE_VALUE; N must be a DynamoDB number (INVALID_NUMBER); a set must be
 * non-empty with no member twice (INVALID_SET), NS members numbers (INVALID_NUMBER). Then the table's
 * keys: absent, or an empty string, is MISSING_KEY; of another type than the table's, KEY_TYPE.
 */
import { isDynamoNumber, normalizeNumber } from './oracle.js';

/** @typedef {{ name: string, type: 'S' | 'N' }} KeyAttribute */
/** @typedef {{ line: number, reason: string }} Reject */

/**
 * @param {string} text  the file
 * @param {{ partition: KeyAttribute, sort?: KeyAttribute }} keys  the table's
 * @returns {{ items: Map<string, Record<string, any>>, rowsRead: number, rejected: Reject[] }}
 */
export function expectedChanges(text, keys) {
  const items = new Map();
  /** @type {Reject[]} */
  const rejected = [];
  let rowsRead = 0;
  const lines = text.replace(/^\ufeff/, '').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((raw, index) => {
    const line = index + 1;
    const body = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (/^[ \t]*$/.test(body)) return;
    rowsRead++;
    const reason = applyLine(body, keys, items);
    if (reason !== undefined) rejected.push({ line, reason });
  });
  return { items, rowsRead, rejected };
}

/**
 * Applies one line to the table; returns why it was rejected, if it was.
 * @param {string} body @param {{ partition: KeyAttribute, sort?: KeyAttribute }} keys @param {Map<string, Record<string, any>>} items
 */
function applyLine(body, keys, items) {
  let record;
  try {
    record = JSON.parse(body);
  } catch {
    return 'INVALID_JSON';
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return 'INVALID_JSON';
  const image = record.Item ?? record.NewImage;
  const source = image ?? record.Keys;
  if (source === undefined || source === null || typeof source !== 'object' || Array.isArray(source)) return 'INVALID_JSON';
  for (const value of Object.values(source)) {
    const problem = valueProblem(value);
    if (problem !== undefined) return problem;
  }
  const keyParts = [];
  for (const key of [keys.partition, keys.sort]) {
    if (key === undefined) continue;
    const value = source[key.name];
    if (value === undefined || value.S === '') return 'MISSING_KEY';
    if (value[key.type] === undefined) return 'KEY_TYPE';
    keyParts.push(key.type === 'N' ? normalizeNumber(value.N) : value.S);
  }
  const id = JSON.stringify(keyParts);
  if (image !== undefined) items.set(id, image);
  else items.delete(id);
  return undefined;
}

const TYPES = ['S', 'N', 'BOOL', 'NULL', 'SS', 'NS', 'L', 'M'];

/** @param {any} value @returns {string | undefined} */
function valueProblem(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'INVALID_ATTRIBUTE_VALUE';
  const types = Object.keys(value);
  if (types.length !== 1 || !TYPES.includes(types[0])) return 'INVALID_ATTRIBUTE_VALUE';
  const [type] = types;
  const member = value[type];
  switch (type) {
    case 'S':
      return typeof member === 'string' ? undefined : 'INVALID_ATTRIBUTE_VALUE';
    case 'N':
      return typeof member === 'string' && isDynamoNumber(member) ? undefined : 'INVALID_NUMBER';
    case 'BOOL':
      return typeof member === 'boolean' ? undefined : 'INVALID_ATTRIBUTE_VALUE';
    case 'NULL':
      return member === true ? undefined : 'INVALID_ATTRIBUTE_VALUE';
    case 'SS':
    case 'NS': {
      if (!Array.isArray(member) || member.length === 0 || member.some((m) => typeof m !== 'string')) return 'INVALID_SET';
      if (type === 'NS' && member.some((m) => !isDynamoNumber(m))) return 'INVALID_NUMBER';
      const distinct = new Set(type === 'NS' ? member.map(normalizeNumber) : member);
      return distinct.size === member.length ? undefined : 'INVALID_SET';
    }
    case 'L':
      if (!Array.isArray(member)) return 'INVALID_ATTRIBUTE_VALUE';
      for (const each of member) {
        const problem = valueProblem(each);
        if (problem !== undefined) return problem;
      }
      return undefined;
    default: {
      if (member === null || typeof member !== 'object' || Array.isArray(member)) return 'INVALID_ATTRIBUTE_VALUE';
      for (const [name, each] of Object.entries(member)) {
        if (name === '') return 'INVALID_ATTRIBUTE_VALUE';
        const problem = valueProblem(each);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
  }
}

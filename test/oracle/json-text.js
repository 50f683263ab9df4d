/**
 * JSON text read the plain way, for the oracles (oracle.js, json-oracle.js): RFC 8259's grammar, one
 * character at a time, with nothing taken from the importer or its JSON library. Two things differ
 * from JSON.parse, as the importer's README asks:
 * - a number is kept as its text (JsonNumber): a 20-digit id is never rounded through a float;
 * - a name twice in one object is an error when its two values differ (the same value twice is one
 *   member), so that a line cannot mean two items.
 * An object is a Map (member order kept; `__proto__` is a name like any other).
 */

/** A JSON number as written. */
export class JsonNumber {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
}

/** @typedef {null | boolean | string | JsonNumber | any[] | Map<string, any>} JsonValue  arrays and maps of JsonValue */

/** Not JSON (or a name twice with two values). */
export class JsonSyntaxError extends Error {}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = /** @type {Record<string, string>} */ ({ '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' });
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;

/**
 * @param {string} text
 * @returns {JsonValue}
 */
export function parseJsonText(text) {
  let at = 0;
  const fail = (/** @type {string} */ why) => {
    throw new JsonSyntaxError(`${why} at ${at}`);
  };
  const skip = () => {
    while (at < text.length && WHITESPACE.has(text[at])) at++;
  };

  /** @returns {JsonValue} */
  function value() {
    skip();
    const char = text[at];
    if (char === '{') return object();
    if (char === '[') return array();
    if (char === '"') return string();
    for (const [word, meaning] of /** @type {Array<[string, JsonValue]>} */ ([['true', true], ['false', false], ['null', null]])) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return meaning;
      }
    }
    const match = NUMBER.exec(text.slice(at));
    if (match === null) return fail('no value');
    at += match[0].length;
    return new JsonNumber(match[0]);
  }

  function object() {
    at++; // {
    /** @type {Map<string, JsonValue>} */
    const members = new Map();
    skip();
    if (text[at] === '}') {
      at++;
      return members;
    }
    for (;;) {
      skip();
      if (text[at] !== '"') fail('no name');
      const name = string();
      skip();
      if (text[at] !== ':') fail('no colon');
      at++;
      const member = value();
      if (members.has(name) && !sameJson(members.get(name), member)) fail(`the name ${JSON.stringify(name)} twice, with two values`);
      if (!members.has(name)) members.set(name, member);
      skip();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === '}') {
        at++;
        return members;
      }
      fail('no comma or brace');
    }
  }

  function array() {
    at++; // [
    /** @type {JsonValue[]} */
    const members = [];
    skip();
    if (text[at] === ']') {
      at++;
      return members;
    }
    for (;;) {
      members.push(value());
      skip();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === ']') {
        at++;
        return members;
      }
      fail('no comma or bracket');
    }
  }

  function string() {
    at++; // "
    let out = '';
    for (;;) {
      if (at >= text.length) fail('a string never closed');
      const char = text[at];
      // A control character must be escaped.
      if (char.charCodeAt(0) < 0x20) fail('a control character in a string');
      if (char === '"') {
        at++;
        return out;
      }
      if (char !== '\\') {
        out += char;
        at++;
        continue;
      }
      const escape = text[at + 1];
      if (escape === 'u') {
        const hex = text.slice(at + 2, at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('a bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));
        at += 6;
      } else if (escape !== undefined && Object.hasOwn(ESCAPES, escape)) {
        out += ESCAPES[escape];
        at += 2;
      } else fail('a bad escape');
    }
  }

  const result = value();
  skip();
  if (at !== text.length) fail('text after the value');
  return result;
}

/** Two JSON values are the same: numbers by their text, objects member by member. @param {JsonValue | undefined} a @param {JsonValue | undefined} b @returns {boolean} */
export function sameJson(a, b) {
  if (a instanceof JsonNumber || b instanceof JsonNumber) return a instanceof JsonNumber && b instanceof JsonNumber && a.text === b.text;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((member, i) => sameJson(member, b[i]));
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map)) return false;
    const names = new Set([...a.keys(), ...b.keys()]);
    return [...names].every((name) => sameJson(a.get(name), b.get(name)));
  }
  return a === b;
}

/** Whether a text has half a UTF-16 surrogate pair (no UTF-8 form). @param {string} text */
export function hasLoneSurrogate(text) {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return true;
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return true;
  }
  return false;
}

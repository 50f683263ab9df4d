/**
 * The fuzz lanes (issue 35): each lane generates one kind of import case, which the harness
 * (differential.js) imports for real and compares with the oracle of its format (oracle.js for CSV,
 * json-oracle.js for JSON Lines and DynamoDB JSON). `npm run fuzz -- --lanes keys,jsonl` runs some;
 * no --lanes runs all, the runs split between them.
 *
 *   csv        the original CSV cases (S, N, BOOL; encodings, quotes, faults, segments), no shards
 *   csv-shards the same in 2-3 shards, every key once (shards keep no order between them)
 *   keys       keys as DynamoDB has them, in CSV, JSON Lines and DynamoDB JSON: composite S keys with NUL
 *              and other control characters, N keys spelled many ways, B keys in canonical and
 *              non-canonical base64, repeated at every distance
 *   csv-types  every CSV column type (S N BOOL B M L SS NS BS) and emptyCell mode, with bad cells
 *   jsonl      JSON Lines: exact numbers, nested values, escapes, columnTypes overrides, bad lines
 *   ddb-json   DynamoDB JSON: full-export Items, incremental NewImages and Keys (deletes), bad values
 *   delete     mode: delete over a table that holds items, in each format
 *   spread     spread 2-6 over CSV files sorted in DynamoDB's order of the table's key, runs of one key
 *              written several ways, rejected rows between them
 *   prefix     one job over every object under a prefix: CSV, JSON Lines, DynamoDB JSON, each plain, gzip
 *              or zstd of two frames (if the zstd tool is installed), empty objects, gzip of nothing; each
 *              object's keys its own (objects run at once: no order between them)
 *   from-rejects a csv-types, jsonl, ddb-json or keys case, then its rejects file with every n-th row
 *              fixed (a fresh key, its other cells emptied), imported with fromRejects into the same table
 *   resume     a csv, keys, jsonl or ddb-json case stopped 1-3 times at a random moment (as Ctrl-C does;
 *              a second one gives the writes in flight up), each time resumed from its checkpoint
 *   if-absent, newer, update
 *              a write mode (issue 40) over a table that holds items for some of the file's keys, older
 *              and newer: CSV or JSON Lines, keys repeated at every distance, versions N (spelled many
 *              ways) or S, ties, rows without a version, items whose version has the other type; now and
 *              then a shuffle window, and stops resumed from their checkpoints (write-oracle.js)
 *
 * A case is a plain spec rendered to bytes, so fast-check shrinks the spec. Kinds of input that meet
 * known importer bugs can be switched off by feature (arbitraries.js FEATURES: nulKeys, oddBase64,
 * binaryKeys, numberSpellings, badValues), as the csv lane's are: --features -nulKeys,-oddBase64.
 */
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { conditionsArbitrary, describeCase, importCaseArbitrary } from './arbitraries.js';
import { shardRunsLane, wideLane } from './edge-lanes.js';

/** @typedef {import('./arbitraries.js').Features} Features */
/** @typedef {import('./arbitraries.js').ImportCase} ImportCase */
/** @typedef {'S' | 'N' | 'B'} KeyType */
/** @typedef {{ partition: { name: string, type: KeyType }, sort?: { name: string, type: KeyType } }} TableKeys */

/** @type {Record<string, { about: string, features?: string }>} */
export const LANES = {
  csv: { about: 'CSV, S/N/BOOL, with encodings, quotes, faults and segments', features: '-shards' },
  'csv-shards': { about: 'CSV in 2-3 shards, every key once', features: '-repeatedKeys' },
  keys: { about: 'composite S keys with NUL/control characters, N spellings, B keys canonical and not; CSV, JSON Lines, DynamoDB JSON' },
  'csv-types': { about: 'every CSV column type and emptyCell mode' },
  jsonl: { about: 'JSON Lines: exact numbers, nested values, columnTypes, bad lines' },
  'ddb-json': { about: 'DynamoDB JSON: Item, NewImage and Keys lines, every typed value' },
  delete: { about: 'mode delete over a table that holds items, CSV / JSON Lines / DynamoDB JSON' },
  spread: { about: 'spread 2-6 over CSV files sorted in DynamoDB\'s key order (S by UTF-8 bytes, N by value, B by bytes)' },
  prefix: { about: 'a prefix job over mixed objects: CSV, JSON Lines, DynamoDB JSON, gzip, zstd (two frames), empty, gzip of nothing' },
  'from-rejects': { about: 'an import, then its rejects file, some rows fixed, imported with fromRejects into the same table' },
  resume: { about: 'imports stopped (and their writes given up) 1-3 times at random moments, each resumed from its checkpoint' },
  'if-absent': { about: 'writeMode if-absent over a table holding some keys: CSV and JSON Lines, keys repeated, stops', features: '-shards' },
  newer: { about: 'writeMode newer: N versions spelled many ways, S versions as ISO 8601 text, ties, items of the other type, rows without one', features: '-shards' },
  update: { about: 'writeMode update, with and without a version column: merges over held items, empty cells omitted or NULL', features: '-shards' },
  'shard-runs': { about: 'CSV, JSON Lines, DynamoDB JSON in 2-4 shards (every case), long runs of one key across the planned cuts; put, delete and the write modes; drop, rename, TTL' },
  wide: { about: 'rows of 20-450 attributes (1,100 past an update\'s 4 KB), names like #k, :v, #0 and of 255-1,000 characters, every write mode, held items of many sizes' },
};

/** Lanes named for shards: every case of theirs is sharded (issue 46: csv-shards drew 1 shard in 87% of its cases). */
export const SHARDED_LANES = new Set(['csv-shards', 'shard-runs']);

/**
 * A lane's conditions: a sharded lane's have 2-4 shards in every case (shard-runs' cases carry their own
 * count, which the harness uses), the others' as the features say.
 * @param {string} lane @param {Features} features
 */
export function laneConditionsArbitrary(lane, features) {
  return conditionsArbitrary(features, SHARDED_LANES.has(lane) ? { shards: fc.integer({ min: 2, max: 4 }) } : {});
}

/**
 * The lanes a FUZZ_LANES value names: empty for all.
 * @param {string | undefined} text
 */
export function lanesFrom(text) {
  const names = (text ?? '').split(',').map((part) => part.trim()).filter((part) => part !== '');
  for (const name of names) if (!(name in LANES)) throw new Error(`unknown fuzz lane "${name}"; the lanes are ${Object.keys(LANES).join(', ')}`);
  return names.length === 0 ? Object.keys(LANES) : names;
}

/**
 * A lane's cases.
 * @param {string} lane @param {Features} features @param {{ maxRows?: number }} [limits]
 * @returns {fc.Arbitrary<ImportCase>}
 */
export function laneCaseArbitrary(lane, features, limits = {}) {
  switch (lane) {
    case 'csv':
    case 'csv-shards':
      return importCaseArbitrary(features, limits);
    case 'keys':
      return keysLane(features, Math.min(limits.maxRows ?? 120, 120));
    case 'csv-types':
      return csvTypesLane(features, Math.min(limits.maxRows ?? 80, 80));
    case 'jsonl':
      return jsonLinesLane(features, Math.min(limits.maxRows ?? 80, 80));
    case 'ddb-json':
      return dynamodbJsonLane(features, Math.min(limits.maxRows ?? 80, 80));
    case 'delete':
      return deleteLane(features, Math.min(limits.maxRows ?? 80, 80));
    case 'spread':
      return spreadLane(features, Math.min(limits.maxRows ?? 160, 160));
    case 'prefix':
      return prefixLane(features, Math.min(limits.maxRows ?? 40, 40));
    case 'from-rejects':
      return fromRejectsLane(features, Math.min(limits.maxRows ?? 60, 60));
    case 'resume':
      return resumeLane(features, limits);
    case 'if-absent':
    case 'newer':
    case 'update':
      return writeModeLane(lane, features, Math.min(limits.maxRows ?? 60, 60));
    case 'shard-runs':
      return shardRunsLane(features, Math.min(limits.maxRows ?? 400, 400));
    case 'wide':
      return wideLane(features, Math.min(limits.maxRows ?? 30, 30));
    default:
      throw new Error(`unknown lane ${lane}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Key values: a pool of values of each type, each written one of several ways

/** S keys: plain ones, and ones with NUL and control characters; (a\0b, c) and (a, b\0c) meet if joined on NUL. */
const PLAIN_S = ['a', 'c', 'b', 'é', '😀 k', 'x y', ' lead', 'a,b', '"q"'];
const ODD_S = ['a\u0000b', 'b\u0000c', 'a\u0000', '\u0000', '\u0000a', 'a\u0001b', 'b\u0001c', '\u001f', 'k\u007f', 'x\ty', 'line\nbreak', 'cr\rx', 'k\u0085', 'a\u0000b\u0000c'];

/**
 * N key values, each with spellings that are all that one number: in CSV (DynamoDB's syntax) and in JSON
 * (JSON's number grammar: no leading zeros, no bare dot).
 */
const N_VALUES = [
  { csv: ['7', '007', '7.0', '70E-1', '0.7e1', '7e0', '7.', '7.000E+0'], json: ['7', '7.0', '70E-1', '0.7e1', '7e0', '7E+0'] },
  { csv: ['0', '-0', '0.0', '00', '0e5', '.0'], json: ['0', '-0', '0.0', '0e5', '-0.0E-3'] },
  { csv: ['-7', '-007', '-7.0', '-70e-1'], json: ['-7', '-7.0', '-70e-1', '-0.7E1'] },
  { csv: ['12345678901234567890123', '1.2345678901234567890123e22', '012345678901234567890123.000'], json: ['12345678901234567890123', '1.2345678901234567890123e22', '12345678901234567890123.000'] },
  { csv: ['12345678901234567890124', '1234567890123456789012.4E1'], json: ['12345678901234567890124', '1234567890123456789012.4E1'] },
  { csv: ['1e-130', '0.1E-129', '10e-131'], json: ['1e-130', '0.1E-129', '10e-131'] },
  { csv: ['3.14', '314e-2', '03.140'], json: ['3.14', '314e-2', '3.140'] },
  { csv: ['99999999999999999999999999999999999999e87', '9.9999999999999999999999999999999999999E+124'], json: ['99999999999999999999999999999999999999e87', '9.9999999999999999999999999999999999999E+124'] },
];

/** B key values: bytes (a last group of one or two bytes has padding bits to spell otherwise). */
const B_VALUES = [[1], [1, 2], [0], [255], [0xfb, 0xef], [1, 2, 3], [0, 0], [0x3e], [0xff, 0xfe, 0xfd, 0xfc]];

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Bytes as base64; spelling > 0 sets padding bits that DynamoDB's decoders drop ("AR==" for 01), when the
 * last group has any.
 * @param {number[]} bytes @param {number} spelling
 */
export function base64Of(bytes, spelling) {
  const text = Buffer.from(bytes).toString('base64');
  const rest = bytes.length % 3;
  if (spelling === 0 || rest === 0) return text;
  // One byte left: 4 padding bits in the second digit; two: 2 in the third.
  const at = rest === 1 ? text.length - 3 : text.length - 2;
  const free = rest === 1 ? 15 : 3;
  const digit = BASE64_DIGITS.indexOf(text[at]) | (1 + (spelling % free));
  return `${text.slice(0, at)}${BASE64_DIGITS[digit]}${text.slice(at + 1)}`;
}

/** Text that is not base64 as DynamoDB's JSON carries it. */
const BAD_BASE64 = ['AQ', 'AQ=', 'A===', 'AQ==AQ==', '-_8=', 'AQ ==', ' AQ==', 'AQ==\t', '====', 'QUJD\n', '*'];

/**
 * @typedef {object} KeyChoice
 * @property {number} index     into the pool (small indices more often: keys repeat)
 * @property {number} spelling  how it is written
 * @property {number} back      0, or the distance to an earlier row whose key this row takes
 */

/** @param {number} poolSize */
const keyChoice = (poolSize) =>
  fc.record({
    index: fc.oneof({ weight: 3, arbitrary: fc.nat(3) }, { weight: 2, arbitrary: fc.nat(poolSize - 1) }),
    spelling: fc.nat(7),
    back: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(1, 2, 3, 24, 25, 26, 49, 50, 51, 99, 100) }),
  });

/**
 * A key value as the pools have it: which value (its identity), and the text it is written as.
 * @param {KeyType} type @param {KeyChoice} choice @param {Features} features @param {'csv' | 'json'} syntax
 * @returns {{ identity: string, text: string }}
 */
function keyValue(type, choice, features, syntax) {
  if (type === 'S') {
    const pool = features.has('nulKeys') ? [...PLAIN_S.slice(0, 2), ...ODD_S.slice(0, 2), ...PLAIN_S.slice(2), ...ODD_S.slice(2)] : PLAIN_S;
    const text = pool[choice.index % pool.length];
    return { identity: `S${text}`, text };
  }
  if (type === 'N') {
    const value = N_VALUES[choice.index % N_VALUES.length];
    const spellings = value[syntax];
    const text = features.has('numberSpellings') ? spellings[choice.spelling % spellings.length] : spellings[0];
    return { identity: `N${choice.index % N_VALUES.length}`, text };
  }
  const bytes = B_VALUES[choice.index % B_VALUES.length];
  return { identity: `B${choice.index % B_VALUES.length}`, text: base64Of(bytes, features.has('oddBase64') ? choice.spelling % 3 === 2 ? choice.spelling : 0 : 0) };
}

/** @param {Features} features */
const keyTypeArbitrary = (features) => fc.constantFrom(.../** @type {KeyType[]} */ (['S', 'N', ...(features.has('binaryKeys') ? ['B'] : [])]));

/** @param {Features} features @returns {fc.Arbitrary<TableKeys>} */
function tableKeysArbitrary(features) {
  return fc
    .record({ partition: keyTypeArbitrary(features), sort: fc.option(keyTypeArbitrary(features), { freq: 2 }), names: fc.constantFrom(['id', 'sk'], ['pk', 'sort'], ['ключ', 'sk']) })
    .map(({ partition, sort, names }) => ({ partition: { name: names[0], type: partition }, ...(sort === null ? {} : { sort: { name: names[1], type: sort } }) }));
}

/**
 * The key texts of each row: rows with `back` take an earlier row's key values (spelled anew).
 * @param {TableKeys} tableKeys @param {Array<{ pk: KeyChoice, sk: KeyChoice }>} rows @param {Features} features @param {'csv' | 'json'} syntax
 */
function rowKeys(tableKeys, rows, features, syntax) {
  /** @type {Array<{ pk: KeyChoice, sk: KeyChoice }>} */
  const chosen = [];
  return rows.map((row, r) => {
    const earlier = row.pk.back > 0 && r - row.pk.back >= 0 ? chosen[r - row.pk.back] : undefined;
    const pk = earlier === undefined ? row.pk : { ...earlier.pk, spelling: row.pk.spelling };
    const sk = earlier === undefined ? row.sk : { ...earlier.sk, spelling: row.sk.spelling };
    chosen.push({ pk, sk });
    return {
      pk: keyValue(tableKeys.partition.type, pk, features, syntax),
      sk: tableKeys.sort === undefined ? undefined : keyValue(tableKeys.sort.type, sk, features, syntax),
    };
  });
}

/** The column types a CSV needs for its keys. @param {TableKeys} tableKeys */
function keyColumnTypes(tableKeys) {
  /** @type {Record<string, string>} */
  const types = {};
  if (tableKeys.partition.type !== 'S') types[tableKeys.partition.name] = tableKeys.partition.type;
  if (tableKeys.sort !== undefined && tableKeys.sort.type !== 'S') types[tableKeys.sort.name] = tableKeys.sort.type;
  return types;
}

// ---------------------------------------------------------------------------------------------------
// Rendering

/** @param {string} value @param {boolean} quote */
export function csvField(value, quote) {
  return quote || /[,"\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * A JSON string; `escapeLetters` writes some plain letters as \u escapes (the reader must decode them).
 * @param {string} text @param {boolean} [escapeLetters]
 */
export function jsonString(text, escapeLetters = false) {
  const plain = JSON.stringify(text);
  return escapeLetters ? plain.replace(/[a-k]/g, (letter) => `\\u00${letter.charCodeAt(0).toString(16)}`) : plain;
}

/**
 * A JSON value as text: a number as `{ number: text }` (written as it is), an object as `{ members }`.
 * @param {any} value @returns {string}
 */
function jsonText(value) {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'object' && 'number' in value && typeof value.number === 'string') return value.number;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  return `{${Object.entries(value.members ?? {}).map(([name, member]) => `${jsonString(name)}:${jsonText(member)}`).join(', ')}}`;
}

/**
 * @typedef {object} FileShape
 * @property {boolean} crlf
 * @property {boolean} bom
 * @property {boolean} finalLineBreak
 * @property {number} blankEvery  a blank line after each n-th line (0: none)
 */

const fileShape = fc.record({
  crlf: fc.boolean(),
  bom: fc.nat(5).map((n) => n === 5),
  finalLineBreak: fc.nat(4).map((n) => n !== 4),
  blankEvery: fc.constantFrom(0, 0, 0, 7),
});

/** @param {Array<string | Buffer>} lines @param {FileShape} shape */
function joinLines(lines, shape) {
  const end = shape.crlf ? '\r\n' : '\n';
  /** @type {Buffer[]} */
  const parts = [];
  if (shape.bom) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  lines.forEach((line, i) => {
    parts.push(typeof line === 'string' ? Buffer.from(line) : line);
    if (i < lines.length - 1 || shape.finalLineBreak) parts.push(Buffer.from(end));
    if (shape.blankEvery > 0 && i % shape.blankEvery === shape.blankEvery - 1 && i < lines.length - 1) parts.push(Buffer.from(i % 2 === 0 ? end : ` \t${end}`));
  });
  return Buffer.concat(parts);
}

/**
 * A case, with its description for replay.
 * @param {Buffer} bytes @param {Record<string, any>} options @param {TableKeys} tableKeys @param {number} rows
 * @param {{ initialItems?: Array<Record<string, any>>, objectSuffix?: string, objects?: JobObject[], roundTrip?: { fixEvery: number }, stops?: Stop[], shards?: number }} [extra]
 * @returns {ImportCase}
 */
export function importCase(bytes, options, tableKeys, rows, extra = {}) {
  const all = { keyColumn: tableKeys.partition.name, ...(tableKeys.sort === undefined ? {} : { sortKeyColumn: tableKeys.sort.name }), generateKey: false, columnTypes: {}, delimiter: ',', shuffleWindow: 0, ...options };
  const description = `${describeCase(bytes, all)} tableKeys ${JSON.stringify(tableKeys)}${extra.initialItems === undefined ? '' : ` initialItems ${JSON.stringify(extra.initialItems)}`}`;
  return Object.defineProperty({ bytes, options: all, description, rows, tableKeys, ...extra }, fc.toStringMethod, { value: () => description, enumerable: false });
}

/** A small shuffle window now and then. */
const shuffleWindow = fc.constantFrom(0, 0, 0, 0, 7, 40);

// ---------------------------------------------------------------------------------------------------
// Lane: keys

/** @param {Features} features @param {number} maxRows */
function keysLane(features, maxRows) {
  const row = fc.record({
    pk: keyChoice(24),
    sk: keyChoice(24),
    // A row the import must reject: its key not a number / not base64, or empty.
    fault: features.has('badValues') ? fc.noBias(fc.integer({ min: -25, max: 2 })).map((n) => (n <= 0 ? 'none' : n === 1 ? 'badKey' : 'emptyKey')) : fc.constant('none'),
    which: fc.nat(20),
    quote: fc.nat(5).map((n) => n === 5),
  });
  return fc
    .record({
      format: fc.constantFrom('csv', 'jsonl', 'dynamodb-json'),
      // Composite S keys a third of the time: where NUL inside a key meets a key joined on NUL.
      tableKeys: fc.oneof(tableKeysArbitrary(features), tableKeysArbitrary(features), fc.constant(/** @type {TableKeys} */ ({ partition: { name: 'pk', type: 'S' }, sort: { name: 'sk', type: 'S' } }))),
      rows: fc.array(row, { maxLength: maxRows, size: 'max' }),
      keysTyped: fc.boolean(),
      shape: fileShape,
      shuffleWindow,
    })
    .map((spec) => {
      const syntax = spec.format === 'csv' ? 'csv' : 'json';
      const keys = rowKeys(spec.tableKeys, spec.rows, features, syntax);
      const { partition, sort } = spec.tableKeys;
      /** A key cell's text, or the fault in its place. @param {KeyType} type @param {string} text @param {typeof spec.rows[0]} r */
      const faulty = (type, text, r) => {
        if (r.fault === 'emptyKey') return '';
        if (r.fault === 'badKey') return type === 'N' ? ['+7', 'abc', '1e126', '7 ', '0x10'][r.which % 5] : type === 'B' ? BAD_BASE64[r.which % BAD_BASE64.length] : text;
        return text;
      };
      if (spec.format === 'csv') {
        const header = [partition.name, ...(sort === undefined ? [] : [sort.name]), 'v'];
        const lines = spec.rows.map((r, i) => {
          const cells = [faulty(partition.type, keys[i].pk.text, r), ...(sort === undefined ? [] : [faulty(sort.type, /** @type {{ text: string }} */ (keys[i].sk).text, r)]), `r${i}`];
          return cells.map((cell) => csvField(cell, r.quote)).join(',');
        });
        return importCase(joinLines([header.join(','), ...lines], spec.shape), { format: 'csv', columnTypes: keyColumnTypes(spec.tableKeys), shuffleWindow: spec.shuffleWindow }, spec.tableKeys, spec.rows.length, { objectSuffix: '.csv' });
      }
      // JSON: a B key is a base64 string, typed B; an N key a JSON number, or (typed N) a string.
      /** @type {Record<string, string>} */
      const columnTypes = {};
      for (const key of [partition, sort]) {
        if (key === undefined) continue;
        if (key.type === 'B' || (key.type === 'N' && spec.keysTyped)) columnTypes[key.name] = key.type;
      }
      const jsonKey = (/** @type {{ name: string, type: KeyType }} */ key, /** @type {string} */ text, /** @type {typeof spec.rows[0]} */ r) => {
        const written = faulty(key.type, text, r);
        if (spec.format === 'dynamodb-json') return { members: { [key.type]: key.type === 'N' && r.fault === 'badKey' && r.which % 2 === 0 ? { number: '7' } : written } };
        if (key.type === 'N' && columnTypes[key.name] === undefined) return r.fault === 'none' ? { number: written } : r.fault === 'emptyKey' ? null : written;
        return written;
      };
      const lines = spec.rows.map((r, i) => {
        /** @type {Record<string, any>} */
        const members = {};
        members[partition.name] = jsonKey(partition, keys[i].pk.text, r);
        if (sort !== undefined) members[sort.name] = jsonKey(sort, /** @type {{ text: string }} */ (keys[i].sk).text, r);
        members.v = spec.format === 'dynamodb-json' ? { members: { S: `r${i}` } } : `r${i}`;
        if (spec.format === 'jsonl') return jsonText({ members });
        // Item, NewImage, or (every fifth row) Keys: a delete.
        if (r.which % 5 === 4) {
          const { v: _v, ...key } = members;
          return jsonText({ members: { Metadata: { members: { WriteTimestampMicros: { members: { N: '1732400000000000' } } } }, Keys: { members: key } } });
        }
        return jsonText({ members: r.which % 2 === 0 ? { Item: { members } } : { Keys: { members: {} }, NewImage: { members } } });
      });
      const format = /** @type {'jsonl' | 'dynamodb-json'} */ (spec.format);
      return importCase(joinLines(lines, spec.shape), { format, columnTypes: format === 'jsonl' ? columnTypes : {}, shuffleWindow: spec.shuffleWindow }, spec.tableKeys, spec.rows.length, { objectSuffix: format === 'jsonl' ? '.jsonl' : '.json' });
    });
}

// ---------------------------------------------------------------------------------------------------
// Shaping (drop, rename), in the csv-types and jsonl lanes

/** @param {Features} features */
function shapingArbitrary(features) {
  // Half the cases: the others read every column as the file names it.
  // Now and then an option naming a column the header lacks or in another case, a column renamed twice,
  // a column typed and dropped (issue 46: the generators named only real columns).
  const trouble = fc.noBias(fc.integer({ min: -30, max: OPTION_TROUBLES.length })).map((n) => (n <= 0 ? 'none' : OPTION_TROUBLES[n - 1]));
  return features.has('shaping') ? fc.option(fc.record({ drop: fc.nat(3), rename: fc.nat(3), partitionRenamed: fc.nat(3).map((n) => n === 3), trouble }), { nil: undefined, freq: 2 }) : fc.constant(undefined);
}

const OPTION_TROUBLES = ['caseDrop', 'absentDrop', 'absentRename', 'renameTwice', 'typeDropped', 'caseTtl'];

/** A name in the other case (`ssn` for `SSN`): another name, as options compare them. @param {string} name */
function otherCase(name) {
  const swapped = [...name].map((char) => (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase())).join('');
  return swapped === name ? `${name}_` : swapped;
}

/**
 * The columns a case drops and renames: among its other columns the first `drop`, the next `rename`
 * (to new names no column has), and the partition key read from a column of another name; and the
 * spec's trouble: a drop of a column in the other case (`--drop ssn`, header `SSN`) or of one the header
 * lacks, a rename of one it lacks, a column renamed twice (`a:p,a:q`); typeDropped and caseTtl are the
 * lane's (types and ttl).
 * @param {{ drop: number, rename: number, partitionRenamed: boolean, trouble?: string } | undefined} spec
 * @param {string[]} others  the non-key columns, as the file names them
 * @param {string} partition
 */
function shapingOf(spec, others, partition) {
  if (spec === undefined) return { drop: [], rename: {}, partitionInFile: partition, options: {} };
  const drop = others.slice(0, Math.min(spec.drop, others.length));
  /** @type {Record<string, string>} */
  const rename = Object.fromEntries(others.slice(drop.length, drop.length + spec.rename).map((name, i) => [name, `renamed_${i}`]));
  const partitionInFile = spec.partitionRenamed ? `file_${partition}` : partition;
  if (spec.partitionRenamed) rename[partitionInFile] = partition;
  /** @type {{ drop?: string[], rename?: Record<string, string> | string }} */
  const options = { ...(drop.length === 0 ? {} : { drop }), ...(Object.keys(rename).length === 0 ? {} : { rename }) };
  if (spec.trouble === 'caseDrop') options.drop = [...drop, otherCase(others[0] ?? 'SSN')];
  if (spec.trouble === 'absentDrop') options.drop = [...drop, 'ssn'];
  if (spec.trouble === 'absentRename') options.rename = { ...rename, not_in_file: 'elsewhere' };
  if (spec.trouble === 'renameTwice') {
    const twice = others.find((name) => !drop.includes(name) && !/[,:]/.test(name)) ?? partitionInFile;
    options.rename = [...Object.entries(rename).filter(([from]) => from !== twice), [twice, 'first_name'], [twice, 'second_name']].map(([from, to]) => `${from}:${to}`).join(',');
  }
  return { drop, rename, partitionInFile, options };
}

/**
 * A JSON Lines case's drops and renames: some of its plain attributes dropped, some renamed (nested onto
 * v, which a line may hold too: two attributes of one name, a rejected line), the partition key read
 * from an attribute of another name.
 * @param {{ drop: number, rename: number, partitionRenamed: boolean, trouble?: string } | undefined} spec @param {string} partition
 */
function jsonShapingOf(spec, partition) {
  if (spec === undefined) return { partitionInFile: partition, options: {} };
  // A line's names differ from line to line: a drop of a name no line has is no error; a rename twice is.
  const drop = [...['Zoë', '__x', 'Item'].slice(0, spec.drop), ...(spec.trouble === 'absentDrop' || spec.trouble === 'caseDrop' ? ['ZOË', 'ssn'] : [])];
  /** @type {Record<string, string>} */
  const rename = Object.fromEntries(/** @type {Array<[string, string]>} */ ([['w', 'renamed_w'], ['nested', 'v'], ['row', 'line_no']]).slice(0, spec.rename));
  const partitionInFile = spec.partitionRenamed ? `file_${partition}` : partition;
  if (spec.partitionRenamed) rename[partitionInFile] = partition;
  if (spec.trouble === 'renameTwice') return { partitionInFile, options: { ...(drop.length === 0 ? {} : { drop }), rename: [...Object.entries(rename), ['w', 'w1'], ['w', 'w2']].map(([from, to]) => `${from}:${to}`).join(',') } };
  return { partitionInFile, options: { ...(drop.length === 0 ? {} : { drop }), ...(Object.keys(rename).length === 0 ? {} : { rename }) } };
}

/**
 * A TTL column and nested names, under the `shaping` feature: a TTL column read (`expires`) in two cases
 * in five, filled from the import's time (`expires:+30d`) in two (its file column then left out or
 * dropped; often enough that stops, resumes and hand-overs meet it); names nested in half the cases, now
 * and then with a name that cannot be (inside another, or with an empty part).
 * @param {Features} features
 */
function ttlNestArbitrary(features) {
  const none = { ttl: 'none', duration: '+30d', typedN: false, dropFilled: false, ttlAt: 0, nest: false, trouble: 'none' };
  if (!features.has('shaping')) return fc.constant(none);
  return fc.record({
    ttl: fc.constantFrom('none', 'column', 'column', 'filled', 'filled'),
    duration: fc.constantFrom('+30d', '+1h', '+90s', '+36500d', '+1s'),
    typedN: fc.boolean(),
    dropFilled: fc.boolean(),
    ttlAt: fc.nat(6),
    nest: fc.boolean(),
    trouble: fc.nat(11).map((n) => (n === 11 ? 'conflict' : n === 10 ? 'empty' : 'none')),
  });
}

/** TTL values as a cell or a JSON string holds them: seconds, milliseconds, ISO 8601 dates with offsets, before 1970, leap seconds. */
const TTL_GOOD = ['1790000000', '0', '-86400', '0001790000000', '1790000000000', '2026-11-26', '2026-11-26T14:05Z', '2026-11-26T15:05:09.75+01:00', '1969-12-31T23:59:59.5Z', '2016-12-31T23:59:60Z', '0050-01-01', '2026-11-26T09:35-0430', '2026-11-27T00:05:09,123456789+10', '9999-12-31T23:59:59Z', '2024-02-29T00:00:00-00:00'];
/** Values that are no TTL: no zone, no real day or hour, other number spellings. */
const TTL_BAD = ['soon', '2026-02-30', '2026-11-26T14:05', '1.5', '1e9', ' 1', '2026-11-26T24:00Z', '123456789012345678901234567890123456789', '2026-11-26 14:05Z'];

/** A TTL cell: mostly good, sometimes empty or (badValues) bad. @param {Features} features */
function ttlCell(features) {
  return fc.record({ pick: fc.nat(99), variant: fc.nat(40) }).map(({ pick, variant }) => (pick < 10 ? '' : features.has('badValues') && pick >= 88 ? TTL_BAD[variant % TTL_BAD.length] : TTL_GOOD[variant % TTL_GOOD.length]));
}

/** Names the csv-types lane's columns take under nest: maps one to three deep, and plain names. */
const NESTED_NAMES = /** @type {Record<string, string>} */ ({ a: 'm.a', b: 'm.b', c: 'm.n.c', d: 'p.q.r', e: 'e', f: 'f', Zoë: 'Zoë.ü', 'x y': 'x y.z' });

// Lane: every CSV type, emptyCell

const ALL_TYPES = ['S', 'N', 'BOOL', 'B', 'M', 'L', 'SS', 'NS', 'BS'];

/**
 * A cell for a column of this type: mostly good, sometimes empty or bad.
 * @param {Features} features
 */
function typedCell(features) {
  const bad = features.has('badValues');
  const odd = features.has('oddBase64');
  const spell = features.has('numberSpellings');
  /** @type {Record<string, string[]>} */
  const good = {
    S: ['Ann', 'x y', 'Zoë', ' padded ', 'a|b', 'tab\there', 'line\nbreak', '"q"', '\u0000nul', '{"a":1}'],
    N: ['0', '1', '-1', '3.14', '1e3', '12345678901234567890123', '1E-130', ...(spell ? ['007', '7.0', '-0', '.5', '5.'] : [])],
    BOOL: ['true', 'false', 'TRUE', 'False'],
    B: ['AQ==', 'AQI=', 'AQID', '', '////', 'AAAA', ...(odd ? ['AR==', 'AQJ=', 'Ag=='] : [])],
    M: ['{}', '{"a":1}', '{"a":{"b":[1,"x",null,true]}}', '{"n":12345678901234567890123}', '{"s":"\\u0000"}', '{"a":1,"a":1}'],
    L: ['[]', '[1,2]', '[{"a":[]},"x",null,false]', '[1.50,-0,1E+3]'],
    SS: ['a', 'a|b', 'b|a|c', 'Zoë|x y', ' | '],
    NS: ['1', '1|2', '3|1|2', '12345678901234567890123|12345678901234567890124', ...(spell ? ['7|007.5', '1e3|999'] : [])],
    BS: ['AQ==', 'AQ==|AQI=', 'AAAA|AQID|AQ==', ...(odd ? ['AR==|AQI='] : [])],
  };
  /** @type {Record<string, string[]>} */
  const wrong = {
    S: [],
    N: ['abc', '+5', '1e126', '1.2.3', '123456789012345678901234567890123456789'],
    BOOL: ['yes', '1', ' true'],
    B: BAD_BASE64,
    M: ['[1]', '{"a":}', '"x"', '{"":1}', '{"a":1,"a":2}', '{"n":1e999}', '{"s":"\\ud800"}', '5'],
    L: ['{}', '[1,]', '[1e200]', 'null'],
    SS: ['a||b', 'a|', '|a', 'a|a'],
    NS: ['1|01', '1|x', '1|1.0', '1||2', '7|0.7e1'],
    BS: ['AQ==|AQ==', 'AQ==|AQ', 'AQ==||AQI=', ...(odd ? ['AQ==|AR=='] : [])],
  };
  return fc.record({ pick: fc.nat(99), variant: fc.nat(30), quote: fc.nat(7).map((n) => n === 7) }).map(({ pick, variant, quote }) => ({
    /** @param {string} type */
    text: (type) => {
      if (pick < 12) return '';
      if (bad && pick >= 92 && wrong[type].length > 0) return wrong[type][variant % wrong[type].length];
      return good[type][variant % good[type].length];
    },
    quote,
  }));
}

/** @param {Features} features @param {number} maxRows */
function csvTypesLane(features, maxRows) {
  const row = fc.record({ pk: keyChoice(12), sk: keyChoice(12), cells: fc.array(typedCell(features), { minLength: 6, maxLength: 6 }), emptyKey: fc.nat(40).map((n) => n === 40 && features.has('badValues')), ttl: ttlCell(features) });
  return fc
    .record({
      tableKeys: tableKeysArbitrary(features),
      columns: fc.uniqueArray(fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'Zoë', 'x y'), type: fc.constantFrom(...ALL_TYPES) }), { selector: (column) => column.name, minLength: 1, maxLength: 6 }),
      emptyCell: fc.constantFrom('omit', 'null', 'empty-string'),
      setSeparator: fc.constantFrom('|', '|', ';'),
      rows: fc.array(row, { maxLength: maxRows, size: 'max' }),
      shape: fileShape,
      shuffleWindow,
      shaping: shapingArbitrary(features),
      ttlNest: ttlNestArbitrary(features),
    })
    .map((spec) => {
      const keys = rowKeys(spec.tableKeys, spec.rows, features, 'csv');
      const { partition, sort } = spec.tableKeys;
      const { ttlNest } = spec;
      const columns = spec.columns
        .filter((column) => column.name !== partition.name && column.name !== sort?.name)
        .map((column) => (ttlNest.nest ? { ...column, name: NESTED_NAMES[column.name] ?? column.name } : column));
      const separate = (/** @type {string} */ text) => (spec.setSeparator === '|' ? text : text.replaceAll('|', spec.setSeparator));
      const shaping = shapingOf(spec.shaping, columns.map((column) => column.name), partition.name);
      // The TTL column among the others (read, or in the file but dropped where the import fills it); a
      // column whose name cannot be nested with the others.
      const ttlInFile = ttlNest.ttl === 'column' || (ttlNest.ttl === 'filled' && ttlNest.dropFilled);
      const ttlAt = ttlNest.ttlAt % (columns.length + 1);
      const odd = ttlNest.nest && ttlNest.trouble !== 'none' ? (ttlNest.trouble === 'conflict' ? 'm' : ['a..b', '.a', 'a.'][ttlNest.ttlAt % 3]) : undefined;
      const names = columns.map((column) => column.name);
      if (ttlInFile) names.splice(ttlAt, 0, 'expires');
      if (odd !== undefined) names.push(odd);
      const header = [shaping.partitionInFile, ...(sort === undefined ? [] : [sort.name]), ...names];
      const lines = spec.rows.map((r, i) => {
        const cells = [r.emptyKey ? '' : keys[i].pk.text, ...(sort === undefined ? [] : [/** @type {{ text: string }} */ (keys[i].sk).text])];
        /** @type {string[]} */
        const others = [];
        columns.forEach((column, c) => {
          const text = r.cells[c].text(column.type);
          others.push(['SS', 'NS', 'BS'].includes(column.type) ? separate(text) : text);
        });
        if (ttlInFile) others.splice(ttlAt, 0, r.ttl);
        if (odd !== undefined) others.push(`x${i}`);
        cells.push(...others);
        return cells.map((cell, c) => csvField(cell, r.cells[c % r.cells.length].quote)).join(',');
      });
      // Types name the columns as written: a dropped column has none, a renamed one its new name's.
      const typed = columns.filter((column) => column.type !== 'S' && !shaping.drop.includes(column.name));
      const columnTypes = { ...keyColumnTypes(spec.tableKeys), ...Object.fromEntries(typed.map((column) => [shaping.rename[column.name] ?? column.name, column.type])) };
      if (ttlNest.ttl === 'column' && ttlNest.typedN) columnTypes.expires = 'N';
      /** @type {Record<string, any>} */
      const options = { format: 'csv', columnTypes, emptyCell: spec.emptyCell, ...(spec.setSeparator === '|' ? {} : { setSeparator: spec.setSeparator }), shuffleWindow: spec.shuffleWindow, ...shaping.options, ...ttlNestOptions(ttlNest, 'expires', shaping.options.drop) };
      // `--types a:N --drop a`: a contradiction; `--ttl EXPIRES` for a column `expires`: a column the header lacks.
      const trouble = spec.shaping?.trouble;
      if (trouble === 'typeDropped' && names.length > 0) {
        const dropped = shaping.drop[0] ?? names[0];
        options.drop = [...new Set([...(options.drop ?? []), dropped])];
        options.columnTypes = { ...columnTypes, [dropped]: 'N' };
      }
      if (trouble === 'caseTtl' && ttlNest.ttl === 'column') options.ttl = 'EXPIRES';
      return importCase(joinLines([header.map((name) => csvField(name, false)).join(','), ...lines], spec.shape), options, spec.tableKeys, spec.rows.length, { objectSuffix: '.csv' });
    });
}

/**
 * The ttl and nest options of a case: the TTL column read or filled (then dropped from the file where it
 * has one), nest on or off.
 * @param {{ ttl: string, duration: string, dropFilled: boolean, nest: boolean }} spec @param {string} column
 * @param {string[] | undefined} drop  the case's other drops
 */
function ttlNestOptions(spec, column, drop) {
  /** @type {{ ttl?: string, nest?: boolean, drop?: string[] }} */
  const options = {};
  if (spec.ttl === 'column') options.ttl = column;
  if (spec.ttl === 'filled') options.ttl = `${column}:${spec.duration}`;
  if (spec.ttl === 'filled' && spec.dropFilled) options.drop = [...(drop ?? []), column];
  if (spec.nest) options.nest = true;
  return options;
}

// ---------------------------------------------------------------------------------------------------
// Lane: JSON Lines

/**
 * JSON values to write, as jsonText takes them (numbers as { number: text }).
 * @param {Features} features
 */
function jsonValueArbitrary(features, bad = false) {
  const number = fc.oneof(
    fc.constantFrom('0', '-0', '1', '1.50', '1E+3', '2e-5', '12345678901234567890123', '12345678901234567890124', '0.1', '1e-130', '9.99e125'),
    fc.integer().map(String),
    ...(bad ? [fc.constantFrom('1e126', '123456789012345678901234567890123456789', '1e-131')] : []),
  ).map((text) => ({ number: text }));
  const string = fc.oneof(fc.constantFrom('', 'Ann', 'Zoë', '\u0000', 'a\u0001b', 'tab\t', 'line\nbreak', '\u2028', '"q"', '\\', '😀', 'k\u007f'), fc.string({ maxLength: 6 }), ...(bad ? [fc.constant('\ud800')] : []));
  const { value } = fc.letrec((/** @type {(name: string) => fc.Arbitrary<unknown>} */ tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, string, number, fc.boolean(), fc.constant(null), tie('list'), tie('map')),
    list: fc.array(tie('value'), { maxLength: 3 }),
    map: fc.dictionary(fc.constantFrom('a', 'b', 'N', 'S', 'M', 'x y', ...(bad ? [''] : [])), tie('value'), { maxKeys: 3 }).map((members) => ({ members })),
  }));
  return value;
}

/** @param {Features} features @param {number} maxRows */
function jsonLinesLane(features, maxRows) {
  const bad = features.has('badValues');
  const line = fc.record({
    pk: keyChoice(16),
    sk: keyChoice(16),
    values: fc.dictionary(fc.constantFrom('v', 'w', 'Zoë', 'nested', '__x', 'Item', 'v.a', 'v.b.c', 'w.x.y', 'Zoë.ü', ...(bad ? ['a..b', '.a'] : [])), jsonValueArbitrary(features), { maxKeys: 3 }),
    // The TTL attribute: present in most lines (in fewer where the import fills it), of every kind of value.
    ttl: fc.record({ present: fc.nat(9), value: fc.oneof(ttlCell(features).map((text) => (text === '' ? '""' : jsonString(text))), fc.constantFrom('1790000000', '1790000000000', '-86400', '0', '-0', 'null', ...(bad ? ['1.5', '1e9', 'true', '[1]', '{"a":1}'] : []))) }),
    typed: fc.record({ n: fc.option(fc.constantFrom('42', '007', '-0.50', '1e3', '12345678901234567890123'), { nil: undefined }), tags: fc.option(fc.constantFrom('a|b', 'b'), { nil: undefined }), flag: fc.option(fc.constantFrom('TRUE', 'false'), { nil: undefined }), bin: fc.option(fc.constantFrom('AQ==', 'AQID', ...(features.has('oddBase64') ? ['AR=='] : [])), { nil: undefined }) }),
    // One fault a line at most: the line's shape, its key, or one bad value.
    fault: bad ? fc.noBias(fc.integer({ min: -40, max: 9 })).map((n) => (n <= 0 ? 'none' : ['truncated', 'array', 'noKey', 'keyNull', 'duplicateName', 'emptyName', 'invalidUtf8', 'wrongKeyType', 'badValue'][n - 1])) : fc.constant('none'),
    badValue: fc.oneof(
      jsonValueArbitrary(features, true).map((value) => ['bad', jsonText(value)]),
      fc.constantFrom(['n', '"x"'], ['n', '""'], ['n', 'true'], ['tags', '"a||b"'], ['tags', '"a|a"'], ['tags', '[]'], ['tags', '["a",1]'], ['flag', '"yes"'], ['flag', '1'], ['bin', '"AQ"'], ['bin', '5'], ['n', '1e126']),
    ),
    escape: fc.nat(9).map((n) => n === 9),
  });
  return fc
    .record({ tableKeys: tableKeysArbitrary(features), rows: fc.array(line, { maxLength: maxRows, size: 'max' }), keysTyped: fc.boolean(), shape: fileShape, shuffleWindow, shaping: shapingArbitrary(features), ttlNest: ttlNestArbitrary(features) })
    .map((spec) => {
      const { partition, sort } = spec.tableKeys;
      const { ttlNest } = spec;
      const ttlShare = ttlNest.ttl === 'filled' && !ttlNest.dropFilled ? 2 : 7;
      const shaping = jsonShapingOf(spec.shaping, partition.name);
      const keys = rowKeys(spec.tableKeys, spec.rows, features, 'json');
      /** @type {Record<string, string>} */
      const columnTypes = { n: 'N', tags: 'SS', flag: 'BOOL', bin: 'B' };
      for (const key of [partition, sort]) {
        if (key !== undefined && (key.type === 'B' || (key.type === 'N' && spec.keysTyped))) columnTypes[key.name] = key.type;
      }
      const keyJson = (/** @type {{ name: string, type: KeyType }} */ key, /** @type {string} */ text) => (key.type === 'N' && columnTypes[key.name] === undefined ? text : jsonString(text));
      const lines = spec.rows.map((r, i) => {
        /** @type {Array<[string, string]>} */
        const members = [];
        if (r.fault !== 'noKey') members.push([shaping.partitionInFile, r.fault === 'keyNull' ? 'null' : r.fault === 'wrongKeyType' ? (partition.type === 'S' ? '5' : 'true') : keyJson(partition, keys[i].pk.text)]);
        if (sort !== undefined) members.push([sort.name, keyJson(sort, /** @type {{ text: string }} */ (keys[i].sk).text)]);
        for (const [name, value] of Object.entries(r.values)) if (name !== partition.name && name !== sort?.name) members.push([name, jsonText(value)]);
        for (const [name, value] of Object.entries(r.typed)) if (value !== undefined) members.push([name, name === 'n' && /^-?\d/.test(value) && i % 2 === 0 && !value.startsWith('00') ? value : jsonString(value)]);
        members.push(['row', String(i)]);
        if (r.ttl.present < ttlShare) members.splice(Math.min(members.length, 1 + (r.ttl.present % 3)), 0, ['exp', r.ttl.value]);
        if (r.fault === 'duplicateName') members.push(['row', i % 2 === 0 ? String(i) : String(i + 1)]);
        if (r.fault === 'emptyName') members.push(['', '1']);
        if (r.fault === 'badValue') members.push(/** @type {[string, string]} */ (r.badValue));
        const text = `{${members.map(([name, value]) => `${jsonString(name, r.escape)}:${value}`).join(r.escape ? ' , ' : ',')}}`;
        if (r.fault === 'truncated') return text.slice(0, -1);
        if (r.fault === 'array') return `[${text}]`;
        if (r.fault === 'invalidUtf8') return Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from([0xff]), Buffer.from('}')]);
        return text;
      });
      const options = { format: 'jsonl', columnTypes, shuffleWindow: spec.shuffleWindow, ...shaping.options, ...ttlNestOptions(ttlNest, 'exp', shaping.options.drop) };
      return importCase(joinLines(lines, spec.shape), options, spec.tableKeys, spec.rows.length, { objectSuffix: '.jsonl' });
    });
}

// ---------------------------------------------------------------------------------------------------
// Lane: DynamoDB JSON

/** Typed values of every type, as jsonText takes them; some bad. @param {Features} features */
function typedValueArbitrary(features, bad = false) {
  const odd = features.has('oddBase64');
  const typed = (/** @type {string} */ type, /** @type {any} */ inner) => ({ members: { [type]: inner } });
  const scalar = fc.oneof(
    fc.constantFrom('', 'x', 'Zoë', '\u0000', 'line\nbreak').map((s) => typed('S', s)),
    fc.constantFrom('0', '-0', '1.50', '12345678901234567890123', '1E+3', ...(features.has('numberSpellings') ? ['007', '.5'] : [])).map((n) => typed('N', n)),
    fc.constantFrom('AQ==', '', 'AQID', ...(odd ? ['AR==', 'AQJ='] : [])).map((b) => typed('B', b)),
    fc.boolean().map((b) => typed('BOOL', b)),
    fc.constant(typed('NULL', true)),
    fc.constantFrom(['a'], ['a', 'b'], ['Zoë', 'x y']).map((ss) => typed('SS', ss)),
    fc.constantFrom(['1'], ['1', '2'], ['12345678901234567890123', '12345678901234567890124']).map((ns) => typed('NS', ns)),
    fc.constantFrom(['AQ=='], ['AQ==', 'AQI='], ...(odd ? [['AR==', 'AQI=']] : [])).map((bs) => typed('BS', bs)),
  );
  const wrong = fc.constantFrom(
    typed('N', { number: '5' }),
    typed('N', 'abc'),
    typed('B', 'AQ'),
    typed('BOOL', 'true'),
    typed('NULL', false),
    typed('SS', []),
    typed('SS', ['a', 'a']),
    typed('NS', ['1', '1.0']),
    typed('BS', ['AQ==', 'AQ==']),
    ...(odd ? [typed('BS', ['AQ==', 'AR=='])] : []),
    typed('SS', [{ number: '1' }]),
    typed('X', 'y'),
    { members: { S: 'a', N: '1' } },
    { members: {} },
    'plain',
    typed('M', { members: { '': typed('S', 'x') } }),
    typed('S', '\ud800'),
  );
  const { value } = fc.letrec((/** @type {(name: string) => fc.Arbitrary<unknown>} */ tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map'), ...(bad ? [{ arbitrary: wrong, weight: 1 }] : [])),
    list: fc.array(tie('value'), { maxLength: 3 }).map((members) => typed('L', members)),
    map: fc.dictionary(fc.constantFrom('a', 'b', 'S', 'x y'), tie('value'), { maxKeys: 3 }).map((members) => typed('M', { members })),
  }));
  return value;
}

/** @param {Features} features @param {number} maxRows */
function dynamodbJsonLane(features, maxRows) {
  const bad = features.has('badValues');
  const line = fc.record({
    pk: keyChoice(16),
    sk: keyChoice(16),
    kind: fc.constantFrom('Item', 'Item', 'NewImage', 'Keys'),
    values: fc.dictionary(fc.constantFrom('v', 'w', 'Zoë', 'doc'), typedValueArbitrary(features), { maxKeys: 3 }),
    // One fault a line at most.
    fault: bad ? fc.noBias(fc.integer({ min: -40, max: 7 })).map((n) => (n <= 0 ? 'none' : ['notJson', 'noImage', 'imageNotObject', 'noKey', 'keyType', 'emptyKey', 'badValue'][n - 1])) : fc.constant('none'),
    badValue: typedValueArbitrary(features, true),
  });
  return fc
    .record({ tableKeys: tableKeysArbitrary(features), rows: fc.array(line, { maxLength: maxRows, size: 'max' }), shape: fileShape, shuffleWindow })
    .map((spec) => {
      const { partition, sort } = spec.tableKeys;
      const keys = rowKeys(spec.tableKeys, spec.rows, features, 'csv');
      const lines = spec.rows.map((r, i) => {
        /** @type {Record<string, any>} */
        const key = {};
        if (r.fault !== 'noKey') key[partition.name] = { members: { [r.fault === 'keyType' ? (partition.type === 'S' ? 'N' : 'S') : partition.type]: r.fault === 'emptyKey' ? '' : r.fault === 'keyType' ? '1' : keys[i].pk.text } };
        if (sort !== undefined) key[sort.name] = { members: { [sort.type]: /** @type {{ text: string }} */ (keys[i].sk).text } };
        const item = { ...r.values, ...(r.fault === 'badValue' ? { bad: r.badValue } : {}), ...key, row: { members: { N: String(i) } } };
        if (r.fault === 'notJson') return `{"Item":${jsonText({ members: item })}`;
        if (r.fault === 'noImage') return jsonText({ members: { Metadata: { members: {} } } });
        if (r.fault === 'imageNotObject') return jsonText({ members: { Item: [] } });
        const metadata = { members: { WriteTimestampMicros: { members: { N: '1732400000000000' } } } };
        if (r.kind === 'Item') return jsonText({ members: { Item: { members: item } } });
        if (r.kind === 'NewImage') return jsonText({ members: { Metadata: metadata, Keys: { members: key }, NewImage: { members: item } } });
        return jsonText({ members: { Metadata: metadata, Keys: { members: key }, OldImage: { members: item } } });
      });
      return importCase(joinLines(lines, spec.shape), { format: 'dynamodb-json', shuffleWindow: spec.shuffleWindow }, spec.tableKeys, spec.rows.length, { objectSuffix: '.json' });
    });
}

// ---------------------------------------------------------------------------------------------------
// Lane: delete mode

/** @param {Features} features @param {number} maxRows */
function deleteLane(features, maxRows) {
  const row = fc.record({ pk: keyChoice(12), sk: keyChoice(12), emptyKey: fc.nat(30).map((n) => n === 30 && features.has('badValues')), junk: fc.nat(3) });
  return fc
    .record({
      format: fc.constantFrom('csv', 'jsonl', 'dynamodb-json'),
      tableKeys: tableKeysArbitrary(features),
      initial: fc.array(fc.record({ pk: keyChoice(12), sk: keyChoice(12) }), { maxLength: 30 }),
      rows: fc.array(row, { maxLength: maxRows, size: 'max' }),
      shape: fileShape,
      shuffleWindow,
    })
    .map((spec) => {
      const { partition, sort } = spec.tableKeys;
      const syntax = spec.format === 'csv' ? 'csv' : 'json';
      // What the table holds: items of pool keys, written canonical (they go in by the harness, not the import).
      // Each key once (one batch may not name a key twice).
      /** @type {Map<string, Record<string, any>>} */
      const seeded = new Map();
      rowKeys(spec.tableKeys, spec.initial.map((key) => ({ pk: { ...key.pk, back: 0 }, sk: { ...key.sk, back: 0 } })), features, 'csv').forEach((key, i) => {
        /** @type {Record<string, any>} */
        const item = { [partition.name]: storedKey(partition.type, key.pk.text), seeded: { S: `i${i}` } };
        if (sort !== undefined) item[sort.name] = storedKey(sort.type, /** @type {{ text: string }} */ (key.sk).text);
        seeded.set(JSON.stringify([key.pk.identity, key.sk?.identity]), item);
      });
      const initialItems = [...seeded.values()];
      const keys = rowKeys(spec.tableKeys, spec.rows, features, syntax);
      // Other members are not read in delete mode: bad ones there change nothing.
      const junk = ['x', 'not a number', '{', 'AQ'];
      let bytes;
      /** @type {Record<string, any>} */
      let options;
      let objectSuffix;
      if (spec.format === 'csv') {
        const header = [partition.name, ...(sort === undefined ? [] : [sort.name]), 'n'];
        const lines = spec.rows.map((r, i) => [r.emptyKey ? '' : keys[i].pk.text, ...(sort === undefined ? [] : [/** @type {{ text: string }} */ (keys[i].sk).text]), junk[r.junk]].map((cell) => csvField(cell, false)).join(','));
        bytes = joinLines([header.join(','), ...lines], spec.shape);
        options = { format: 'csv', columnTypes: { ...keyColumnTypes(spec.tableKeys), n: 'N' } };
        objectSuffix = '.csv';
      } else if (spec.format === 'jsonl') {
        /** @type {Record<string, string>} */
        const columnTypes = { n: 'N' };
        for (const key of [partition, sort]) if (key !== undefined && key.type !== 'S') columnTypes[key.name] = key.type;
        const lines = spec.rows.map((r, i) => {
          const members = [`${jsonString(partition.name)}:${jsonString(r.emptyKey ? '' : keys[i].pk.text)}`];
          if (sort !== undefined) members.push(`${jsonString(sort.name)}:${jsonString(/** @type {{ text: string }} */ (keys[i].sk).text)}`);
          members.push(`"n":${jsonString(junk[r.junk])}`);
          return `{${members.join(',')}}`;
        });
        bytes = joinLines(lines, spec.shape);
        options = { format: 'jsonl', columnTypes };
        objectSuffix = '.jsonl';
      } else {
        const lines = spec.rows.map((r, i) => {
          /** @type {Record<string, any>} */
          const item = { [partition.name]: { members: { [partition.type]: r.emptyKey ? '' : keys[i].pk.text } }, n: { members: { N: junk[r.junk] } } };
          if (sort !== undefined) item[sort.name] = { members: { [sort.type]: /** @type {{ text: string }} */ (keys[i].sk).text } };
          return jsonText({ members: { Item: { members: item } } });
        });
        bytes = joinLines(lines, spec.shape);
        options = { format: 'dynamodb-json', columnTypes: {} };
        objectSuffix = '.json';
      }
      return importCase(bytes, { ...options, mode: 'delete', shuffleWindow: spec.shuffleWindow }, spec.tableKeys, spec.rows.length, { initialItems, objectSuffix });
    });
}

/** A key as the table stores it: numbers as written (DynamoDB normalizes), binaries canonical. @param {KeyType} type @param {string} text */
export function storedKey(type, text) {
  if (type === 'B') return { B: Buffer.from(text, 'base64').toString('base64') };
  return { [type]: text };
}

// ---------------------------------------------------------------------------------------------------
// Lane: spread on sorted files

/** S keys for sorted files: where UTF-8's byte order and UTF-16's code-unit order disagree too. */
const SPREAD_S = ['a', 'a\u0000', 'a\u0000b', 'a\u0001', 'ab', 'b', 'k\u00e9', 'k\ue000', 'k\uff01', 'k😀', 'k😀x', 'z'];

/**
 * DynamoDB's order of two key values of one type: S by UTF-8 bytes, N by value, B by bytes.
 * @param {KeyType} type @param {{ identity: string, text: string }} a @param {{ identity: string, text: string }} b
 */
function dynamoOrder(type, a, b) {
  if (type === 'S') return Buffer.compare(Buffer.from(a.text, 'utf8'), Buffer.from(b.text, 'utf8'));
  if (type === 'B') return Buffer.compare(Buffer.from(a.text, 'base64'), Buffer.from(b.text, 'base64'));
  return N_ORDER.indexOf(Number(a.identity.slice(1))) - N_ORDER.indexOf(Number(b.identity.slice(1)));
}

/** N_VALUES' indices in numeric order: -7, 0, 1e-130, 3.14, 7, 1.2..3e22, 1.2..4e22, 9.9..e125. */
const N_ORDER = [2, 1, 5, 6, 0, 3, 4, 7];

/** @param {Features} features @param {number} maxRows */
function spreadLane(features, maxRows) {
  const row = fc.record({
    pk: keyChoice(12),
    sk: keyChoice(12),
    repeat: fc.integer({ min: 1, max: 3 }),
    value: fc.constantFrom('plain', 'with space', 'comma, inside', 'line\nbreak', 'crlf\r\ninside', ''),
    // A row the import rejects: a field too few, an empty key, text after a closing quote.
    bad: fc.noBias(fc.integer({ min: -12, max: 3 })).map((n) => (n <= 0 ? 'none' : ['fieldCount', 'emptyKey', 'badQuote'][n - 1])),
  });
  return fc
    .record({
      tableKeys: tableKeysArbitrary(features.has('binaryOrder') ? features : new Set([...features].filter((feature) => feature !== 'binaryKeys'))),
      rows: fc.array(row, { maxLength: maxRows, size: 'max' }),
      crlf: fc.boolean(),
      spread: fc.integer({ min: 2, max: 6 }),
      shuffleWindow: fc.constantFrom(0, 0, 0, 7),
    })
    .map((spec) => {
      const { partition, sort } = spec.tableKeys;
      const keyed = rowKeys(spec.tableKeys, spec.rows.map((r) => ({ pk: { ...r.pk, back: 0 }, sk: { ...r.sk, back: 0 } })), features, 'csv').map((key, i) => ({ key, row: spec.rows[i] }));
      const pool = SPREAD_S.filter((key) => (features.has('nulKeys') || !/[\u0000-\u001f]/.test(key)) && (features.has('utf8Order') || !/[\ue000-\uffff]/.test(key)));
      if (partition.type === 'S') for (const each of keyed) each.key.pk = { identity: `S${pool[each.row.pk.index % pool.length]}`, text: pool[each.row.pk.index % pool.length] };
      // Sorted by the table's key in DynamoDB's order; one key's rows (its repeats, its spellings) stay together.
      const order = (/** @type {typeof keyed[0]} */ a, /** @type {typeof keyed[0]} */ b) =>
        dynamoOrder(partition.type, a.key.pk, b.key.pk) || (sort === undefined ? 0 : dynamoOrder(sort.type, /** @type {{ identity: string, text: string }} */ (a.key.sk), /** @type {{ identity: string, text: string }} */ (b.key.sk)));
      const sorted = keyed.filter((each) => each.row.bad === 'none').sort(order);
      const bad = keyed.filter((each) => each.row.bad !== 'none');
      /** @type {string[]} */
      const lines = [];
      sorted.forEach((each, i) => {
        for (let r = 0; r < each.row.repeat; r++) {
          const cells = [each.key.pk.text, ...(sort === undefined ? [] : [/** @type {{ text: string }} */ (each.key.sk).text]), each.row.value === '' ? `v${i}.${r}` : each.row.value];
          lines.push(cells.map((cell) => csvField(cell, false)).join(','));
        }
        // Rows the import rejects, here and there: they write nothing, so their place is free.
        if (bad.length > 0 && (i * 7) % 5 === 0) {
          const kind = /** @type {typeof bad[0]} */ (bad.pop()).row.bad;
          const sortCell = sort === undefined ? [] : [csvField(/** @type {{ text: string }} */ (each.key.sk).text, false)];
          if (kind === 'fieldCount') lines.push('only-one-field');
          else if (kind === 'emptyKey') lines.push(['', ...sortCell, 'empty key'].join(','));
          else lines.push([`"${each.key.pk.text.replaceAll('"', '""')}"x`, ...sortCell, 'z'].join(','));
        }
      });
      const header = [partition.name, ...(sort === undefined ? [] : [sort.name]), 'v'].join(',');
      const end = spec.crlf ? '\r\n' : '\n';
      const bytes = Buffer.from(`${[header, ...lines].join(end)}${end}`);
      return importCase(bytes, { format: 'csv', columnTypes: keyColumnTypes(spec.tableKeys), shuffleWindow: spec.shuffleWindow, spread: spec.spread }, spec.tableKeys, lines.length, { objectSuffix: '.csv' });
    });
}

// ---------------------------------------------------------------------------------------------------
// Lane: a prefix job of mixed objects

/** Whether the zstd command-line tool is here (Node 20 has no zstd compressor). */
const HAS_ZSTD = spawnSync('zstd', ['--version']).status === 0;

/**
 * Bytes as zstd: two frames, cut in the middle (as a file written in parts is).
 * @param {Buffer} bytes
 */
function zstdOf(bytes) {
  const half = Math.floor(bytes.length / 2);
  const frame = (/** @type {Buffer} */ part) => spawnSync('zstd', ['-q', '-c'], { input: part }).stdout;
  return Buffer.concat([frame(bytes.subarray(0, half)), frame(bytes.subarray(half))]);
}

/**
 * @typedef {object} JobObject
 * @property {string} name     under the job's prefix
 * @property {Buffer} bytes    as stored
 * @property {Buffer} source   uncompressed
 * @property {'csv' | 'jsonl' | 'dynamodb-json'} format
 */

/** @param {Features} features @param {number} maxRows */
function prefixLane(features, maxRows) {
  const bad = features.has('badValues');
  const row = fc.record({ key: fc.nat(15), n: fc.oneof(fc.integer({ min: -999, max: 999 }).map(String), fc.constantFrom('12345678901234567890123', '1.50', '-0')), fault: bad ? fc.nat(25).map((n) => (n === 25 ? 'bad' : 'none')) : fc.constant('none') });
  const object = fc.record({
    format: fc.constantFrom(/** @type {const} */ ('csv'), /** @type {const} */ ('jsonl'), /** @type {const} */ ('dynamodb-json')),
    packing: fc.constantFrom('plain', 'plain', 'gzip', ...(HAS_ZSTD ? ['zstd'] : [])),
    rows: fc.array(row, { maxLength: maxRows, size: 'max' }),
    crlf: fc.boolean(),
  });
  return fc
    .record({ objects: fc.array(object, { minLength: 1, maxLength: 5 }), empties: fc.subarray(['empty.csv', 'nothing.csv.gz', 'header-only.csv', 'folder/']) })
    .map((spec) => {
      /** @type {JobObject[]} */
      const objects = spec.objects.map((o, k) => {
        const end = o.crlf ? '\r\n' : '\n';
        const id = (/** @type {number} */ key) => `o${k}-${key}`;
        /** @type {string[]} */
        let lines;
        if (o.format === 'csv') lines = ['id,name,n', ...o.rows.map((r, i) => (r.fault === 'bad' ? `${id(r.key)},row ${i},x` : `${id(r.key)},"row ${i}, of ${k}",${r.n}`))];
        else if (o.format === 'jsonl') lines = o.rows.map((r, i) => (r.fault === 'bad' ? `{"id":"${id(r.key)}"` : `{"id":"${id(r.key)}","row":${i},"n":${r.n}}`));
        else lines = o.rows.map((r, i) => (r.fault === 'bad' ? `{"Item":{"id":{"S":"${id(r.key)}"},"n":{"N":${r.n}}}}` : `{"Item":{"id":{"S":"${id(r.key)}"},"row":{"N":"${i}"},"n":{"N":"${r.n}"}}}`));
        const source = Buffer.from(lines.length === 0 ? '' : `${lines.join(end)}${end}`);
        const extension = o.format === 'csv' ? '.csv' : o.format === 'jsonl' ? '.jsonl' : '.json';
        const bytes = o.packing === 'gzip' ? gzipSync(source) : o.packing === 'zstd' ? zstdOf(source) : source;
        return { name: `part-${k}${extension}${o.packing === 'gzip' ? '.gz' : o.packing === 'zstd' ? '.zst' : ''}`, bytes, source, format: o.format };
      });
      for (const name of spec.empties) {
        const source = Buffer.from(name === 'header-only.csv' ? 'id,name,n\n' : '');
        objects.push({ name, bytes: name.endsWith('.gz') ? gzipSync(source) : source, source, format: 'csv' });
      }
      const tableKeys = /** @type {TableKeys} */ ({ partition: { name: 'id', type: 'S' } });
      const options = { columnTypes: { n: 'N' } };
      const rows = spec.objects.reduce((sum, o) => sum + o.rows.length, 0);
      const described = objects.map((o) => `${o.name}: ${JSON.stringify(o.source.toString('utf8'))}`).join('; ');
      const importCase_ = importCase(Buffer.alloc(0), options, tableKeys, rows, { objects });
      return Object.defineProperty({ ...importCase_, description: `prefix job of ${described}` }, fc.toStringMethod, { value: () => `prefix job of ${described}`, enumerable: false });
    });
}

// ---------------------------------------------------------------------------------------------------
// Lane: from-rejects round trips

/** @param {Features} features @param {number} maxRows */
function fromRejectsLane(features, maxRows) {
  const withBadValues = new Set([...features, 'badValues']);
  return fc
    .record({
      base: fc.oneof(csvTypesLane(withBadValues, maxRows), jsonLinesLane(withBadValues, maxRows), dynamodbJsonLane(withBadValues, maxRows), keysLane(withBadValues, maxRows)),
      fixEvery: fc.constantFrom(1, 2, 3, 1000),
    })
    .map(({ base, fixEvery }) => {
      // A rejects file is read as itself, in one place: no shuffle needed, none asked.
      const description = `${base.description} round trip: every ${fixEvery}. reject fixed`;
      return Object.defineProperty({ ...base, roundTrip: { fixEvery }, description }, fc.toStringMethod, { value: () => description, enumerable: false });
    });
}

/**
 * The rejects file fixed as a person would: every fixEvery-th row gets a key no other row has and its
 * other cells emptied (a CSV row, padded or cut to the header), or a JSON line of that key alone; the
 * other rows are left as they are (and are rejected again).
 * @param {string[][]} rows  the rejects files' rows, the header first (line, reason, message, then the source's)
 * @param {ImportCase} importCase  the first import's
 * @param {number} fixEvery
 * @returns {string}  the fixed file, CSV
 */
export function fixedRejectsFile(rows, importCase, fixEvery) {
  const [header, ...records] = rows;
  const keys = /** @type {TableKeys} */ (importCase.tableKeys);
  const fresh = (/** @type {KeyType} */ type, /** @type {number} */ i) => (type === 'S' ? `fixed-${i}` : type === 'N' ? String(100000 + i) : Buffer.from([0xf0, i & 0xff, i >> 8]).toString('base64'));
  const format = importCase.options.format ?? 'csv';
  const fixed = records.map((row, i) => {
    if (i % fixEvery !== 0) return row;
    if (format === 'csv') {
      const names = header.slice(3);
      return [...row.slice(0, 3), ...names.map((name) => (name === keys.partition.name ? fresh(keys.partition.type, i) : name === keys.sort?.name ? fresh(keys.sort.type, i) : ''))];
    }
    const key = [keys.partition, keys.sort].filter((each) => each !== undefined);
    /** @type {Record<string, any>} */
    const members = {};
    for (const each of key) {
      const text = fresh(each.type, i);
      members[each.name] = format === 'dynamodb-json' ? { members: { [each.type]: text } } : each.type === 'N' && importCase.options.columnTypes[each.name] === undefined ? { number: text } : text;
    }
    const line = jsonText({ members: format === 'dynamodb-json' ? { Item: { members } } : members });
    return [...row.slice(0, 3), line];
  });
  return [header, ...fixed].map((row) => row.map((cell) => csvField(cell, false)).join(',')).join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------------
// Lane: stop, abandon, resume

/**
 * A stop of a run: after afterMs the reading stops (the first Ctrl-C); with abandon, abandonAfterMs
 * later the writes in flight are given up too (the second).
 * @typedef {{ afterMs: number, abandon: boolean, abandonAfterMs: number }} Stop
 */

/** @param {Features} features @param {{ maxRows?: number }} limits */
function resumeLane(features, limits) {
  const csvFeatures = new Set([...features].filter((feature) => feature !== 'shards' && feature !== 'segments'));
  // Most imports here take 50-300 ms: stops early on, often at once.
  const stop = fc.record({ afterMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 80 })), abandon: fc.nat(2).map((n) => n === 2), abandonAfterMs: fc.integer({ min: 0, max: 10 }) });
  return fc
    .record({
      base: fc.oneof(importCaseArbitrary(csvFeatures, { maxRows: Math.min(limits.maxRows ?? 300, 300) }), keysLane(features, 120), jsonLinesLane(features, 80), dynamodbJsonLane(features, 80)),
      stops: fc.array(stop, { minLength: 1, maxLength: 3 }),
    })
    .map(({ base, stops }) => {
      const description = `${base.description} stopped: ${JSON.stringify(stops)}`;
      return Object.defineProperty({ ...base, stops, description }, fc.toStringMethod, { value: () => description, enumerable: false });
    });
}

// ---------------------------------------------------------------------------------------------------
// Lanes: if-absent, newer, update

/** N versions: values with several spellings each (7 = 7.0 = 70E-1), so that ties meet spelled apart. */
const N_VERSIONS = [['1', '1.0', '10E-1'], ['2', '02', '2.00'], ['7', '7.0', '70E-1', '0.7e1'], ['-3', '-3.0'], ['0.5', '5e-1'], ['12345678901234567890123', '1.2345678901234567890123e22'], ['12345678901234567890124']];
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
/** S versions: ISO 8601 times in one zone and precision, which sort as text does; and text that does not. */
const S_VERSIONS = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', '2026-06-30T12:00:00Z', '2025-12-31T23:59:59Z', '2027-01-01T00:00:00Z', 'é', 'z'];

/**
 * @param {'if-absent' | 'newer' | 'update'} mode @param {Features} features @param {number} maxRows
 */
function writeModeLane(mode, features, maxRows) {
  const bad = features.has('badValues');
  const version = fc.record({ value: fc.nat(N_VERSIONS.length - 1), spelling: fc.nat(3) });
  const row = fc.record({
    pk: keyChoice(8),
    sk: keyChoice(4),
    version,
    // A row without a version, or with one of another type: refused where a version is compared.
    versionFault: bad ? fc.noBias(fc.integer({ min: -12, max: 2 })).map((n) => (n <= 0 ? 'none' : n === 1 ? 'absent' : 'otherType')) : fc.constant('none'),
    a: fc.option(fc.constantFrom('x', 'y', 'a,b', ''), { nil: undefined }),
    b: fc.option(fc.constantFrom('1', '2.50', '-0', ''), { nil: undefined }),
  });
  const held = fc.record({ pk: keyChoice(8), sk: keyChoice(4), version, otherType: fc.nat(5).map((n) => n === 5), noVersion: fc.nat(7).map((n) => n === 7) });
  return fc
    .record({
      format: fc.constantFrom('csv', 'jsonl'),
      tableKeys: tableKeysArbitrary(features),
      // The two other attributes' names: plain ones, and ones an expression must name by placeholder
      // (reserved words, #, :, a dot, a prototype's member, a space and letters past ASCII).
      names: fc.constantFrom(['a', 'b'], ['a', 'b'], ['name', 'size'], ['#x', ':y'], ['a.b', 'constructor'], ['ü b', 'toString']),
      versionType: fc.constantFrom('N', 'S'),
      // update compares versions half the time; newer always; if-absent never.
      versioned: mode === 'update' ? fc.boolean() : fc.constant(mode === 'newer'),
      emptyCell: fc.constantFrom('omit', 'omit', 'null'),
      held: fc.array(held, { maxLength: 12 }),
      rows: fc.array(row, { maxLength: maxRows, size: 'max' }),
      shape: fileShape,
      shuffleWindow,
      stops: fc.option(fc.array(fc.record({ afterMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 })), abandon: fc.nat(2).map((n) => n === 2), abandonAfterMs: fc.integer({ min: 0, max: 10 }) }), { minLength: 1, maxLength: 2 }), { freq: 4, nil: undefined }),
    })
    .map((spec) => {
      const { partition, sort } = spec.tableKeys;
      const syntax = spec.format === 'csv' ? 'csv' : 'json';
      /** @param {{ value: number, spelling: number }} choice */
      const versionText = (choice) => {
        if (spec.versionType === 'S') return S_VERSIONS[choice.value % S_VERSIONS.length];
        // JSON's number grammar has no leading zeros: a JSON line's spellings are those it allows.
        const spellings = N_VERSIONS[choice.value].filter((text) => syntax === 'csv' || JSON_NUMBER.test(text));
        return spellings[choice.spelling % spellings.length];
      };
      // What the table holds: items of pool keys (each once), some with a version of the other type or none.
      /** @type {Map<string, Record<string, any>>} */
      const seeded = new Map();
      const heldKeys = rowKeys(spec.tableKeys, spec.held.map((h) => ({ pk: { ...h.pk, back: 0 }, sk: { ...h.sk, back: 0 } })), features, 'csv');
      heldKeys.forEach((key, i) => {
        const h = spec.held[i];
        /** @type {Record<string, any>} */
        const item = { [partition.name]: storedKey(partition.type, key.pk.text), seeded: { S: `i${i}` }, [spec.names[0]]: { S: 'held' } };
        if (sort !== undefined) item[sort.name] = storedKey(sort.type, /** @type {{ text: string }} */ (key.sk).text);
        if (!h.noVersion) {
          const text = versionText(h.version);
          const type = h.otherType ? (spec.versionType === 'N' ? 'S' : 'N') : spec.versionType;
          item.v = type === 'N' ? { N: type === spec.versionType ? text : String(h.version.value) } : { S: type === spec.versionType ? text : `v${h.version.value}` };
        }
        seeded.set(JSON.stringify([key.pk.identity, key.sk?.identity]), item);
      });
      const initialItems = [...seeded.values()];
      const keys = rowKeys(spec.tableKeys, spec.rows, features, syntax);
      const versioned = spec.versioned;
      /** @type {Record<string, any>} */
      const modeOptions = { writeMode: mode, ...(versioned ? { versionColumn: 'v' } : {}) };
      const extra = { initialItems, ...(spec.stops === undefined ? {} : { stops: spec.stops }) };
      if (spec.format === 'csv') {
        const [aName, bName] = spec.names;
        const header = [partition.name, ...(sort === undefined ? [] : [sort.name]), 'v', aName, bName].map((name) => csvField(name, false));
        const lines = spec.rows.map((r, i) => {
          // In CSV a version of another type is a cell the type rejects (N) or any text (S: then not a fault).
          const v = r.versionFault === 'absent' ? '' : r.versionFault === 'otherType' && spec.versionType === 'N' ? 'not a number' : versionText(r.version);
          const cells = [keys[i].pk.text, ...(sort === undefined ? [] : [/** @type {{ text: string }} */ (keys[i].sk).text]), v, r.a ?? '', r.b ?? ''];
          return cells.map((cell) => csvField(cell, false)).join(',');
        });
        const columnTypes = { ...keyColumnTypes(spec.tableKeys), [bName]: 'N', ...(spec.versionType === 'N' ? { v: 'N' } : {}) };
        return importCase(joinLines([header.join(','), ...lines], spec.shape), { format: 'csv', columnTypes, emptyCell: spec.emptyCell, shuffleWindow: spec.shuffleWindow, ...modeOptions }, spec.tableKeys, spec.rows.length, { ...extra, objectSuffix: '.csv' });
      }
      /** @type {Record<string, string>} */
      const columnTypes = {};
      for (const key of [partition, sort]) if (key !== undefined && key.type === 'B') columnTypes[key.name] = 'B';
      const keyJson = (/** @type {{ name: string, type: KeyType }} */ key, /** @type {string} */ text) => (key.type === 'N' ? text : jsonString(text));
      const lines = spec.rows.map((r, i) => {
        /** @type {Array<[string, string]>} */
        const members = [[partition.name, keyJson(partition, keys[i].pk.text)]];
        if (sort !== undefined) members.push([sort.name, keyJson(sort, /** @type {{ text: string }} */ (keys[i].sk).text)]);
        if (r.versionFault === 'otherType') members.push(['v', 'true']);
        else if (r.versionFault !== 'absent') members.push(['v', spec.versionType === 'N' ? versionText(r.version) : jsonString(versionText(r.version))]);
        if (r.a !== undefined) members.push([spec.names[0], r.a === '' ? 'null' : jsonString(r.a)]);
        if (r.b !== undefined) members.push([spec.names[1], r.b === '' ? '""' : r.b === '-0' ? '-0' : r.b]);
        return `{${members.map(([name, value]) => `${jsonString(name)}:${value}`).join(',')}}`;
      });
      return importCase(joinLines(lines, spec.shape), { format: 'jsonl', columnTypes, shuffleWindow: spec.shuffleWindow, ...modeOptions }, spec.tableKeys, spec.rows.length, { ...extra, objectSuffix: '.jsonl' });
    });
}

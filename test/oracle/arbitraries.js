/**
 * fast-check generators for the differential tests: whole import cases (a CSV file's bytes and the
 * import options) and the conditions it runs under (faults, latency jitter, segments, shards).
 *
 * A case is generated as a plain spec (header, rows, options) and rendered to bytes, so that fast-check
 * shrinks the spec: fewer rows, fewer columns, simpler values, no faults. Every kind of hard input can be
 * switched off by name (see FEATURES and featuresFrom), so that once one difference is known the others
 * can still be found: FUZZ_FEATURES=-malformedQuotes,-invalidUtf8 npm run fuzz.
 */
import fc from 'fast-check';

/**
 * Kinds of input and condition the generators may produce; all are on unless switched off.
 * @type {Readonly<Record<string, string>>}
 */
export const FEATURES = Object.freeze({
  malformedQuotes: 'text after a closing quote (`"Ann"x`), a quote opened and never closed',
  invalidUtf8: 'bytes that are not UTF-8 inside a field',
  utf16: 'a UTF-16LE file with its BOM',
  encodings: 'the encoding option: a file written in windows-1252 or latin1 (or utf-8 said explicitly)',
  innerBom: 'U+FEFF inside fields, also at the start of a record (where a segment or shard may start)',
  numberRange: 'numbers of DynamoDB syntax but out of its range (1e126, 1E-131)',
  spaceKeys: 'keys made of spaces only',
  numericKeys: 'a partition or sort key typed N',
  keySpellings: 'one N key written several ways (7, 007, 7.0, 70E-1)',
  protoNames: 'columns named constructor, __proto__, toString, valueOf, hasOwnProperty',
  headerErrors: 'a header the job must refuse',
  longKeys: 'keys at and over DynamoDB\'s key size limits',
  fieldCount: 'rows with a field too many or too few',
  repeatedKeys: 'keys that repeat (at every distance); off: every key unique',
  generateKey: 'generateKey: true',
  sortKey: 'a sort key column',
  shuffle: 'shuffleWindow > 0',
  faults: 'unprocessed items, throttled calls, 5xx, connection resets',
  transactionConflicts: 'TransactionConflictException answered to a conditional write mode\'s PutItem/UpdateItem/DeleteItem (retried like a throttle)',
  hangs: 'calls never answered',
  jitter: 'latency jitter that reorders writes and answers',
  segments: 'segmentMs, and hand-overs every 64 rows (continuations)',
  shards: 'shards: 2 or 3',
  // The lanes of lanes.js (keys, csv-types, jsonl, ddb-json, delete):
  nulKeys: 'S keys with NUL and other control characters, composite keys that meet when joined on NUL',
  oddBase64: 'base64 whose padding bits are not zero ("AR==" for the byte 01), in keys, B values and BS members',
  binaryKeys: 'tables whose partition or sort key is B',
  numberSpellings: 'one N key or set member written several ways (7, 007, 7.0, 70E-1)',
  badValues: 'values and lines the import must reject',
  shaping: 'csv-types and jsonl: columns dropped and renamed (drop, rename), the partition key renamed from another name; a TTL column read or filled (ttl); dotted names nested (nest)',
  binaryOrder: 'spread: B keys, whose order (DynamoDB\'s, by bytes) is not their base64 text\'s',
  utf8Order: 'spread: S keys whose UTF-8 byte order (DynamoDB\'s) is not their UTF-16 order (U+E000-U+FFFF against astral characters)',
});

/** @typedef {Set<string>} Features */

/**
 * The features a FUZZ_FEATURES value leaves on: empty for all, `-a,-b` for all but a and b, `a,b` for
 * only a and b.
 * @param {string | undefined} text
 * @returns {Features}
 */
export function featuresFrom(text) {
  const all = Object.keys(FEATURES);
  const parts = (text ?? '').split(',').map((part) => part.trim()).filter((part) => part !== '');
  for (const part of parts) {
    if (!all.includes(part.replace(/^-/, ''))) throw new Error(`unknown fuzz feature "${part}"; the features are ${all.join(', ')}`);
  }
  if (parts.length === 0) return new Set(all);
  if (parts.every((part) => part.startsWith('-'))) return new Set(all.filter((name) => !parts.includes(`-${name}`)));
  return new Set(parts.filter((part) => !part.startsWith('-')));
}

// ---------------------------------------------------------------------------------------------------
// Specs

/** @typedef {'S' | 'N' | 'BOOL'} ColumnType */

/**
 * @typedef {object} CellSpec
 * @property {string} text    the value if the column is S
 * @property {string} number  the value if the column is N
 * @property {string} bool    the value if the column is BOOL
 * @property {boolean} quote  quote it even when it need not be
 */

/**
 * @typedef {object} RowSpec
 * @property {{ kind: 'pool', index: number } | { kind: 'back', distance: number } | { kind: 'odd', which: number }} key
 * @property {number} spelling   how an N key is written
 * @property {number} sort       index into the sort key pool
 * @property {CellSpec[]} cells  one per column (extra ones unused)
 * @property {string} fault      'none' or a row fault
 * @property {number} faultCell
 * @property {string} end        the record's line break
 * @property {string[]} emptyLines  line breaks after it (empty lines, or a CR and LF that meet)
 */

/**
 * @typedef {object} CaseSpec
 * @property {string} delimiter
 * @property {'none' | 'utf8' | 'utf16le'} bom
 * @property {string | undefined} encoding  the encoding option; undefined leaves it out
 * @property {string} keyColumn
 * @property {'S' | 'N'} keyType
 * @property {boolean} generateKey
 * @property {{ name: string, type: 'S' | 'N' } | null} sortKey
 * @property {Array<{ name: string, type: ColumnType, pad: boolean, quoteName: boolean }>} columns
 * @property {number} keyPosition
 * @property {string} headerFault
 * @property {number} keyPool
 * @property {number} sortPool
 * @property {RowSpec[]} rows
 * @property {string} headerEnd
 * @property {string[]} leadingLines  line breaks before the header
 * @property {boolean} finalLineBreak
 * @property {number} shuffleWindow
 */

/**
 * @typedef {object} ImportCase
 * @property {Buffer} bytes
 * @property {{ keyColumn: string, sortKeyColumn?: string, generateKey: boolean, columnTypes: Record<string, string>, delimiter: string, shuffleWindow: number, encoding?: string, format?: string, emptyCell?: string, setSeparator?: string, mode?: string, writeMode?: string, versionColumn?: string, drop?: string[], rename?: Record<string, string>, ttl?: string, nest?: boolean }} options
 * @property {string} description  the case as JavaScript: bytes and options
 * @property {number} rows         data rows written (before faults)
 * @property {{ partition: { name: string, type: 'S' | 'N' | 'B' }, sort?: { name: string, type: 'S' | 'N' | 'B' } }} [tableKeys]  default: from the key columns' types
 * @property {Array<Record<string, any>>} [initialItems]  what the table holds before the import (DynamoDB JSON)
 * @property {string} [objectSuffix]  the S3 key's ending, default .csv
 * @property {import('./lanes.js').JobObject[]} [objects]  a job over a prefix of these objects (bytes unused)
 * @property {{ fixEvery: number }} [roundTrip]  then its rejects file, fixed, imported with fromRejects
 * @property {import('./lanes.js').Stop[]} [stops]  the import is stopped so, and resumed from its checkpoint
 * @property {number} [shards]  the case's own shard count (its runs of one key are placed across this many cuts), over the conditions'
 */

const LINE_BREAKS = ['\n', '\r\n', '\r'];
const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];

/** @template T @param {T[]} values @param {number} [weight] */
const rare = (values, weight = 1) => ({ weight, arbitrary: fc.constantFrom(...values) });

/**
 * Mostly `common`, sometimes one of `others`; shrinks to `common` (fc.oneof only shrinks inside the
 * branch it took).
 * @template T @param {T} common @param {T[]} others @param {number} odds  about `odds` commons for each other
 * @returns {fc.Arbitrary<T>}
 */
const mostly = (common, others, odds) => (others.length === 0 ? fc.constant(common) : fc.noBias(fc.integer({ min: -odds * others.length, max: others.length })).map((n) => (n <= 0 ? common : others[n - 1])));

/**
 * Mostly nothing, sometimes 1 or 2 line breaks; shrinks to nothing.
 * @param {number} odds
 * @returns {fc.Arbitrary<string[]>}
 */
const someLineBreaks = (odds) =>
  fc.tuple(fc.noBias(fc.integer({ min: -odds, max: 1 })), fc.array(fc.constantFrom(...LINE_BREAKS), { minLength: 1, maxLength: 2 })).map(([n, breaks]) => (n <= 0 ? [] : breaks));

/** @param {Features} features */
function cellArbitrary(features) {
  /** @type {fc.Arbitrary<string>} */
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('Ann', '', 'Bob', 'x y', ' padded ', 'Zoë', 'e\u0301', '名前', '😀 astral 𝒳', `5'11"`, 'Zed "the" Last', ' "x"') },
    {
      weight: 3,
      arbitrary: fc
        .array(fc.constantFrom('a', 'B', ' ', ',', ';', '|', '\t', '"', '""', '\n', '\r', '\r\n', 'é', '€', '“', 'Ÿ', 'ÿ', '\u0085', '😀', '\u0301', '名', "'", '\u00a0', '\\', '\u2028', ...(features.has('innerBom') ? ['\ufeff'] : [])), { maxLength: 10 })
        .map((parts) => parts.join('')),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }).map((text) => (features.has('innerBom') ? text : text.replaceAll('\ufeff', ''))) },
  );
  const inRange = (/** @type {number} */ x) => x === 0 || (Math.abs(x) >= 1e-100 && Math.abs(x) <= 1e100);
  /** @type {Array<fc.WeightedArbitrary<string>>} */
  const numbers = [
    { weight: 20, arbitrary: fc.constantFrom('0', '1', '-1', '42', '3.14', '-0.5', '1e3', '1E-3', '007', '.5', '5.', '-0', '', '12345678901234567890123456789012345678', '1E-130', '9.99E125', `1${'0'.repeat(60)}`) },
    { weight: 8, arbitrary: fc.integer().map(String) },
    { weight: 8, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).filter(inRange).map(String) },
    rare(['abc', ' 5', '5 ', '+5', '1.2.3', 'NaN', '0x10', 'Infinity', '123456789012345678901234567890123456789']),
  ];
  if (features.has('numberRange')) numbers.push(rare(['1e126', '1E-131', '-1e200', '1e-999', '99999999999999999999999999999999999999e100']));
  const bool = fc.oneof({ weight: 30, arbitrary: fc.constantFrom('true', 'false', 'TRUE', 'False', 'tRuE', '') }, rare(['yes', '1', ' true', 'truee', 'f']));
  return fc.record({ text, number: fc.oneof(...numbers), bool, quote: fc.nat(3).map((n) => n === 3) });
}

/** @param {Features} features */
function rowFaults(features) {
  const faults = [];
  if (features.has('fieldCount')) faults.push('extraField', 'missingField');
  if (features.has('malformedQuotes')) faults.push('textAfterQuote', 'openQuote');
  if (features.has('invalidUtf8')) faults.push('invalidUtf8');
  return faults;
}

/** @param {Features} features */
function rowArbitrary(features) {
  const faults = rowFaults(features);
  // A pool key (shrinks here), a key of a row 1 to 250 rows back, or an odd one; without repeatedKeys
  // every key is new except a few odd ones, each used once.
  /** @type {fc.Arbitrary<RowSpec['key']>} */
  const key = fc
    .record({
      choice: fc.noBias(features.has('repeatedKeys') ? fc.integer({ min: -6, max: 4 }) : fc.integer({ min: -9, max: 1 }).map((n) => (n === 1 ? 4 : n))),
      index: features.has('repeatedKeys') ? fc.nat(999) : fc.constant(-1),
      distance: fc.constantFrom(1, 2, 24, 25, 26, 49, 50, 51, 100, 200, 250),
      which: fc.nat(99),
    })
    .map(({ choice, index, distance, which }) => {
      if (choice <= 0) return { kind: /** @type {const} */ ('pool'), index };
      if (choice <= 3) return { kind: /** @type {const} */ ('back'), distance };
      return { kind: /** @type {const} */ ('odd'), which };
    });
  return fc.record({
    key,
    spelling: fc.nat(7),
    sort: fc.nat(99),
    cells: fc.array(cellArbitrary(features), { minLength: 5, maxLength: 5 }),
    fault: mostly('none', faults, 40),
    faultCell: fc.nat(6),
    end: fc.constantFrom(...LINE_BREAKS),
    emptyLines: someLineBreaks(12),
  });
}

/**
 * Whole import cases: bytes, options, and a description that replays them.
 * @param {Features} features
 * @param {{ maxRows?: number }} [limits]
 * @returns {fc.Arbitrary<ImportCase>}
 */
export function importCaseArbitrary(features, { maxRows = 300 } = {}) {
  const keyNames = ['id', 'pk', 'ключ', ...(features.has('protoNames') ? ['constructor', '__proto__', 'toString'] : [])];
  const columnNames = ['name', 'city', 'age', 'note', 'active', 'score', 'Zoë', '名前', '𝒳 x', 'e\u0301', 'a,b', 'quote"d', ...(features.has('protoNames') ? PROTO_NAMES : [])];
  const headerFaults = ['duplicate', 'nameless', 'noKey', 'typesForMissing', 'keyWithGenerate', 'noSortKey'];
  /** @type {fc.Arbitrary<CaseSpec>} */
  const spec = fc.record({
    delimiter: fc.constantFrom(',', ';', '|', '\t'),
    // none (shrinks here), a UTF-8 BOM about one time in three, UTF-16LE rarely.
    bom: fc.noBias(fc.integer({ min: -11, max: features.has('utf16') ? 1 : 0 })).map((n) => (n === 1 ? 'utf16le' : n <= -8 ? 'utf8' : 'none')),
    encoding: mostly(/** @type {string | undefined} */ (undefined), features.has('encodings') ? ['windows-1252', 'latin1', 'utf-8'] : [], 4),
    keyColumn: fc.constantFrom(...keyNames),
    keyType: features.has('numericKeys') ? fc.constantFrom(/** @type {const} */ ('S'), /** @type {const} */ ('N')) : fc.constant(/** @type {const} */ ('S')),
    generateKey: features.has('generateKey') ? fc.nat(7).map((n) => n === 7) : fc.constant(false),
    sortKey: features.has('sortKey')
      ? fc.option(
          fc.record({
            name: fc.constantFrom('sk', 'sort', ...(features.has('protoNames') ? ['valueOf'] : [])),
            type: features.has('numericKeys') ? fc.constantFrom(/** @type {const} */ ('S'), /** @type {const} */ ('N')) : fc.constant(/** @type {const} */ ('S')),
          }),
          { freq: 3 },
        )
      : fc.constant(null),
    columns: fc.uniqueArray(
      fc.record({ name: fc.constantFrom(...columnNames), type: fc.constantFrom(/** @type {ColumnType} */ ('S'), /** @type {ColumnType} */ ('N'), /** @type {ColumnType} */ ('BOOL')), pad: fc.nat(5).map((n) => n === 5), quoteName: fc.nat(5).map((n) => n === 5) }),
      { selector: (column) => column.name, maxLength: 5 },
    ),
    keyPosition: fc.nat(5),
    headerFault: mostly('none', features.has('headerErrors') ? headerFaults : [], 30),
    keyPool: fc.integer({ min: 1, max: 150 }),
    sortPool: fc.integer({ min: 1, max: 4 }),
    // size 'max': row counts spread over 0..maxRows (the default size keeps arrays to a few elements).
    rows: fc.array(rowArbitrary(features), { maxLength: maxRows, size: 'max' }),
    headerEnd: fc.constantFrom(...LINE_BREAKS),
    leadingLines: someLineBreaks(8),
    finalLineBreak: fc.nat(4).map((n) => n !== 4),
    shuffleWindow: features.has('shuffle') ? fc.noBias(fc.integer({ min: -120, max: 40 })).map((n) => (n < 2 ? 0 : n)) : fc.constant(0),
  });
  return spec.map((s) => renderCase(s, features));
}

// ---------------------------------------------------------------------------------------------------
// Rendering a spec to bytes

/**
 * An N key written one of several ways; all spellings of one value are the same key.
 * @param {number} value  a whole number >= 0
 * @param {number} spelling
 */
function spellNumber(value, spelling) {
  const digits = String(value);
  switch (spelling % 8) {
    case 1:
      return `00${digits}`;
    case 2:
      return `${digits}.0`;
    case 3:
      return `${digits}0E-1`;
    case 4:
      return `${digits}.000e0`;
    case 5:
      return `0.${digits}e${digits.length}`;
    case 6:
      return value === 0 ? '-0' : `${digits}.`;
    default:
      return digits;
  }
}

/** @param {number} index */
function stringKey(index) {
  if (index % 7 === 3) return `ключ${index}`;
  if (index % 7 === 5) return `k${index}😀`;
  return `k${index}`;
}

/**
 * Unusual keys, by feature.
 * @param {'S' | 'N'} type @param {Features} features
 */
function oddKeys(type, features) {
  if (type === 'N') {
    // '-0' is the key '0' again: only where keys may repeat.
    const keys = ['', '0', ...(features.has('repeatedKeys') ? ['-0'] : []), '12345678901234567890123456789012345678', 'abc'];
    if (features.has('spaceKeys')) keys.push('  ');
    if (features.has('numberRange')) keys.push('1e126');
    return keys;
  }
  const keys = ['', ' k1 ', 'k1 ', '\tk', 'k\u00a0', ...(features.has('innerBom') ? ['\ufeffk'] : []), '"', 'x,y', 'line\nbreak', 'é'.repeat(1024)];
  if (features.has('spaceKeys')) keys.push(' ', '   ');
  if (features.has('longKeys')) keys.push('é'.repeat(1025), 'k'.repeat(2049));
  return keys;
}

const INVALID_UTF8 = [[0xff], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80]];
/** What a UTF-16 file has where it is not UTF-16: a surrogate without its pair. */
const LONE_SURROGATES = ['\ud800', '\udfff', '\udc00x', '\ud83d'];

/**
 * @param {string} value @param {boolean} quote @param {string} delimiter
 */
function field(value, quote, delimiter) {
  const mustQuote = value.includes(delimiter) || value.includes('\n') || value.includes('\r') || value.startsWith('"');
  return mustQuote || quote ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * @param {CaseSpec} spec
 * @param {Features} features
 * @returns {ImportCase}
 */
export function renderCase(spec, features) {
  const { delimiter } = spec;
  const singleByte = spec.encoding === 'windows-1252' || spec.encoding === 'latin1';
  // In a single-byte file every name must be one the encoding can write.
  const writable = (/** @type {string} */ name) => !singleByte || !singleByteBytes(name, /** @type {string} */ (spec.encoding)).includes(0x3f);
  const keyColumn = writable(spec.keyColumn) ? spec.keyColumn : 'id';
  const generateKey = spec.generateKey && spec.keyType === 'S';
  const keyType = generateKey ? 'S' : spec.keyType;
  const sortKey = spec.sortKey !== null && spec.sortKey.name !== keyColumn ? spec.sortKey : undefined;
  const columns = spec.columns.filter((column) => column.name !== keyColumn && column.name !== sortKey?.name && writable(column.name));

  /** @type {Array<{ name: string, role: 'key' | 'sort' | 'column', type: ColumnType, pad: boolean, quoteName: boolean, cell: number }>} */
  const order = columns.map((column, cell) => ({ ...column, role: /** @type {const} */ ('column'), cell }));
  if (sortKey !== undefined) order.splice(Math.min(spec.keyPosition + 1, order.length), 0, { name: sortKey.name, role: 'sort', type: sortKey.type, pad: false, quoteName: false, cell: -1 });
  if (!generateKey) order.splice(Math.min(spec.keyPosition, order.length), 0, { name: keyColumn, role: 'key', type: keyType, pad: false, quoteName: false, cell: -1 });

  // A file needs a column besides a generated key.
  if (order.length === 0) order.push({ name: 'name', role: 'column', type: 'S', pad: false, quoteName: false, cell: 0 });
  // Object.fromEntries makes own properties, `__proto__` too (an object literal would set the prototype).
  const columnTypes = /** @type {Record<string, ColumnType>} */ (Object.fromEntries(order.filter((column) => column.type !== 'S').map((column) => [column.name, column.type])));
  let headerNames = order.map((column) => column.name);
  let optionGenerateKey = generateKey;
  let sortKeyColumn = sortKey?.name;
  // A header the job must refuse (the rows are rendered as if it were fine).
  switch (spec.headerFault) {
    case 'duplicate':
      headerNames = [...headerNames, headerNames[0] ?? keyColumn];
      break;
    case 'nameless':
      headerNames = [...headerNames, ''];
      break;
    case 'noKey':
      headerNames = headerNames.filter((name) => name !== keyColumn);
      break;
    case 'typesForMissing':
      Object.defineProperty(columnTypes, 'missing', { value: 'N', enumerable: true, writable: true, configurable: true });
      break;
    case 'keyWithGenerate':
      if (!generateKey && keyType === 'S') optionGenerateKey = true;
      break;
    case 'noSortKey':
      if (sortKey === undefined) sortKeyColumn = 'sk';
      break;
    default:
  }
  if (sortKeyColumn === keyColumn) sortKeyColumn = undefined;

  // A file in a single-byte encoding has no BOM; a UTF-16 one is read by its BOM, without the option.
  const bom = singleByte || (spec.encoding !== undefined && spec.bom === 'utf16le') ? 'none' : spec.bom;
  const utf16 = bom === 'utf16le';
  /** @type {Array<string | Buffer>} */
  const pieces = [];
  if (bom === 'utf8') pieces.push(Buffer.from([0xef, 0xbb, 0xbf]));
  pieces.push(...spec.leadingLines);
  pieces.push(
    headerNames
      .map((name, i) => {
        const written = order[i]?.pad ? ` ${name} ` : name;
        return field(written, order[i]?.quoteName ?? false, delimiter);
      })
      .join(delimiter),
  );
  pieces.push(spec.rows.length > 0 || spec.finalLineBreak ? spec.headerEnd : '');

  const odd = oddKeys(keyType, features);
  const oddSort = oddKeys(sortKey?.type ?? 'S', features).filter((key) => features.has('longKeys') || Buffer.byteLength(key) <= 1024);
  /** @type {string[]} */
  const keys = [];
  const usedOddKeys = new Set();
  spec.rows.forEach((row, r) => {
    /** @type {string | undefined} */
    let key;
    // Without repeatedKeys an odd key is used once at most.
    if (row.key.kind === 'odd' && (features.has('repeatedKeys') || !usedOddKeys.has(row.key.which % odd.length))) {
      usedOddKeys.add(row.key.which % odd.length);
      key = odd[row.key.which % odd.length];
    }
    else if (row.key.kind === 'back' && r - row.key.distance >= 0) key = keys[r - row.key.distance];
    if (key === undefined) {
      const index = row.key.kind === 'pool' && row.key.index >= 0 ? row.key.index % spec.keyPool : r + 1000 * (row.key.kind === 'pool' ? 1 : 2);
      key = keyType === 'N' ? spellNumber(index, features.has('keySpellings') ? row.spelling : 0) : stringKey(index);
    }
    keys.push(key);
    let sortValue = sortKey?.type === 'N' ? spellNumber(row.sort % spec.sortPool, features.has('keySpellings') ? row.spelling >> 1 : 0) : `s${row.sort % spec.sortPool}`;
    if (row.sort >= 95) sortValue = oddSort[row.sort % oddSort.length];

    /** @type {Array<string | Buffer>} */
    const fields = order.map((column) => {
      if (column.role === 'key') return field(key, row.cells[0].quote, delimiter);
      if (column.role === 'sort') return field(sortValue, row.cells[1].quote, delimiter);
      const cell = row.cells[column.cell];
      const value = column.type === 'N' ? cell.number : column.type === 'BOOL' ? cell.bool : cell.text;
      return field(value, cell.quote, delimiter);
    });
    if (fields.length > 0) {
      const at = row.faultCell % fields.length;
      if (row.fault === 'extraField') fields.push('x');
      else if (row.fault === 'missingField') fields.pop();
      else if (row.fault === 'textAfterQuote') fields[at] = '"Ann"x';
      else if (row.fault === 'openQuote') fields[at] = '"Ann';
      else if (row.fault === 'invalidUtf8' && utf16) fields[at] = `${fields[at]}${LONE_SURROGATES[row.faultCell % LONE_SURROGATES.length]}`;
      else if (row.fault === 'invalidUtf8') fields[at] = Buffer.concat([Buffer.from(String(fields[at])), Buffer.from(INVALID_UTF8[row.faultCell % INVALID_UTF8.length])]);
    }
    fields.forEach((piece, i) => {
      if (i > 0) pieces.push(delimiter);
      pieces.push(piece);
    });
    const last = r === spec.rows.length - 1;
    if (!last || spec.finalLineBreak) pieces.push(row.end);
    if (!last) pieces.push(...row.emptyLines);
  });

  const encode = (/** @type {string} */ text) => (singleByte ? singleByteBytes(text, /** @type {string} */ (spec.encoding)) : Buffer.from(text, 'utf8'));
  const bytes = utf16
    ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(pieces.map((piece) => (typeof piece === 'string' ? piece : piece.toString('utf8'))).join(''), 'utf16le')])
    : Buffer.concat(pieces.map((piece) => (typeof piece === 'string' ? encode(piece) : piece)));
  const options = {
    ...(spec.encoding === undefined ? {} : { encoding: spec.encoding }),
    keyColumn,
    ...(sortKeyColumn === undefined ? {} : { sortKeyColumn }),
    generateKey: optionGenerateKey,
    columnTypes,
    delimiter,
    shuffleWindow: spec.shuffleWindow,
  };
  const description = describeCase(bytes, options);
  return Object.defineProperty({ bytes, options, description, rows: spec.rows.length }, fc.toStringMethod, { value: () => description, enumerable: false });
}

/** windows-1252's characters for bytes 0x80-0x9F (five of them unassigned: the byte's own code). */
const CP1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Text in windows-1252 or latin1; a character the encoding lacks becomes "?".
 * @param {string} text @param {string} encoding
 */
function singleByteBytes(text, encoding) {
  const bytes = [];
  for (const char of text) {
    const code = /** @type {number} */ (char.codePointAt(0));
    const high = encoding === 'windows-1252' ? CP1252_HIGH.indexOf(char) : -1;
    if (high !== -1) bytes.push(0x80 + high);
    else if (code < 0x80 || (code >= 0xa0 && code <= 0xff) || (encoding === 'latin1' && code <= 0xff)) bytes.push(code);
    else bytes.push(0x3f);
  }
  return Buffer.from(bytes);
}

/**
 * The case as JavaScript that rebuilds it.
 * @param {Buffer} bytes @param {Record<string, unknown>} options
 */
export function describeCase(bytes, options) {
  return `{ bytes: ${bytesLiteral(bytes)}, options: ${JSON.stringify(options)} }`;
}

/** @param {Buffer} bytes */
export function bytesLiteral(bytes) {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return `Buffer.from(${JSON.stringify(text)})`;
  } catch {
    return `Buffer.from(${JSON.stringify(bytes.toString('latin1'))}, 'latin1')`;
  }
}

// ---------------------------------------------------------------------------------------------------
// Conditions

/**
 * @typedef {object} Conditions
 * @property {{ unprocessedItems: number, throttleCalls: number, serverErrors: number, resetCalls: number, hangCalls: number, latencyJitterMs: number, transactionConflicts?: number }} faults
 * @property {number} faultSeed       seeds the fault proxies' random draws
 * @property {number | undefined} segmentMs
 * @property {boolean} handOverEvery64Rows  Lambda time left at the margin: each segment hands over at the next 64 rows
 * @property {number} shards
 * @property {number} concurrency
 */

/**
 * @param {Features} features
 * @param {{ shards?: fc.Arbitrary<number> }} [overrides]  shards: a lane's own (a sharded lane: > 1 in every case)
 * @returns {fc.Arbitrary<Conditions>}
 */
export function conditionsArbitrary(features, overrides = {}) {
  // Two times in three nothing; shrinking goes to nothing. The shares are hundredths.
  const share = (/** @type {boolean} */ on, /** @type {number} */ max) => (on ? fc.noBias(fc.integer({ min: -2 * max, max })).map((n) => Math.max(0, n) / 100) : fc.constant(0));
  const faults = features.has('faults');
  const rest = fc.record({
      faults: fc.record({
        unprocessedItems: share(faults, 30),
        throttleCalls: share(faults, 30),
        serverErrors: share(faults, 20),
        resetCalls: share(faults, 20),
        hangCalls: features.has('hangs') ? fc.noBias(fc.integer({ min: -40, max: 10 })).map((n) => Math.max(0, n) / 100) : fc.constant(0),
        latencyJitterMs: features.has('jitter') ? fc.noBias(fc.integer({ min: -40, max: 40 })).map((n) => Math.max(0, n)) : fc.constant(0),
      }),
      faultSeed: fc.nat(),
      segmentMs: features.has('segments') ? fc.option(fc.integer({ min: 100, max: 250 }), { freq: 3, nil: undefined }) : fc.constant(undefined),
      handOverEvery64Rows: features.has('segments') ? fc.nat(3).map((n) => n === 3) : fc.constant(false),
      shards: overrides.shards ?? mostly(1, features.has('shards') ? [2, 3] : [], 6),
      concurrency: fc.constantFrom(32, 1, 2, 4, 8),
    });
  // TransactionConflictException (a conditional mode's one-item calls), drawn after the rest so that the
  // other conditions of a seed stay as they were.
  const conflicts = faults && features.has('transactionConflicts') ? share(true, 25) : fc.constant(0);
  return fc.tuple(rest, conflicts).map(([conditions, transactionConflicts]) => (transactionConflicts > 0 ? { ...conditions, faults: { ...conditions.faults, transactionConflicts } } : conditions));
}

/**
 * Small cases the differential fuzzing found (each shrunk by fast-check, then written out by hand), with
 * the rule each one checks. differential.test.js (npm test) runs them for real against the oracle: they are
 * the regression corpus of the differential tests. A case whose difference depends on timing runs
 * with latency jitter under several seeds and fails if any run differs.
 */

/** @typedef {import('./arbitraries.js').Conditions} Conditions */

/**
 * @typedef {object} KnownCase
 * @property {string} name
 * @property {string} rule     the oracle's rule it checks
 * @property {Buffer} bytes
 * @property {Partial<import('./arbitraries.js').ImportCase['options']>} [options]
 * @property {Partial<Omit<Conditions, 'faults'>> & { faults?: Partial<Conditions['faults']> }} [conditions]
 * @property {number[]} [seeds]  fault seeds to run it under (timing-dependent cases)
 */

const rows = (/** @type {number} */ count, /** @type {string} */ prefix = 'u') => Array.from({ length: count }, (_, i) => `${prefix}${i},x\n`).join('');
const utf16le = (/** @type {string} */ text) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const jitter = { faults: { latencyJitterMs: 40 } };

/** @type {KnownCase[]} */
export const KNOWN_CASES = [
  // Records
  {
    name: 'an opening quote never closed costs only its own line',
    rule: 'MALFORMED_CSV at the start line; reading resumes on the next physical line',
    bytes: Buffer.from('id,name\n1,"Ann\n2,Bob\n'),
  },
  {
    name: 'text after a closing quote makes the record malformed',
    rule: 'a quote followed by anything but the delimiter, a line break or the end closes nothing: MALFORMED_CSV',
    bytes: Buffer.from('id,name\n1,"Ann"x\n2,Bob\n'),
  },
  {
    name: 'a byte that is not UTF-8 rejects its record, not the next one (after a closing quote)',
    rule: 'INVALID_UTF8 / MALFORMED_CSV at the record\'s own start line; the next line is read as written',
    bytes: Buffer.from('id\n"k0"\xff\nk0\n', 'latin1'),
  },
  {
    name: 'a byte that is not UTF-8 inside a quote never closed rejects its record, not the next one',
    rule: 'MALFORMED_CSV at the start line; the next line is read as written',
    bytes: Buffer.from('id,v\n1,"a\xff\n2,b\n', 'latin1'),
  },
  {
    name: 'a byte that is not UTF-8 is rejected, not written as U+FFFD',
    rule: 'INVALID_UTF8',
    bytes: Buffer.from('id\nk0\xff\n', 'latin1'),
  },
  // Encodings
  {
    name: 'a UTF-16LE file with its BOM is read as UTF-16LE',
    rule: "encoding 'auto': FF FE means UTF-16LE",
    bytes: utf16le('id,v\n1,Zoë\n'),
  },
  {
    name: 'a UTF-16LE file stays UTF-16LE past a hand-over',
    rule: "encoding 'auto': FF FE means UTF-16LE, for the whole file",
    bytes: utf16le(`id,v\n${rows(66, 'k')}`),
    conditions: { handOverEvery64Rows: true },
  },
  {
    name: 'a UTF-16LE file stays UTF-16LE in every shard',
    rule: "encoding 'auto': FF FE means UTF-16LE, for the whole file",
    bytes: utf16le(`id,v\n${rows(66, 'k')}`),
    conditions: { shards: 2 },
  },
  {
    name: 'a UTF-16LE file ending in half a unit after a closing quote: the record is malformed',
    rule: 'a quote followed by anything but the delimiter or a line break is MALFORMED_CSV; half a unit is a unit',
    bytes: Buffer.concat([utf16le('id,v\n1,x\n2,"a"'), Buffer.from([0x41])]),
  },
  {
    name: 'a UTF-16LE file with unpaired surrogates, in every shard',
    rule: 'a record with a surrogate that is not half of a pair is INVALID_UTF16',
    bytes: utf16le(`id,v\n${rows(30, 'k')}x,\ud800\ny,\udc00z\n${rows(30, 'm')}`),
    conditions: { shards: 2 },
  },
  {
    name: 'U+FEFF at the start of a record where a continuation starts is kept',
    rule: 'the BOM is dropped at the start of the file only; a value is as written',
    bytes: Buffer.from(`id,v\n${rows(63)}\ufeffk,1\nz,2\n`),
    conditions: { handOverEvery64Rows: true },
  },
  {
    name: 'U+FEFF at the start of a record where a shard starts is kept',
    rule: 'the BOM is dropped at the start of the file only; a value is as written',
    bytes: Buffer.from(`id,v\n\ufeffk,1\n${rows(40)}`),
    conditions: { shards: 2 },
  },
  {
    name: 'a row whose only field is U+FEFF, where a shard starts, is a row',
    rule: 'the BOM is dropped at the start of the file only; a record is not an empty line',
    bytes: Buffer.from('name\n\ufeff\nAnn\n'),
    options: { generateKey: true },
    conditions: { shards: 2 },
  },
  {
    name: 'a sharded file of a bad header and no rows fails, as an unsharded one does',
    rule: 'HEADER: a name twice is a job error, whatever the file holds after the header',
    bytes: Buffer.from('id,id\n'),
    conditions: { shards: 2 },
  },
  {
    // Found by the fuzz (seed 20261211) after the planner ran its workers through a limit of the shards' count: 0.
    name: 'a sharded file of a header and no rows imports nothing, and finishes',
    rule: 'a header alone is zero rows, sharded or not',
    bytes: Buffer.from('id\n'),
    conditions: { shards: 2 },
  },
  // Rows
  {
    name: 'numbers out of DynamoDB\'s range are INVALID_NUMBER',
    rule: 'N: magnitude from 1E-130 up to 1E+126, else INVALID_NUMBER',
    bytes: Buffer.from('id,n\n1,1e126\n2,1E-131\n'),
    options: { columnTypes: { n: 'N' } },
  },
  {
    name: 'a later row the table would refuse does not take an earlier row\'s item with it',
    rule: 'a rejected row changes nothing',
    bytes: Buffer.from('id,n\n1,5\n1,1e126\n'),
    options: { columnTypes: { n: 'N' } },
  },
  {
    name: 'a key of spaces only is MISSING_KEY',
    rule: 'MISSING_KEY: empty or only U+0020 spaces',
    bytes: Buffer.from('id\n \n'),
  },
  {
    name: 'two rows with one over-long key are both rejected',
    rule: 'KEY_TOO_LONG for each row (a rejected row changes nothing, and is listed)',
    bytes: Buffer.from(`id\n${'k'.repeat(2049)}\n${'k'.repeat(2049)}\n`),
  },
  {
    name: 'columns named like Object.prototype members are ordinary attributes',
    rule: 'any name is an ordinary name',
    bytes: Buffer.from('id,constructor,__proto__,toString\n1,c,p,t\n'),
  },
  {
    name: 'columnTypes for columns named constructor and valueOf',
    rule: 'any name is an ordinary name',
    bytes: Buffer.from('id,constructor,valueOf\n1,5,TRUE\n'),
    // Own properties, as a JSON payload has them (an object literal would make "constructor" awkward to type).
    options: { columnTypes: JSON.parse('{"constructor":"N","valueOf":"BOOL"}') },
  },
  {
    name: 'a key column named constructor',
    rule: 'any name is an ordinary name',
    bytes: Buffer.from('constructor,v\nx,1\n'),
    options: { keyColumn: 'constructor' },
  },
  // Applying in file order
  {
    name: 'N keys 007 and 7 are one item, the later row\'s',
    rule: 'keys typed N are equal by value',
    bytes: Buffer.from('id,v\n007,first\n7,second\n'),
    options: { columnTypes: { id: 'N' } },
  },
  {
    name: 'one key in two batches in flight together: the later row wins',
    rule: 'rows applied in file order',
    bytes: Buffer.from(`id,v\nk0,first\n${rows(24)}k0,last\n`),
    conditions: jitter,
    seeds: [1, 2, 3, 4],
  },
  {
    name: 'one key in two batches, items left unprocessed: the later row wins',
    rule: 'rows applied in file order, whatever the retries',
    bytes: Buffer.from(`id,v\nk0,first\n${rows(24)}k0,last\n`),
    conditions: { faults: { unprocessedItems: 0.3 } },
    seeds: [1, 2, 3, 4],
  },
  {
    name: 'one key moved by the shuffle window: the later row wins',
    rule: 'rows applied in file order, whatever the shuffle',
    bytes: Buffer.from(`id,v\nk0,first\n${rows(30)}k0,last\n`),
    options: { shuffleWindow: 40 },
  },
  {
    name: 'one key in two shards: the later row wins',
    rule: 'rows applied in file order, whatever the shards',
    bytes: Buffer.from('id,v\nk0,first\nk0,last\n'),
    conditions: { shards: 2, ...jitter },
    seeds: [1, 2, 3, 4, 5, 6],
  },
];

/**
 * A known case as the harness runs it.
 * @param {KnownCase} known
 * @param {number} seed
 * @returns {{ importCase: import('./arbitraries.js').ImportCase, conditions: Conditions }}
 */
export function knownCaseRun(known, seed) {
  const options = { keyColumn: 'id', generateKey: false, columnTypes: {}, delimiter: ',', shuffleWindow: 0, ...known.options };
  const { faults, ...rest } = known.conditions ?? {};
  /** @type {Conditions} */
  const conditions = {
    faults: { unprocessedItems: 0, throttleCalls: 0, serverErrors: 0, resetCalls: 0, hangCalls: 0, latencyJitterMs: 0, ...faults },
    faultSeed: seed,
    segmentMs: undefined,
    handOverEvery64Rows: false,
    shards: 1,
    concurrency: 32,
    ...rest,
  };
  return { importCase: { bytes: known.bytes, options, description: known.name, rows: 0 }, conditions };
}

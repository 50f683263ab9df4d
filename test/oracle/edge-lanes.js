/**
 * Lanes at the edges issue 46 found the others never drew (see lanes.js for the rest):
 *
 *   shard-runs  files cut into 2-4 shards (every case: shards > 1) whose runs of one key, many rows long,
 *               sit across the planner's cuts: the cut is at the first record boundary at or past
 *               start + ceil((bytes - start) * k / n), and the generator computes those byte positions
 *               and puts a run there (starting exactly at the cut, ending exactly at it, or across it),
 *               rows the import rejects inside runs. CSV, JSON Lines and DynamoDB JSON (incremental
 *               deletes too); put, delete, if-absent, newer and update; drop, rename and TTL; the table
 *               holding items of many sizes; segments and hand-overs from the conditions. Every key's
 *               rows are contiguous (sorted by key or not), so the oracle's sequential reading is exact.
 *   wide        rows of 20-450 attributes (1,100 in update, past the 4 KB UpdateExpression), names that
 *               look like placeholders (#k, :v, #0, #v), names of 255 and 1,000 characters, under every
 *               write mode, CSV and JSON Lines, over held items of many sizes and versions (stale rows).
 */
import fc from 'fast-check';
import { seededRandom } from './differential.js';
import { csvField, importCase, jsonString, storedKey } from './lanes.js';

/** @typedef {import('./arbitraries.js').Features} Features */
/** @typedef {import('./arbitraries.js').ImportCase} ImportCase */
/** @typedef {import('./lanes.js').TableKeys} TableKeys */


/** Where the shard planner (src/plan/shard-plan.js, as its docs say) aims its cuts: the first record boundary at or past each. */
export function plannedTargets(/** @type {number} */ start, /** @type {number} */ bytes, /** @type {number} */ shards) {
  /** @type {number[]} */
  const targets = [];
  for (let k = 1; k < shards; k++) targets.push(start + Math.ceil(((bytes - start) * k) / shards));
  return targets;
}

// ---------------------------------------------------------------------------------------------------
// Lane: shard-runs

const SHARD_MODES = /** @type {const} */ (['put', 'put', 'delete', 'if-absent', 'newer', 'update', 'update-versioned']);

/** @param {Features} features @param {number} maxRows */
export function shardRunsLane(features, maxRows) {
  const bad = features.has('badValues');
  const run = fc.record({
    length: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 2, arbitrary: fc.constantFrom(24, 25, 26, 63, 64, 65, 100, 150) }),
  });
  // How the run placed at a cut lies: rows before the cut and from it (0 before: it starts exactly at the
  // cut; 0 after: it ends exactly there, the next key starting at the cut).
  const placement = fc.record({ before: fc.constantFrom(0, 0, 1, 2, 5, 30, 64, 65), after: fc.constantFrom(0, 1, 2, 3, 30, 64, 100) });
  return fc
    .record({
      format: fc.constantFrom('csv', 'csv', 'jsonl', 'dynamodb-json'),
      mode: fc.constantFrom(...SHARD_MODES),
      keyType: fc.constantFrom(/** @type {const} */ ('S'), /** @type {const} */ ('N')),
      sorted: fc.boolean(),
      shards: fc.integer({ min: 2, max: 4 }),
      runs: fc.array(run, { minLength: 1, maxLength: 40 }),
      placements: fc.array(placement, { minLength: 3, maxLength: 3 }),
      held: fc.array(fc.record({ key: fc.nat(50), size: fc.constantFrom(0, 100, 1000, 4000, 40_000), version: fc.nat(300) }), { maxLength: 12 }),
      // A row the import rejects: one in `badEvery` (0: none); keyless (a field too few, a truncated line) or a bad value of its key.
      badEvery: bad ? fc.constantFrom(0, 0, 7, 13, 40) : fc.constant(0),
      shaping: fc.constantFrom('none', 'none', 'drop', 'rename', 'ttl'),
      crlf: fc.boolean(),
      seed: fc.nat(),
      shuffleWindow: fc.constantFrom(0, 0, 0, 7),
    })
    .map((spec) => renderShardRuns(spec, maxRows));
}

/**
 * @param {{ format: string, mode: typeof SHARD_MODES[number], keyType: 'S' | 'N', sorted: boolean, shards: number, runs: Array<{ length: number }>, placements: Array<{ before: number, after: number }>, held: Array<{ key: number, size: number, version: number }>, badEvery: number, shaping: string, crlf: boolean, seed: number, shuffleWindow: number }} spec
 * @param {number} maxRows
 */
function renderShardRuns(spec, maxRows) {
  const random = seededRandom(spec.seed);
  const { format, keyType } = spec;
  const writeMode = spec.mode === 'delete' ? undefined : spec.mode === 'update-versioned' ? 'update' : spec.mode;
  const versioned = spec.mode === 'newer' || spec.mode === 'update-versioned';
  const deleting = spec.mode === 'delete';
  // Fixed-width keys: rewriting a row's key keeps every byte position, so the cuts stay where computed.
  const keyText = (/** @type {number} */ index) => (keyType === 'S' ? `k${String(index).padStart(4, '0')}` : String(1000 + index));
  // Runs in key order, or in an order of their own; each run its key.
  const order = spec.runs.map((_, j) => j);
  if (!spec.sorted) for (let j = order.length - 1; j > 0; j--) { const o = Math.floor(random() * (j + 1)); [order[j], order[o]] = [order[o], order[j]]; }
  /** @type {Array<{ key: number, version: number, bad: 'none' | 'keyless' | 'value', del: boolean, ttl: string }>} */
  const rows = [];
  spec.runs.forEach((r, j) => {
    for (let i = 0; i < r.length && rows.length < maxRows; i++) {
      const badDraw = spec.badEvery > 0 && Math.floor(random() * spec.badEvery) === 0;
      rows.push({
        key: order[j],
        // Versions mostly rising through the file (a newer row written), now and then an older one (skipped).
        version: Math.max(0, rows.length - (random() < 0.25 ? Math.floor(random() * 40) : 0)),
        bad: !badDraw ? 'none' : deleting || random() < 0.5 ? 'keyless' : 'value',
        // An incremental export's delete (Keys without NewImage), under put in DynamoDB JSON.
        del: format === 'dynamodb-json' && spec.mode === 'put' && random() < 0.2,
        ttl: random() < 0.2 ? '' : String(1_790_000_000 + Math.floor(random() * 1000)),
      });
    }
  });
  const header = ['id', 'v', 'a', 'b', ...(spec.shaping === 'drop' ? ['secret'] : []), ...(spec.shaping === 'ttl' ? ['exp'] : [])];
  const end = spec.crlf ? '\r\n' : '\n';
  /** One row's line, as bytes. @param {typeof rows[0]} row @param {number} i */
  const lineOf = (row, i) => {
    const id = keyText(row.key);
    if (format === 'csv') {
      const cells = [id, String(row.version), `r${i}`, row.bad === 'value' ? 'x' : String(i % 97), ...(spec.shaping === 'drop' ? ['ssn-secret'] : []), ...(spec.shaping === 'ttl' ? [row.ttl] : [])];
      if (row.bad === 'keyless') cells.pop();
      return cells.map((cell) => csvField(cell, false)).join(',');
    }
    const key = keyType === 'S' ? jsonString(id) : id;
    let text;
    if (format === 'jsonl') {
      text = `{"id":${key},"v":${row.version},"a":${jsonString(`r${i}`)},"b":${row.bad === 'value' ? '"x"' : i % 97}${spec.shaping === 'drop' ? ',"secret":"ssn-secret"' : ''}${spec.shaping === 'ttl' && row.ttl !== '' ? `,"exp":${row.ttl}` : ''}}`;
    } else {
      const keyJson = `{"id":{"${keyType}":"${id}"}}`;
      const item = `{"id":{"${keyType}":"${id}"},"v":{"N":"${row.version}"},"a":{"S":"r${i}"},"b":{"N":"${row.bad === 'value' ? 'x' : i % 97}"}${spec.shaping === 'drop' ? ',"secret":{"S":"ssn-secret"}' : ''}${spec.shaping === 'ttl' && row.ttl !== '' ? `,"exp":{"N":"${row.ttl}"}` : ''}}`;
      text = row.del ? `{"Metadata":{"WriteTimestampMicros":{"N":"1732400000000000"}},"Keys":${keyJson}}` : `{"Item":${item}}`;
    }
    return row.bad === 'keyless' ? text.slice(0, -1) : text;
  };
  const headerBytes = format === 'csv' ? Buffer.byteLength(`${header.join(',')}${end}`) : 0;
  const layout = () => {
    const starts = [];
    let at = headerBytes;
    for (let i = 0; i < rows.length; i++) {
      starts.push(at);
      at += Buffer.byteLength(lineOf(rows[i], i)) + end.length;
    }
    return { starts, bytes: at };
  };
  const before = layout();
  // A run of a key of its own across each planned cut, placed as the spec says.
  /** @type {number[]} */
  const cuts = [];
  plannedTargets(headerBytes, before.bytes, spec.shards).forEach((target, k) => {
    const at = before.starts.findIndex((start) => start >= target);
    if (at === -1) return;
    cuts.push(at);
    const { before: back, after } = spec.placements[k] ?? { before: 1, after: 1 };
    const from = Math.max(0, at - (back === 0 && after === 0 ? 1 : back));
    for (let i = from; i < Math.min(rows.length, at + after); i++) rows[i].key = 5000 + k;
  });
  // Every key's rows together: a key met again after another's is a run of a new key (rejected rows
  // between do not end a run).
  const used = new Set();
  /** @type {number | undefined} */
  let previous;
  let current = -1;
  let fresh = 6000;
  for (const row of rows) {
    if (row.key !== previous) {
      previous = row.key;
      current = used.has(row.key) ? fresh++ : row.key;
      used.add(current);
      used.add(row.key);
    }
    row.key = current;
  }
  const after = layout();
  if (after.bytes !== before.bytes || after.starts.some((start, i) => start !== before.starts[i])) throw new Error('shard-runs: a key rewrite moved the cuts');

  const lines = [...(format === 'csv' ? [header.map((name) => csvField(name, false)).join(',')] : []), ...rows.map(lineOf)];
  const bytes = Buffer.from(`${lines.join(end)}${end}`);
  const tableKeys = /** @type {TableKeys} */ ({ partition: { name: 'id', type: keyType } });
  // What the table holds: items of some keys, of many sizes (a skipped row is billed by the held item's size).
  /** @type {Map<string, Record<string, any>>} */
  const held = new Map();
  for (const h of spec.held) {
    const id = keyText(h.key % Math.max(1, spec.runs.length + 3));
    held.set(id, { id: storedKey(keyType, id), seeded: { S: `held ${h.size}` }, v: { N: String(h.version) }, ...(h.size > 0 ? { pad: { S: 'p'.repeat(h.size) } } : {}) });
  }
  /** @type {Record<string, any>} */
  const options = {
    format,
    columnTypes: format === 'csv' ? { ...(keyType === 'N' ? { id: 'N' } : {}), v: 'N', b: 'N' } : format === 'jsonl' ? { b: 'N' } : {},
    shuffleWindow: spec.shuffleWindow,
    ...(deleting ? { mode: 'delete' } : {}),
    ...(writeMode === undefined || writeMode === 'put' ? {} : { writeMode }),
    ...(versioned ? { versionColumn: 'v' } : {}),
    ...(spec.shaping === 'drop' ? { drop: ['secret'] } : {}),
    ...(spec.shaping === 'rename' && format !== 'dynamodb-json' ? { rename: { a: 'alpha' } } : {}),
    ...(spec.shaping === 'ttl' && !deleting ? { ttl: 'exp' } : {}),
  };
  if (deleting || format === 'dynamodb-json') {
    delete options.drop;
    delete options.ttl;
  }
  if (deleting) delete options.rename;
  if (deleting && format === 'jsonl') options.columnTypes = {};
  if (format === 'dynamodb-json') options.columnTypes = {};
  const suffix = format === 'csv' ? '.csv' : format === 'jsonl' ? '.jsonl' : '.json';
  const made = importCase(bytes, options, tableKeys, rows.length, { initialItems: [...held.values()], objectSuffix: suffix, shards: spec.shards });
  const description = `${made.description} shards ${spec.shards} (cuts before rows ${cuts.map((row) => row + 1).join(', ')} of ${rows.length})`;
  return Object.defineProperty({ ...made, description }, fc.toStringMethod, { value: () => description, enumerable: false });
}

// ---------------------------------------------------------------------------------------------------
// Lane: wide rows

/** Names an update's placeholders may meet: the condition's (#k, #v, :v) and base 36's digits. */
const PLACEHOLDER_NAMES = ['#k', ':v', '#0', '#v', ':k', '#a', 'k', ':0', '#1', '#kk', 'v0', '#'];
/** Long names: DynamoDB takes any name up to 64 KB (a key's up to 255 bytes). */
const LONG_NAMES = ['n'.repeat(255), `é${'x'.repeat(998)}`, 'Z'.repeat(64)];

/** Attributes a row sets: about 20 and 32 (where base-36 placeholders met #k and #v), and wider. */
const WIDTHS = [19, 20, 21, 22, 31, 32, 33, 36, 37, 100, 250];

/** @param {Features} features @param {number} maxRows */
export function wideLane(features, maxRows) {
  const row = fc.record({ key: fc.nat(5), sort: fc.nat(1), version: fc.nat(9), empty: fc.nat(40) });
  return fc
    .record({
      format: fc.constantFrom('csv', 'jsonl'),
      mode: fc.constantFrom('put', 'if-absent', 'newer', 'update', 'update-versioned', 'update-versioned'),
      width: fc.oneof({ weight: 10, arbitrary: fc.constantFrom(...WIDTHS) }, { weight: 1, arbitrary: fc.constant(-1) }),
      names: fc.constantFrom('plain', 'placeholders', 'placeholders', 'long'),
      sortKey: fc.boolean(),
      emptyCell: fc.constantFrom('omit', 'null'),
      rows: fc.array(row, { maxLength: Math.min(maxRows, 30), size: 'max' }),
      held: fc.array(fc.record({ key: fc.nat(5), sort: fc.nat(1), version: fc.nat(9), size: fc.constantFrom(0, 900, 1100, 4096, 40_000, 300_000), nameAt: fc.nat(500) }), { maxLength: 6 }),
    })
    .map((spec) => {
      const writeMode = spec.mode === 'update-versioned' ? 'update' : spec.mode;
      const versioned = spec.mode === 'newer' || spec.mode === 'update-versioned';
      // -1: past the update's 4 KB (1,100 attributes), or 450 where no expression lists them.
      const width = spec.width === -1 ? (writeMode === 'update' ? 1100 : 450) : spec.width;
      const wideRow = width > 300;
      /** @type {string[]} */
      const names = ['v'];
      const special = spec.names === 'placeholders' ? PLACEHOLDER_NAMES : spec.names === 'long' ? LONG_NAMES : [];
      for (let i = 0; names.length < width; i++) {
        // The odd names where base-36 placeholders numbered them: the 21st (k) and 32nd (v) attributes.
        const at = names.length;
        const odd = special.length > 0 && (at === 20 || at === 31 || at === 1 || at === 2 || at % 7 === 3) ? special.find((name) => !names.includes(name)) : undefined;
        names.push(odd ?? `c${i}`);
      }
      const keyNames = ['id', ...(spec.sortKey ? ['sk'] : [])];
      const header = [...keyNames, ...names];
      /** @type {Map<string, Record<string, any>>} */
      const held = new Map();
      for (const h of spec.held) {
        const item = { id: { S: `w${h.key}` }, ...(spec.sortKey ? { sk: { S: `s${h.sort}` } } : {}), v: { N: String(h.version) }, held: { S: 'yes' }, [names[h.nameAt % names.length] === 'v' ? 'c0' : names[h.nameAt % names.length]]: { S: 'held value' }, ...(h.size > 0 ? { pad: { S: 'p'.repeat(h.size) } } : {}) };
        held.set(`${h.key}/${spec.sortKey ? h.sort : ''}`, item);
      }
      // An empty cell now and then, never the version, never in a row past 300 attributes (its count stays where the oracle can tell).
      const emptyAt = (/** @type {typeof spec.rows[0]} */ r) => (wideRow || r.empty >= names.length || r.empty === 0 ? -1 : r.empty);
      const value = (/** @type {number} */ c, /** @type {number} */ i) => `x${i}.${c}`;
      const tableKeys = /** @type {TableKeys} */ ({ partition: { name: 'id', type: 'S' }, ...(spec.sortKey ? { sort: { name: 'sk', type: 'S' } } : {}) });
      /** @type {Record<string, any>} */
      const modeOptions = { ...(writeMode === 'put' ? {} : { writeMode }), ...(versioned ? { versionColumn: 'v' } : {}) };
      const extra = { initialItems: [...held.values()] };
      if (spec.format === 'csv') {
        const lines = spec.rows.map((r, i) => {
          const cells = [`w${r.key}`, ...(spec.sortKey ? [`s${r.sort}`] : []), ...names.map((name, c) => (name === 'v' ? String(r.version) : c === emptyAt(r) ? '' : value(c, i)))];
          return cells.map((cell) => csvField(cell, false)).join(',');
        });
        const bytes = Buffer.from(`${[header.map((name) => csvField(name, false)).join(','), ...lines].join('\n')}\n`);
        return importCase(bytes, { format: 'csv', columnTypes: { v: 'N' }, emptyCell: spec.emptyCell, ...modeOptions }, tableKeys, spec.rows.length, { ...extra, objectSuffix: '.csv' });
      }
      const lines = spec.rows.map((r, i) => {
        const members = [`"id":${jsonString(`w${r.key}`)}`, ...(spec.sortKey ? [`"sk":${jsonString(`s${r.sort}`)}`] : [])];
        names.forEach((name, c) => {
          if (name === 'v') members.push(`"v":${r.version}`);
          else if (c !== emptyAt(r)) members.push(`${jsonString(name)}:${jsonString(value(c, i))}`);
        });
        return `{${members.join(',')}}`;
      });
      const bytes = Buffer.from(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
      return importCase(bytes, { format: 'jsonl', columnTypes: {}, ...modeOptions }, tableKeys, spec.rows.length, { ...extra, objectSuffix: '.jsonl' });
    });
}

/**
 * The differential harness: runs the real import (src/handler.js) on the local servers for one case
 * under some conditions, and compares what it left behind with what the sequential oracle says a
 * correct import must leave: the table's items, the rejects files and the summary's counts.
 *
 * Used by differential.fuzz.js (npm run fuzz); a bounded run can be added to npm test the same way.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { handler, runJob } from '../../src/handler.js';
import { resolveConfig } from '../../src/config/index.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { createTable, listKeys, readRejects, TEST_BUCKET } from '../support/local.js';
import { describeCase } from './arbitraries.js';
import { startJitterProxy } from './jitter-proxy.js';
import { expectedJsonImport } from './json-oracle.js';
import { fixedRejectsFile, laneCaseArbitrary, laneConditionsArbitrary } from './lanes.js';
import { expectedImport, itemText, keyIdOf, optionsContradiction, REASONS_WITH_FIELDS, sameItem } from './oracle.js';

/** @typedef {import('./arbitraries.js').ImportCase} ImportCase */
/** @typedef {import('./arbitraries.js').Conditions} Conditions */
/** @typedef {ReturnType<typeof import('../support/local.js').useLocalServers>} Local */

/** Where a failing case is saved, to be replayed with FUZZ_REPLAY. */
export const FAILURE_DIR = join(tmpdir(), 'oracle-fuzz');

/** A small seeded generator (mulberry32), so that a case's faults are drawn the same way on replay. @param {number} seed */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The table a case needs: partition key keyColumn, sort key sortKeyColumn if set, each N or S as typed.
 * @param {ImportCase['options']} options
 * @returns {import('../../local/servers.js').TableKeys}
 */
export function tableKeysFor(options) {
  const typeOf = (/** @type {string} */ name) => {
    const type = Object.getOwnPropertyDescriptor(options.columnTypes, name)?.value;
    return type === 'N' || type === 'B' ? type : 'S';
  };
  return {
    partition: { name: options.keyColumn, type: typeOf(options.keyColumn) },
    ...(options.sortKeyColumn === undefined ? {} : { sort: { name: options.sortKeyColumn, type: typeOf(options.sortKeyColumn) } }),
  };
}

/**
 * Every item of a table, read over plain HTTP: the SDK's unmarshalling turns an attribute named
 * `__proto__` into an own property whose value is undefined, which would hide exactly what is checked.
 * @param {Record<string, string>} env  the local servers' environment
 * @param {string} table
 * @returns {Promise<Array<Record<string, any>>>}
 */
export async function scanTable(env, table) {
  /** @type {Array<Record<string, any>>} */
  const items = [];
  /** @type {unknown} */
  let startKey;
  do {
    const page = await callDynamoDB(env, 'Scan', { TableName: table, ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }) });
    for (const item of page.Items ?? []) items.push(item);
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items;
}

/**
 * Puts items (DynamoDB JSON, binaries as base64) into a table over plain HTTP, as scanTable reads them.
 * @param {Record<string, string>} env @param {string} table @param {Array<Record<string, any>>} items
 */
export async function putItems(env, table, items) {
  for (let from = 0; from < items.length; from += 25) {
    /** @type {Record<string, any>} */
    let requests = { [table]: items.slice(from, from + 25).map((Item) => ({ PutRequest: { Item } })) };
    while (Object.keys(requests).length > 0) {
      const answer = await callDynamoDB(env, 'BatchWriteItem', { RequestItems: requests });
      requests = answer.UnprocessedItems ?? {};
    }
  }
}

/**
 * One DynamoDB call over plain HTTP.
 * @param {Record<string, string>} env @param {string} action @param {unknown} body
 * @returns {Promise<Record<string, any>>}
 */
async function callDynamoDB(env, action, body) {
  const date = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  const response = await fetch(env.DYNAMODB_ENDPOINT, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${action}`,
      'x-amz-date': date,
      // DynamoDB Local (-sharedDb) reads the credential's scope but does not check the signature.
      authorization: `AWS4-HMAC-SHA256 Credential=${env.AWS_ACCESS_KEY_ID}/${date.slice(0, 8)}/${env.AWS_REGION}/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${action} failed: ${response.status} ${text}`);
  return JSON.parse(text);
}

/**
 * @typedef {object} Outcome
 * @property {Record<string, any> | undefined} summary
 * @property {unknown} thrown
 * @property {Array<Record<string, any>>} items
 * @property {string[][]} rejects   rows of the rejects files: line, reason, message, fields...
 * @property {Record<string, unknown>} proxies  what the proxies did
 * @property {string} [roundTrip]  what the from-rejects import after it read (the oracle's counts), or where the stops came
 * @property {boolean} [answersLost]  a call's answer may have been lost after it was applied (resets, writes given up)
 */

/**
 * Runs one case for real and returns the differences from the oracle (none: the import was correct).
 * @param {Local} local
 * @param {ImportCase} importCase
 * @param {Conditions} conditions
 * @returns {Promise<{ differences: string[], expected: import('./oracle.js').Expected, outcome: Outcome }>}
 */
export async function runCase(local, importCase, conditions) {
  const { env, dynamodb, s3 } = local;
  const { bytes, options, objects } = importCase;
  const tableKeys = importCase.tableKeys ?? tableKeysFor(options);
  const table = await createTable(dynamodb, tableKeys);
  if (importCase.initialItems !== undefined) await putItems(env, table, importCase.initialItems);
  // One object, or (a prefix job) each of the case's objects under a prefix of its own.
  const key = `oracle/${randomUUID()}${objects === undefined ? (importCase.objectSuffix ?? '.csv') : '/'}`;
  let expected;
  /** @type {{ bucket: string, key: string, etag: string } | undefined} */
  let object;
  if (objects === undefined) {
    const put = await s3.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: bytes }));
    const etag = (put.ETag ?? '').replaceAll('"', '');
    object = { bucket: TEST_BUCKET, key, etag };
    // A filled TTL column's time is known after the run (below); until then, any.
    expected = expectedFor(importCase, tableKeys, object, 0);
  } else {
    for (const object of objects) await s3.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: `${key}${object.name}`, Body: object.bytes }));
    expected = expectedOfObjects(importCase, tableKeys);
  }

  const { faults } = conditions;
  const random = seededRandom(conditions.faultSeed);
  /** @type {Array<() => Promise<void>>} */
  const stops = [];
  /** @type {Record<string, unknown>} */
  const proxies = {};
  let outcome;
  /** @type {string[]} */
  let differences = [];
  try {
    let endpoint = env.DYNAMODB_ENDPOINT;
    if (faults.latencyJitterMs > 0) {
      const jitter = await startJitterProxy({ target: endpoint, maxDelayMs: faults.latencyJitterMs, random });
      stops.push(() => jitter.stop());
      proxies.jitter = jitter.counts;
      endpoint = jitter.endpoint;
    }
    const { latencyJitterMs: _jitter, ...shares } = faults;
    if (Object.values(shares).some((share) => share > 0)) {
      const proxy = await startFaultProxy({ target: endpoint, ...shares, random });
      stops.push(() => proxy.stop());
      proxies.faults = proxy.counts;
      endpoint = proxy.endpoint;
    }
    process.env.DYNAMODB_ENDPOINT = endpoint;

    const event = {
      bucket: TEST_BUCKET,
      ...(objects === undefined ? { key } : { prefix: key }),
      table,
      ...options,
      concurrency: conditions.concurrency,
      maxAttempts: 100,
      backoffBaseMs: 2,
      backoffCapMs: 50,
      requestTimeoutMs: faults.hangCalls > 0 ? 500 : 5_000,
      rejectsPrefix: 'rejects/oracle/',
      statusPrefix: '_imports/oracle/',
      ...(conditions.segmentMs === undefined ? {} : { segmentMs: conditions.segmentMs }),
      ...(conditions.handOverEvery64Rows ? { timeMarginMs: 1_000 } : {}),
      ...((importCase.shards ?? conditions.shards) > 1 ? { shards: importCase.shards ?? conditions.shards } : {}),
    };
    // With as much Lambda time left as the margin, each segment hands over as soon as it may (every 64 rows).
    const context = conditions.handOverEvery64Rows ? { invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:oracle', getRemainingTimeInMillis: () => 1_000 } : undefined;
    /** @type {Record<string, any> | undefined} */
    let summary;
    /** @type {unknown} */
    let thrown;
    /** @type {string[]} */
    const stopsTaken = [];
    try {
      summary = /** @type {Record<string, any>} */ (importCase.stops === undefined ? await handler(event, /** @type {any} */ (context)) : await runStopped(event, importCase.stops, context, stopsTaken));
    } catch (error) {
      thrown = error;
    }
    process.env.DYNAMODB_ENDPOINT = env.DYNAMODB_ENDPOINT;
    // A filled TTL column counts from the import's time, which the summary says (ttlFrom): the oracle
    // takes it from there, and every row, of every segment, resume and shard, must have counted from it.
    const ttlFrom = Date.parse(summary?.ttlFrom);
    if (fillsTtl(options) && object !== undefined) expected = expectedFor(importCase, tableKeys, object, Number.isFinite(ttlFrom) ? ttlFrom : 0);
    const items = await scanTable(env, table);
    /** @type {string[][]} */
    const rejects = [];
    // A stopped and resumed import: every run's rejects files, listed (each run names its own).
    const rejectsObjects = importCase.stops === undefined ? summary?.rejectsObjects ?? [] : await listKeys(s3, `rejects/oracle/${key}/`);
    for (const object of rejectsObjects) {
      const [, ...rows] = await readRejects(s3, object);
      // A prefix job's rejects files are named after their object: each line is that object's.
      const source = objects?.find((each) => object.startsWith(`rejects/oracle/${key}${each.name}/`));
      rejects.push(...rows.map((row) => (objects === undefined ? row : [`${source?.name ?? object}:${row[0]}`, ...row.slice(1)])));
    }
    // A conditional call applied whose answer was lost (a reset after forwarding, writes given up at a
    // stop or hand-over) is sent again and finds the row's own write: counted skipped (docs/write-modes.md).
    const resets = /** @type {{ faults?: { resets?: number } }} */ (proxies).faults?.resets ?? 0;
    const answersLost = resets > 0 || conditions.handOverEvery64Rows || (importCase.stops ?? []).some((stop) => stop.abandon);
    outcome = /** @type {Outcome} */ ({ summary, thrown, items, rejects, proxies, answersLost });
    if (importCase.stops !== undefined) outcome.roundTrip = stopsTaken.length === 0 ? 'finished before any stop' : stopsTaken.join(', then ');
    differences = compare(expected, outcome, options);
    if (fillsTtl(options) && summary !== undefined && !Number.isFinite(ttlFrom)) differences.push(`the summary says no ttlFrom (${summary.ttlFrom}), the time a filled TTL column counts from`);
    // A round trip (from-rejects lane): the rejects file, fixed, imported into the same table.
    if (importCase.roundTrip !== undefined && differences.length === 0 && rejectsObjects.length > 0) {
      /** @type {string[][]} */
      const rows = [];
      for (const object of rejectsObjects) {
        const [header, ...rest] = await readRejects(s3, object);
        if (rows.length === 0) rows.push(header);
        rows.push(...rest);
      }
      const fixed = Buffer.from(fixedRejectsFile(rows, importCase, importCase.roundTrip.fixEvery));
      const fixedKey = `${key}.fixed-rejects.csv`;
      await s3.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: fixedKey, Body: fixed }));
      const format = options.format ?? 'csv';
      const initialItems = [...expected.items.values()];
      /** @param {number} [importTime] */
      const expectedOfFixed = (importTime) =>
        format === 'csv'
          ? expectedImport(fixed, { ...options, fromRejects: true, initialItems, importTime })
          : expectedJsonImport(fixed, { format: /** @type {'jsonl' | 'dynamodb-json'} */ (format), tableKeys, columnTypes: options.columnTypes, setSeparator: options.setSeparator, mode: options.mode, writeMode: options.writeMode, versionColumn: options.versionColumn, drop: options.drop, rename: options.rename, ttl: options.ttl, nest: options.nest, initialItems, fromRejects: true, importTime });
      process.env.DYNAMODB_ENDPOINT = endpoint;
      /** @type {Record<string, any> | undefined} */
      let summaryAgain;
      /** @type {unknown} */
      let thrownAgain;
      try {
        summaryAgain = /** @type {Record<string, any>} */ (await handler({ ...event, key: fixedKey, format, fromRejects: true, rejectsPrefix: 'rejects/oracle-again/' }, /** @type {any} */ (context)));
      } catch (error) {
        thrownAgain = error;
      }
      process.env.DYNAMODB_ENDPOINT = env.DYNAMODB_ENDPOINT;
      // The second import is a job of its own, with its own time.
      const expectedAgain = expectedOfFixed(Date.parse(summaryAgain?.ttlFrom) || 0);
      /** @type {string[][]} */
      const rejectsAgain = [];
      for (const object of summaryAgain?.rejectsObjects ?? []) rejectsAgain.push(...(await readRejects(s3, object)).slice(1));
      const outcomeAgain = { summary: summaryAgain, thrown: thrownAgain, items: await scanTable(env, table), rejects: rejectsAgain, proxies };
      outcome.roundTrip = `round trip ${expectedAgain.rowsRead} rows, ${expectedAgain.rejects.length} rejected again, ${expectedAgain.items.size} items`;
      differences.push(...compare(expectedAgain, outcomeAgain, options).map((difference) => `round trip (the fixed rejects file ${clip(JSON.stringify(fixed.toString('utf8')), 400)}): ${difference}`));
    }
  } finally {
    process.env.DYNAMODB_ENDPOINT = env.DYNAMODB_ENDPOINT;
    for (const stop of stops.reverse()) await stop();
    await dynamodb.send(new DeleteTableCommand({ TableName: table })).catch(() => {});
  }
  return { differences, expected, outcome };
}

/**
 * Runs an import as the command line does, stopped as `stops` say (the first Ctrl-C stops reading and lets
 * the writes end; a second gives them up), each time resumed from the checkpoint it returned; the last
 * run's summary.
 * @param {Record<string, any>} event @param {import('./lanes.js').Stop[]} stops @param {any} context
 * @param {string[]} [stopsTaken]  where each stop came, as it is found
 */
async function runStopped(event, stops, context, stopsTaken = /** @type {string[]} */ ([])) {
  let payload = event;
  for (let run = 0; ; run++) {
    const stop = new AbortController();
    const abandon = new AbortController();
    const plan = stops[run];
    /** @type {NodeJS.Timeout[]} */
    const timers = [];
    if (plan !== undefined) {
      timers.push(
        setTimeout(() => {
          stop.abort();
          if (plan.abandon) timers.push(setTimeout(() => abandon.abort(), plan.abandonAfterMs));
        }, plan.afterMs),
      );
    }
    let result;
    try {
      result = /** @type {Record<string, any>} */ (await runJob(payload, resolveConfig(payload, process.env), context, { stop: stop.signal, abandon: abandon.signal }));
    } finally {
      for (const timer of timers) clearTimeout(timer);
    }
    if (result.stopped !== true) return { ...result, stopsMet: run };
    const replay = result.checkpoint?.replay?.rows;
    stopsTaken.push(`stopped at line ${result.checkpoint?.line}${replay === undefined ? '' : `, ${replay} rows handed on`}`);
    payload = { ...event, checkpoint: result.checkpoint };
  }
}

/** Whether a case's TTL column is filled by the import (`column:+duration`). @param {ImportCase['options']} options */
const fillsTtl = (options) => typeof options.ttl === 'string' && options.ttl.includes(':+');

/**
 * What the oracle of the case's format says the import must leave.
 * @param {ImportCase} importCase @param {import('./json-oracle.js').TableKeys} tableKeys
 * @param {{ bucket: string, key: string, etag: string }} object
 * @param {number} [importTime]  the import's time (epoch ms), for a filled TTL column (before the run: unknown)
 */
export function expectedFor(importCase, tableKeys, object, importTime) {
  const { bytes, options, initialItems } = importCase;
  if (options.format === 'jsonl' || options.format === 'dynamodb-json') {
    // Options that contradict each other are refused in every format (a JSON line's names differ from
    // line to line: one the file lacks is not refused).
    const contradiction = optionsContradiction(options);
    /** @type {import('./oracle.js').Expected} */
    const refused = { error: { code: 'CONFIG_INVALID', message: contradiction ?? '' }, rowsRead: 0, rejects: [], items: new Map(), itemLines: new Map() };
    if (contradiction !== undefined) return refused;
    return expectedJsonImport(bytes, { format: options.format, tableKeys, columnTypes: options.columnTypes, setSeparator: options.setSeparator, mode: options.mode, writeMode: options.writeMode, versionColumn: options.versionColumn, drop: options.drop, rename: options.rename, ttl: options.ttl, nest: options.nest, initialItems, importTime });
  }
  return expectedImport(bytes, { ...options, ...object, initialItems, importTime });
}

/**
 * A prefix job's expected end: each object by the oracle of its format, from its own first line (the
 * objects' keys are their own, so their order does not matter); a reject's line is `object:line`.
 * @param {ImportCase} importCase @param {import('./json-oracle.js').TableKeys} tableKeys
 * @returns {import('./oracle.js').Expected}
 */
function expectedOfObjects(importCase, tableKeys) {
  /** @type {import('./oracle.js').Expected} */
  const merged = { rowsRead: 0, rejects: [], items: new Map(), itemLines: new Map(), applied: { puts: 0, deletes: 0, keys: 0, lastPuts: 0, lastDeletes: 0 } };
  for (const object of importCase.objects ?? []) {
    const one = expectedFor({ ...importCase, bytes: object.source, options: { ...importCase.options, format: object.format }, objects: undefined }, tableKeys, { bucket: TEST_BUCKET, key: object.name, etag: '' });
    if (one.error !== undefined) return { ...merged, error: one.error };
    merged.rowsRead += one.rowsRead;
    merged.skipped = (merged.skipped ?? 0) + (one.skipped ?? 0);
    // Each object's keys are its own: the keys add up.
    for (const count of /** @type {const} */ (['puts', 'deletes', 'keys', 'lastPuts', 'lastDeletes'])) /** @type {any} */ (merged.applied)[count] += one.applied?.[count] ?? 0;
    for (const reject of one.rejects) merged.rejects.push({ ...reject, line: /** @type {any} */ (`${object.name}:${reject.line}`) });
    for (const [id, item] of one.items) merged.items.set(id, item);
    for (const [id, line] of one.itemLines) merged.itemLines.set(id, line);
  }
  return merged;
}

/** At most this many characters of one value in a message. @param {string} text */
function clip(text, max = 240) {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

/** @param {unknown} error */
function describeError(error) {
  if (error instanceof Error) return `${error.name}${'code' in error ? ` [${String(error.code)}]` : ''}: ${error.message}`;
  return String(error);
}

/**
 * A job error the pipeline threw matches the oracle's by its code (src/errors.js), never by a word of its
 * message (issue 46): HEADER is HEADER_INVALID, CONFIG_INVALID an option refused, UNSUPPORTED_ENCODING
 * itself. Where two of the oracle's rules meet in one case (a header with a name twice, and an option
 * naming a column it lacks), either code is right: `alternatives`.
 * @param {unknown} error @param {{ code: string, alternatives?: string[] }} expected
 */
export function matchesJobError(error, expected) {
  const e = /** @type {{ code?: string }} */ (error ?? {});
  const codeOf = (/** @type {string} */ code) => (code === 'HEADER' ? 'HEADER_INVALID' : code === 'OPTIONS' ? 'CONFIG_INVALID' : code);
  return [expected.code, ...(expected.alternatives ?? [])].some((code) => e.code === codeOf(code));
}

/**
 * The differences between what the oracle expects and what the import did, one message each.
 * @param {import('./oracle.js').Expected} expected
 * @param {Outcome} outcome
 * @param {ImportCase['options']} options
 * @returns {string[]}
 */
export function compare(expected, outcome, options) {
  /** @type {string[]} */
  const differences = [];
  const { summary, thrown, items, rejects } = outcome;

  if (expected.error !== undefined) {
    if (thrown === undefined) differences.push(`the job should fail (${expected.error.code}: ${expected.error.message}) but it finished: rowsRead ${summary?.rowsRead}, written ${summary?.written}, rejected ${summary?.rejected}`);
    else if (!matchesJobError(thrown, expected.error)) differences.push(`the job should fail with ${expected.error.code} (${expected.error.message}) but threw ${clip(describeError(thrown), 400)}`);
    if (items.length > 0) differences.push(`the job should write nothing, but the table holds ${items.length} items`);
    return differences;
  }
  if (thrown !== undefined) differences.push(`the import threw ${clip(describeError(thrown), 400)}`);
  if (summary !== undefined) {
    if (summary.rowsRead !== expected.rowsRead) differences.push(`summary.rowsRead is ${summary.rowsRead}, expected ${expected.rowsRead}`);
    if (summary.rejected !== expected.rejects.length) differences.push(`summary.rejected is ${summary.rejected}, expected ${expected.rejects.length} (${JSON.stringify(summary.rejectedByReason)})`);
    // Where answers were lost, a row may be counted skipped that its own lost call wrote: the table is
    // compared item by item below, and the books hold written + skipped to account.
    if (outcome.answersLost === true && options.writeMode !== undefined && options.writeMode !== 'put') {
      const applied = (summary.written ?? 0) + (summary.skipped ?? 0);
      // No row collapses under a conditional mode: each is written, skipped or rejected.
      const expectedApplied = expected.rowsRead - expected.rejects.length;
      if (applied !== expectedApplied) differences.push(`summary.written + skipped is ${applied}, expected ${expectedApplied} (answers were lost)`);
      // A lost answer turns a write into a skip, never a skip into a write.
      if ((summary.skipped ?? 0) < (expected.skipped ?? 0)) differences.push(`summary.skipped is ${summary.skipped}, fewer than the ${expected.skipped} expected`);
    } else if ((summary.skipped ?? 0) !== (expected.skipped ?? 0)) {
      differences.push(`summary.skipped is ${summary.skipped}, expected ${expected.skipped ?? 0} (${JSON.stringify(summary.skippedByReason)})`);
    }
    // A conditional mode collapses nothing: every row not rejected is written or skipped.
    if (options.writeMode !== undefined && options.writeMode !== 'put') {
      if ((summary.duplicatesCollapsed ?? 0) !== 0) differences.push(`summary.duplicatesCollapsed is ${summary.duplicatesCollapsed} under writeMode ${options.writeMode}, which collapses no row`);
      const written = expected.rowsRead - expected.rejects.length - (expected.skipped ?? 0);
      if (outcome.answersLost !== true && summary.written !== written) differences.push(`summary.written is ${summary.written}, expected ${written}`);
    }
    // Put and delete: written, deleted and duplicatesCollapsed against the oracle's own counts, not
    // only through balanced (which the importer computes from those same counts). How many rows of one
    // key collapse in a batch depends on the batches: the sum is exact, each part bounded.
    if ((options.writeMode ?? 'put') === 'put' && expected.applied !== undefined) {
      const { puts, deletes, lastPuts, lastDeletes } = expected.applied;
      const written = summary.written ?? 0;
      const deleted = summary.deleted ?? 0;
      const collapsed = summary.duplicatesCollapsed ?? 0;
      if (written + deleted + collapsed !== puts + deletes) differences.push(`summary.written ${written} + deleted ${deleted} + duplicatesCollapsed ${collapsed} is ${written + deleted + collapsed}, expected ${puts + deletes} rows applied (${puts} puts, ${deletes} deletes)`);
      if (written > puts) differences.push(`summary.written is ${written}, more than the ${puts} rows the oracle writes`);
      if (deleted > deletes) differences.push(`summary.deleted is ${deleted}, more than the ${deletes} rows the oracle deletes`);
      // A key's last row is never collapsed into another: at least those are written or deleted.
      if (written < lastPuts) differences.push(`summary.written is ${written}, fewer than the ${lastPuts} keys whose last row the oracle writes`);
      if (deleted < lastDeletes) differences.push(`summary.deleted is ${deleted}, fewer than the ${lastDeletes} keys whose last row the oracle deletes`);
    }
    if (summary.balanced !== true) differences.push(`summary.balanced is ${summary.balanced}: rowsRead ${summary.rowsRead}, written ${summary.written}, rejected ${summary.rejected}, duplicatesCollapsed ${summary.duplicatesCollapsed}, skipped ${summary.skipped}`);
  }

  // Items, key by key.
  /** @type {Map<string, Record<string, any>>} */
  const found = new Map();
  for (const item of items) {
    const id = keyIdOf(item, options);
    if (found.has(id)) differences.push(`the table holds two items with key ${id}`);
    found.set(id, item);
  }
  for (const [id, item] of expected.items) {
    const got = found.get(id);
    const line = expected.itemLines.get(id);
    if (got === undefined) differences.push(`item ${clip(id, 80)} is missing: expected ${clip(itemText(item))} (line ${line})`);
    else if (!sameItem(item, got)) differences.push(`item ${clip(id, 80)} is ${clip(itemText(got))}, expected ${clip(itemText(item))} (line ${line})`);
  }
  for (const [id, got] of found) {
    if (!expected.items.has(id)) differences.push(`item ${clip(id, 80)} should not be there: ${clip(itemText(got))}`);
  }

  // Rejects, as a multiset of (line, reason); fields where the reason carries them.
  /** @type {Map<string, string[][]>} */
  const actualRejects = new Map();
  for (const row of rejects) {
    const key = `${row[0]} ${row[1]}`;
    actualRejects.set(key, [...(actualRejects.get(key) ?? []), row]);
  }
  for (const reject of expected.rejects) {
    const key = `${reject.line} ${reject.reason}`;
    const matches = actualRejects.get(key) ?? [];
    const row = matches.shift();
    if (row === undefined) {
      differences.push(`reject "line ${reject.line} ${reject.reason}" is missing${reject.fields === undefined ? '' : ` (fields ${clip(JSON.stringify(reject.fields))})`}`);
      continue;
    }
    if (REASONS_WITH_FIELDS.has(reject.reason) && JSON.stringify(row.slice(3)) !== JSON.stringify(reject.fields)) {
      differences.push(`reject "line ${reject.line} ${reject.reason}" has fields ${clip(JSON.stringify(row.slice(3)))}, expected ${clip(JSON.stringify(reject.fields))}`);
    }
  }
  for (const rows of actualRejects.values()) {
    for (const row of rows) differences.push(`reject "line ${row[0]} ${row[1]}" should not be there: ${clip(row[2] ?? '', 160)}; fields ${clip(JSON.stringify(row.slice(3)))}`);
  }
  return differences;
}

/**
 * A case and its conditions as a file that FUZZ_REPLAY runs again.
 * @param {ImportCase} importCase @param {Conditions} conditions @param {string[]} differences
 */
export function saveFailure(importCase, conditions, differences) {
  mkdirSync(FAILURE_DIR, { recursive: true });
  const file = join(FAILURE_DIR, 'last-failure.json');
  const { tableKeys, initialItems, objectSuffix, shards } = importCase;
  const objects = importCase.objects?.map((object) => ({ ...object, bytes: object.bytes.toString('base64'), source: object.source.toString('base64') }));
  writeFileSync(file, `${JSON.stringify({ bytes: importCase.bytes.toString('base64'), options: importCase.options, tableKeys, initialItems, objectSuffix, objects, shards, conditions, description: importCase.description, differences }, null, 2)}\n`);
  return file;
}

/** @param {string} file @returns {{ importCase: ImportCase, conditions: Conditions }} */
export function loadFailure(file) {
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  const bytes = Buffer.from(saved.bytes, 'base64');
  // JSON.parse keeps "__proto__" in columnTypes as an own property, as the import's payload would.
  const { tableKeys, initialItems, objectSuffix, shards } = saved;
  /** @type {import('./lanes.js').JobObject[] | undefined} */
  const objects = saved.objects?.map((/** @type {any} */ object) => ({ ...object, bytes: Buffer.from(object.bytes, 'base64'), source: Buffer.from(object.source, 'base64') }));
  return { importCase: { bytes, options: saved.options, description: saved.description ?? describeCase(bytes, saved.options), rows: 0, tableKeys, initialItems, objectSuffix, objects, ...(shards === undefined ? {} : { shards }) }, conditions: saved.conditions };
}

/** @param {Conditions} conditions */
function describeConditions(conditions) {
  const faults = Object.entries(conditions.faults).filter(([, value]) => value > 0).map(([name, value]) => `${name} ${value}`);
  return [
    faults.length === 0 ? 'no faults' : faults.join(', '),
    conditions.segmentMs === undefined ? '' : `segmentMs ${conditions.segmentMs}`,
    conditions.handOverEvery64Rows ? 'hand-over every 64 rows' : '',
    conditions.shards > 1 ? `${conditions.shards} shards` : '',
    `concurrency ${conditions.concurrency}`,
  ].filter((part) => part !== '').join('; ');
}

/**
 * @typedef {object} FuzzOptions
 * @property {number} numRuns
 * @property {number} [seed]
 * @property {string} [path]           replay one case from a reported seed and path
 * @property {Set<string>} features
 * @property {number} [timeLimitMs]    for the whole run, shrinking included
 * @property {number} [verbose]
 * @property {number} [maxRows]
 * @property {string} [lane]           which lane's cases (lanes.js); default csv
 * @property {boolean} [shrink]        false: a failure is reported as found, not shrunk (npm test's bounded runs: the fuzz shrinks)
 * @property {(line: string) => void} [log]
 */

/**
 * Generates cases and conditions, runs each for real and compares it with the oracle. A failure
 * throws fast-check's report: the seed and path that replay it, and the smallest failing case found.
 * @param {Local} local
 * @param {FuzzOptions} options
 */
export async function checkAgainstOracle(local, { numRuns, seed, path, features, timeLimitMs, verbose = 0, maxRows, lane = 'csv', shrink = true, log = () => {} }) {
  let run = 0;
  let savedAs = '';
  /** The case under way: one the time limit interrupts runs on, and is awaited before the servers stop. */
  let lastCase = Promise.resolve();
  const property = fc.asyncProperty(laneCaseArbitrary(lane, features, { maxRows }), laneConditionsArbitrary(lane, features), (importCase, conditions) => (lastCase = checkCase(importCase, importCase.shards === undefined ? conditions : { ...conditions, shards: importCase.shards })));
  /** @param {import('./arbitraries.js').ImportCase} importCase @param {import('./arbitraries.js').Conditions} conditions */
  async function checkCase(importCase, conditions) {
    run++;
    const started = performance.now();
    const { differences, expected, outcome } = await runCase(local, importCase, conditions);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const keys = importCase.tableKeys ?? tableKeysFor(importCase.options);
    let shape = `${importCase.objects === undefined ? (importCase.options.format ?? 'csv') : `prefix of ${importCase.objects.length} objects`}${importCase.options.mode === 'delete' ? ' delete' : ''} keys ${keys.partition.type}${keys.sort === undefined ? '' : `/${keys.sort.type}`}`;
    if (importCase.options.writeMode !== undefined) shape += `, ${importCase.options.writeMode}`;
    log(`${lane} #${run} ${shape}, ${importCase.bytes.length} bytes, ${expected.error?.code ?? `${expected.rowsRead} rows, ${expected.items.size} items, ${expected.rejects.length} rejects`}; ${describeConditions(conditions)}${outcome.roundTrip === undefined ? '' : `; ${outcome.roundTrip}`}: ${differences.length === 0 ? 'same' : `${differences.length} differences`} (${seconds} s)`);
    if (differences.length === 0) return;
    savedAs = saveFailure(importCase, conditions, differences);
    const shown = differences.slice(0, 25);
    throw new Error(
      [
        `${differences.length} differences from the oracle (${describeConditions(conditions)}; proxies ${JSON.stringify(outcome.proxies)}):`,
        ...shown.map((difference) => `  - ${difference}`),
        ...(differences.length > shown.length ? [`  … and ${differences.length - shown.length} more`] : []),
        `  case saved as ${savedAs}: FUZZ_REPLAY=${savedAs} npx vitest run --config vitest.fuzz.config.js`,
      ].join('\n'),
    );
  }
  const started = performance.now();
  const details = await fc.check(property, {
    numRuns,
    ...(seed === undefined ? {} : { seed }),
    ...(path === undefined ? {} : { path, endOnFailure: true }),
    ...(shrink ? {} : { endOnFailure: true }),
    verbose,
    ...(timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: timeLimitMs }),
  });
  // fast-check stops waiting for a case at the time limit; the case still counts, and must end before
  // the local servers stop (else it fails on a closed port).
  await lastCase;
  const seconds = (performance.now() - started) / 1000;
  const asked = path === undefined ? numRuns : 1;
  if (details.failed && !details.interrupted) throw new Error(fc.defaultReportMessage(details) ?? `lane ${lane} failed`);
  // A lane that ran fewer cases than asked proves less than its count says: it fails (issue 46).
  if (details.interrupted) {
    throw new Error(`lane ${lane} stopped by its time limit (${((timeLimitMs ?? 0) / 1000).toFixed(0)} s) after ${details.numRuns} of the ${asked} cases asked (seed ${details.seed}, ${seconds.toFixed(0)} s): raise the limit or ask fewer cases${details.failed ? `; the last one failed:\n${fc.defaultReportMessage(details)}` : ''}`);
  }
  if (details.numRuns < asked) throw new Error(`lane ${lane} ran ${details.numRuns} of the ${asked} cases asked (seed ${details.seed})`);
  return { cases: details.numRuns, asked, seed: details.seed, seconds, generated: run };
}

/**
 * Runs one saved case again (FUZZ_REPLAY) and returns its differences.
 * @param {Local} local @param {string} file
 */
export async function replayFailure(local, file) {
  const { importCase, conditions } = loadFailure(file);
  const { differences, outcome } = await runCase(local, importCase, conditions);
  const { summary } = outcome;
  const counts = summary === undefined ? `threw ${describeError(outcome.thrown)}` : JSON.stringify({ rowsRead: summary.rowsRead, written: summary.written, rejected: summary.rejected, duplicatesCollapsed: summary.duplicatesCollapsed, calls: summary.calls, retries: summary.retries, segments: summary.segments });
  return { differences, description: importCase.description, conditions: `${describeConditions(conditions)}; proxies ${JSON.stringify(outcome.proxies)}; import ${counts}` };
}

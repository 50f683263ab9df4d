/**
 * Groups items into BatchWriteItem calls of 25 and keeps at most `limit.concurrency` of them in flight
 * (a sliding window: a new call starts as soon as any call ends). The window is fixed or adaptive (AIMD,
 * see write-window.js). Items DynamoDB leaves unprocessed, and calls that fail for capacity or a
 * transient fault, are re-sent with full-jitter backoff up to maxAttempts; then they are rejected with
 * the last error. Nothing is dropped without being counted.
 *
 * A batch waiting out its backoff holds no slot of the window: the window counts calls on the wire.
 * The reader is held back by the batches outstanding (on the wire, waiting for a slot, or backing
 * off), at most `concurrency`, so memory stays bounded whatever the window does.
 */
import pLimit from 'p-limit';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay, classifyError, describeError } from './retry.js';
import { countRejection } from '../observe/counters.js';
import { createAdaptivePace, createWcuLimiter, createWriteWindow } from './window.js';

export const BATCH_SIZE = 25;

/** @typedef {import('../items/item-builder.js').Item} Item */
/** @typedef {import('../items/item-builder.js').RejectReason} RejectReason */
/** @typedef {import('../observe/counters.js').Stats} Stats */

/**
 * One row on its way to the table.
 * @typedef {object} Entry
 * @property {string} json    the item in DynamoDB's JSON wire form (rows.js)
 * @property {string} keyId   primary key as one string
 * @property {number} line    line of the CSV where the record starts
 * @property {string[]} fields  the original fields, for the rejects file
 */

/**
 * @typedef {object} Rejection
 * @property {number} line
 * @property {RejectReason} reason
 * @property {string} message
 * @property {string[]} fields
 */

/**
 * @typedef {object} BatchWriterOptions
 * @property {Pick<import('./batch-write-client.js').BatchWriteClient, 'batchWrite'>} client  sends one request body
 * @property {string} table
 * @property {(item: Item) => string} keyIdOf   the keyId of an item as DynamoDB returns it
 * @property {number} concurrency      most calls in flight (the adaptive window's ceiling)
 * @property {boolean} [adaptive]      grow and cut the window with the table's answers (AIMD)
 * @property {number} [minConcurrency] the adaptive window's floor
 * @property {number} [maxWcu]         most write capacity to consume per second
 * @property {number} maxAttempts
 * @property {number} backoffBaseMs
 * @property {number} backoffCapMs
 * @property {Stats} stats
 * @property {(rejection: Rejection) => void} onReject
 * @property {(ms: number) => Promise<unknown>} [wait]  for tests
 */

/** @param {BatchWriterOptions} options */
export function createBatchWriter(options) {
  const { client, table, keyIdOf, maxAttempts, backoffBaseMs, backoffCapMs, stats, onReject, wait = sleep } = options;
  const limit = pLimit(options.concurrency);
  const window = createWriteWindow({
    limit,
    adaptive: options.adaptive ?? false,
    floor: Math.min(options.minConcurrency ?? 1, options.concurrency),
    ceiling: options.concurrency,
    onChange: (size) => (stats.window = size),
  });
  stats.window = limit.concurrency;
  const capacity = createWcuLimiter(options.maxWcu);
  const pace = createAdaptivePace({ adaptive: options.adaptive ?? false });

  /** @type {Entry[]} */
  let batch = [];
  /** @type {Map<string, number>} keyId -> index in batch */
  let batchKeys = new Map();
  /** Batches dispatched and not yet written or rejected. @type {Set<Promise<void>>} */
  const outstanding = new Set();
  const maxOutstanding = options.concurrency;
  /** @type {(() => void) | undefined} */
  let wakeReader;
  /** @type {unknown} */
  let fatal;

  function reject(/** @type {Entry} */ entry, /** @type {RejectReason} */ reason, /** @type {string} */ message) {
    countRejection(stats, reason);
    onReject({ line: entry.line, reason, message, fields: entry.fields });
  }

  const bodyStart = `{"RequestItems":{${JSON.stringify(table)}:[`;
  const bodyEnd = ']},"ReturnConsumedCapacity":"TOTAL"}';
  /** The BatchWriteItem request as JSON. @param {Entry[]} entries */
  function requestBody(entries) {
    let body = bodyStart;
    for (let i = 0; i < entries.length; i++) body += `${i === 0 ? '' : ','}{"PutRequest":{"Item":${entries[i].json}}}`;
    return body + bodyEnd;
  }

  /**
   * Sends entries until all are written or rejected. Throws only a fatal error.
   * @param {Entry[]} entries
   */
  async function writeBatch(entries) {
    let pending = entries;
    /** @type {unknown} */
    let lastError;
    let attempts = 0;
    // Attempts that count toward maxAttempts: failures, and throttling while the import as a whole
    // writes nothing. Throttling while other rows are being written is contention for capacity the
    // table does have: the batch waits its turn (with backoff) rather than being rejected.
    let counted = 0;
    // Progress is judged since the previous attempt began, backoff included: within one short call a
    // table at full capacity can refuse everything for a moment while it still writes every second.
    let progressMark = stats.written;
    while (counted < maxAttempts) {
      if (attempts > 0) {
        if (fatal !== undefined) break;
        stats.retries++;
        await wait(backoffDelay(attempts, backoffBaseMs, backoffCapMs));
      }
      const acquired = pending.length;
      const ready = capacity.acquire(acquired);
      if (ready !== undefined) await ready;
      const paced = pace.ready();
      if (paced !== undefined) await paced;
      const writtenBefore = stats.written;
      attempts++;
      let output;
      try {
        output = await limit(send, pending);
      } catch (error) {
        capacity.settle(-acquired); // a failed call consumes nothing
        const kind = classifyError(error);
        if (kind === 'fatal') throw error;
        if (kind === 'invalid') return splitRefused(pending, error);
        if (kind === 'throttle') {
          stats.throttledCalls++;
          stats.throttledItems += pending.length;
          window.throttled();
          pace.throttled(pending.length);
          pace.refused();
          if (stats.written === progressMark) counted++;
          progressMark = writtenBefore;
        } else {
          stats.transientErrors++;
          counted++;
        }
        lastError = error;
        continue;
      }
      const unprocessed = output.UnprocessedItems?.[table] ?? [];
      let units = 0;
      for (const consumed of output.ConsumedCapacity ?? []) units += consumed.CapacityUnits ?? 0;
      if (output.ConsumedCapacity === undefined) units = pending.length - unprocessed.length;
      stats.wcu += units;
      capacity.settle(units - acquired);
      pace.spend(units, pending.length - unprocessed.length);
      stats.written += pending.length - unprocessed.length;
      if (unprocessed.length === 0) {
        window.succeeded();
        return;
      }
      window.throttled();
      pace.throttled(unprocessed.length);
      if (stats.written === progressMark) counted++;
      progressMark = writtenBefore;
      stats.throttledItems += unprocessed.length;
      lastError = `${unprocessed.length} of ${pending.length} items came back as UnprocessedItems`;
      pending = matchUnprocessed(pending, unprocessed);
    }
    const reason = fatal !== undefined ? `the import stopped on a fatal error after ${describeError(fatal)}` : `${attempts} attempts`;
    for (const entry of pending) reject(entry, 'ATTEMPTS_EXHAUSTED', `not written after ${reason}; last error: ${describeError(lastError)}`);
  }

  /** One call on the wire, in a slot of the window. @param {Entry[]} entries */
  async function send(entries) {
    if (fatal !== undefined) throw fatal;
    stats.calls++;
    stats.inFlight++;
    try {
      return await client.batchWrite(requestBody(entries));
    } finally {
      stats.inFlight--;
    }
  }

  /**
   * The table refused the call (ValidationException). Halve it until the refused items stand alone, so
   * that one bad item costs only itself.
   * @param {Entry[]} entries
   * @param {unknown} error
   */
  async function splitRefused(entries, error) {
    if (entries.length === 1) {
      reject(entries[0], 'REJECTED_BY_TABLE', describeError(error));
      return;
    }
    const middle = Math.ceil(entries.length / 2);
    await writeBatch(entries.slice(0, middle));
    await writeBatch(entries.slice(middle));
  }

  /**
   * @param {Entry[]} sent
   * @param {Array<{ PutRequest?: { Item?: Item } }>} unprocessed
   */
  function matchUnprocessed(sent, unprocessed) {
    const byKey = new Map(sent.map((entry) => [entry.keyId, entry]));
    return unprocessed.map((request) => {
      const item = request.PutRequest?.Item;
      const entry = item === undefined ? undefined : byKey.get(keyIdOf(item));
      if (entry === undefined) throw new Error(`DynamoDB returned an unprocessed item that was not in the batch (table ${table})`);
      return entry;
    });
  }

  function dispatch() {
    const entries = batch;
    batch = [];
    batchKeys = new Map();
    const call = writeBatch(entries)
      .catch((error) => {
        // The first fatal error stops the import; the summary counts what it left unwritten.
        if (fatal === undefined) fatal = error;
      })
      .finally(() => {
        outstanding.delete(call);
        const wake = wakeReader;
        wakeReader = undefined;
        wake?.();
      });
    outstanding.add(call);
  }

  function windowIsFull() {
    return outstanding.size >= maxOutstanding;
  }

  return {
    /**
     * Adds one row. Returns a promise when the caller must wait (the window is full), else undefined,
     * so that the common path costs no promise.
     * @param {Entry} entry
     * @returns {Promise<void> | undefined}
     */
    add(entry) {
      if (fatal !== undefined) throw fatal;
      const previous = batchKeys.get(entry.keyId);
      if (previous !== undefined) {
        // The row further down the file wins, as sequential writes would have it, even when rows
        // arrive out of order (shuffleWindow).
        if (entry.line > batch[previous].line) batch[previous] = entry;
        stats.duplicatesCollapsed++;
        return undefined;
      }
      batchKeys.set(entry.keyId, batch.length);
      batch.push(entry);
      if (batch.length < BATCH_SIZE) return undefined;
      dispatch();
      return windowIsFull() ? slotFree() : undefined;
    },

    /** Sends the last partial batch and waits for every call to end. Throws the first fatal error. */
    async flush() {
      if (batch.length > 0 && fatal === undefined) dispatch();
      while (outstanding.size > 0) await Promise.all(outstanding);
      if (fatal !== undefined) throw fatal;
    },

    limit,
  };

  /** @returns {Promise<void>} */
  function slotFree() {
    return new Promise((resolve) => {
      wakeReader = () => resolve(undefined);
    }).then(() => (fatal !== undefined ? Promise.reject(fatal) : windowIsFull() ? slotFree() : undefined));
  }
}

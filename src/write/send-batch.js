/**
 * Sends one batch until each of its items is written or rejected. Each attempt takes a slot of the
 * window (p-limit) and waits for the WCU cap and the adaptive pace; items DynamoDB leaves unprocessed,
 * and calls that fail for capacity or a transient fault, are re-sent after full-jitter backoff while the
 * batch's attempt budget lasts, then rejected with the last error. A call the table refuses
 * (ValidationException) is split in halves until the refused items stand alone, so that one bad item
 * costs only itself. A batch waiting out its backoff holds no slot: the window counts calls on the wire.
 */
import { describeError, DynamoDBCallError } from '../errors.js';
import { createAttemptBudget } from './attempt-budget.js';
import { backoffDelay, classifyError } from './retry.js';

/** @typedef {import('../types.js').Entry} Entry */
/** @typedef {import('../types.js').Item} Item */
/** @typedef {import('../errors.js').RejectReason} RejectReason */

/**
 * @typedef {object} BatchSenderOptions
 * @property {Pick<import('./batch-write-client.js').BatchWriteClient, 'batchWrite'>} client
 * @property {string} table
 * @property {(item: Item) => string} keyIdOf  the keyId of an item as DynamoDB returns it
 * @property {number} maxAttempts
 * @property {number} backoffBaseMs
 * @property {number} backoffCapMs
 * @property {import('p-limit').LimitFunction} limit  the window: calls on the wire at once
 * @property {{ succeeded: () => void, throttled: () => void }} window  told how each call went
 * @property {ReturnType<typeof import('./pace.js').createWcuLimiter>} capacity
 * @property {ReturnType<typeof import('./pace.js').createAdaptivePace>} pace
 * @property {import('../observe/counters.js').Stats} stats
 * @property {(entry: Entry, reason: RejectReason, message: string) => void} reject
 * @property {() => unknown} stoppedBy  the fatal error that stopped the import, if one has
 * @property {(ms: number) => Promise<unknown>} wait
 */

/**
 * @param {BatchSenderOptions} options
 * @returns {(entries: Entry[]) => Promise<void>}  throws only a fatal error
 */
export function createBatchSender(options) {
  const { client, table, keyIdOf, maxAttempts, backoffBaseMs, backoffCapMs, limit, window, capacity, pace, stats, reject, stoppedBy, wait } = options;

  const bodyStart = `{"RequestItems":{${JSON.stringify(table)}:[`;
  const bodyEnd = ']},"ReturnConsumedCapacity":"TOTAL"}';
  /** The BatchWriteItem request as JSON. @param {Entry[]} entries */
  function requestBody(entries) {
    let body = bodyStart;
    for (let i = 0; i < entries.length; i++) body += `${i === 0 ? '' : ','}{"PutRequest":{"Item":${entries[i].json}}}`;
    return body + bodyEnd;
  }

  /** One call on the wire, in a slot of the window. @param {Entry[]} entries */
  async function call(entries) {
    const fatal = stoppedBy();
    if (fatal !== undefined) throw fatal;
    stats.calls++;
    stats.inFlight++;
    try {
      return await client.batchWrite(requestBody(entries));
    } finally {
      stats.inFlight--;
    }
  }

  /** @param {Entry[]} entries */
  async function sendBatch(entries) {
    let pending = entries;
    /** @type {unknown} */
    let lastError;
    const budget = createAttemptBudget(maxAttempts, () => stats.written);
    while (budget.left()) {
      if (budget.attempts() > 0) {
        if (stoppedBy() !== undefined) break;
        stats.retries++;
        await wait(backoffDelay(budget.attempts(), backoffBaseMs, backoffCapMs));
      }
      const acquired = pending.length;
      const ready = capacity.acquire(acquired);
      if (ready !== undefined) await ready;
      const paced = pace.ready();
      if (paced !== undefined) await paced;
      budget.begin();
      let output;
      try {
        output = await limit(call, pending);
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
          budget.throttled();
        } else {
          stats.transientErrors++;
          budget.failed();
        }
        lastError = error;
        continue;
      }
      const unprocessed = output.UnprocessedItems?.[table] ?? [];
      const writtenNow = pending.length - unprocessed.length;
      let units = 0;
      for (const consumed of output.ConsumedCapacity ?? []) units += consumed.CapacityUnits ?? 0;
      if (output.ConsumedCapacity === undefined) units = writtenNow;
      stats.wcu += units;
      capacity.settle(units - acquired);
      pace.spend(units, writtenNow);
      stats.written += writtenNow;
      if (unprocessed.length === 0) {
        window.succeeded();
        return;
      }
      window.throttled();
      pace.throttled(unprocessed.length);
      budget.throttled();
      stats.throttledItems += unprocessed.length;
      lastError = `${unprocessed.length} of ${pending.length} items came back as UnprocessedItems`;
      pending = matchUnprocessed(pending, unprocessed);
    }
    const fatal = stoppedBy();
    const why = fatal !== undefined ? `the import stopped on a fatal error after ${describeError(fatal)}` : `${budget.attempts()} attempts`;
    for (const entry of pending) reject(entry, 'ATTEMPTS_EXHAUSTED', `not written after ${why}; last error: ${describeError(lastError)}`);
  }

  /**
   * The table refused the call (ValidationException): halve it until the refused items stand alone.
   * @param {Entry[]} entries
   * @param {unknown} error
   */
  async function splitRefused(entries, error) {
    if (entries.length === 1) {
      reject(entries[0], 'REJECTED_BY_TABLE', describeError(error));
      return;
    }
    const middle = Math.ceil(entries.length / 2);
    await sendBatch(entries.slice(0, middle));
    await sendBatch(entries.slice(middle));
  }

  /**
   * The entries of the batch that DynamoDB returned unprocessed, found by their keys.
   * @param {Entry[]} sent
   * @param {Array<{ PutRequest?: { Item?: Item } }>} unprocessed
   */
  function matchUnprocessed(sent, unprocessed) {
    const byKey = new Map(sent.map((entry) => [entry.keyId, entry]));
    return unprocessed.map((request) => {
      const item = request.PutRequest?.Item;
      const entry = item === undefined ? undefined : byKey.get(keyIdOf(item));
      if (entry === undefined) throw new DynamoDBCallError('UnmatchedUnprocessedItem', `DynamoDB returned an unprocessed item that was not in the batch (table ${table})`, 200, undefined);
      return entry;
    });
  }

  return sendBatch;
}

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
import { attemptTurn, countApplied, countFailedCall, onTheWire, rejectUnwritten, throttled } from './call-results.js';
import { createAdaptivePace, createWcuLimiter } from './pace.js';
import { classifyError } from './retry.js';

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
 * @property {number | undefined} [maxWcu]  most write capacity to consume per second
 * @property {boolean} [adaptiveConcurrency]  pace the calls by the capacity learned from the table's throttling
 * @property {import('./write-policy.js').WritePolicy} [policy]  how this kind of import paces and backs off (default: a pace from adaptiveConcurrency alone, doubling backoff)
 * @property {import('p-limit').LimitFunction} limit  the window: calls on the wire at once
 * @property {{ succeeded: () => void, throttled: () => void }} window  told how each call went
 * @property {import('../observe/counters.js').Stats} stats
 * @property {(entries: Entry[]) => void} written  these entries are in the table
 * @property {(entry: Entry, reason: RejectReason, message: string) => void} reject
 * @property {() => unknown} stoppedBy  the fatal error that stopped the import, if one has
 * @property {() => boolean} abandoned  the segment gave up its writes: stop, and count nothing more
 * @property {(ms: number) => Promise<unknown>} wait
 */

/**
 * @param {BatchSenderOptions} options
 * @returns {{ send: (entries: Entry[]) => Promise<void>, pace: ReturnType<typeof createAdaptivePace> }}  send throws only a fatal error
 */
export function createBatchSender(options) {
  /** @type {Sender} */
  const sender = {
    ...options,
    capacity: createWcuLimiter(options.maxWcu),
    pace: options.policy?.pace ?? createAdaptivePace({ adaptive: options.adaptiveConcurrency ?? false }),
    requestBody: requestBodyFor(options.table),
  };
  return { send: (entries) => sendBatch(sender, entries), pace: sender.pace };
}

/**
 * @typedef {BatchSenderOptions & {
 *   capacity: ReturnType<typeof createWcuLimiter>,
 *   pace: ReturnType<typeof createAdaptivePace>,
 *   requestBody: (entries: Entry[]) => string,
 * }} Sender
 */

/**
 * One batch's attempts: each waits out its backoff (after the first), then the WCU cap and the pace, and
 * takes a slot of the window for its call; what the call leaves unwritten goes again.
 * @param {Sender} sender @param {Entry[]} entries
 */
async function sendBatch(sender, entries) {
  const { stats, capacity, pace } = sender;
  let pending = entries;
  /** @type {unknown} */
  let lastError;
  const budget = createAttemptBudget(sender.maxAttempts, () => stats.written + stats.deleted, sender.policy?.backoff);
  while (budget.left()) {
    const acquired = pending.length;
    const reserved = await attemptTurn(sender, budget, acquired);
    if (reserved === undefined) break;
    let output;
    try {
      output = await sender.limit(call, sender, pending);
    } catch (error) {
      // A failed call consumes nothing.
      capacity.settle(-acquired);
      pace.release(reserved);
      if (sender.abandoned()) return;
      const kind = classifyError(error);
      if (kind === 'fatal' || kind === 'condition') throw error;
      if (kind === 'invalid') return splitRefused(sender, pending, error);
      countFailedCall(sender, budget, kind, pending.length, error);
      lastError = error;
      continue;
    }
    if (sender.abandoned()) return;
    const left = takeAnswer(sender, budget, pending, output, acquired, reserved);
    if (left.length === 0) return;
    lastError = `${left.length} of ${pending.length} items came back as UnprocessedItems`;
    pending = left;
  }
  if (sender.abandoned()) return;
  rejectUnwritten(sender, pending, budget.attempts(), lastError);
}

/**
 * A call's answer: the capacity it consumed settles the cap and the pace, the entries it applied are
 * counted and told written, and those it left unprocessed are returned (none: the batch is done).
 * @param {Sender} sender @param {ReturnType<typeof createAttemptBudget>} budget @param {Entry[]} pending
 * @param {import('./batch-write-client.js').BatchWriteOutput} output
 * @param {number} acquired  units the WCU cap gave the call @param {number} reserved  units the pace reserved for it
 * @returns {Entry[]}
 */
function takeAnswer(sender, budget, pending, output, acquired, reserved) {
  const { table, stats } = sender;
  const unprocessed = output.UnprocessedItems?.[table] ?? [];
  const writtenNow = pending.length - unprocessed.length;
  const units = consumedUnits(output, writtenNow);
  stats.wcu += units;
  sender.capacity.settle(units - acquired);
  sender.pace.spend(units, writtenNow, reserved);
  if (unprocessed.length === 0) {
    countApplied(stats, pending);
    sender.written(pending);
    sender.window.succeeded();
    return [];
  }
  const left = matchUnprocessed(pending, unprocessed, sender.keyIdOf, table);
  const leftSet = new Set(left);
  const applied = pending.filter((entry) => !leftSet.has(entry));
  // Counted before the attempt budget looks at the progress made.
  countApplied(stats, applied);
  throttled(sender, unprocessed.length, false);
  budget.throttled();
  sender.written(applied);
  return left;
}

/** One call on the wire, in a slot of the window. @param {Sender} sender @param {Entry[]} entries */
const call = (sender, entries) => onTheWire(sender, () => sender.client.batchWrite(sender.requestBody(entries)));

/**
 * The table refused the call (ValidationException): halve it until the refused items stand alone.
 * @param {Sender} sender @param {Entry[]} entries @param {unknown} error
 */
async function splitRefused(sender, entries, error) {
  if (entries.length === 1) {
    if (!sender.abandoned()) sender.reject(entries[0], 'REJECTED_BY_TABLE', describeError(error));
    return;
  }
  const middle = Math.ceil(entries.length / 2);
  await sendBatch(sender, entries.slice(0, middle));
  await sendBatch(sender, entries.slice(middle));
}

/** The BatchWriteItem request as JSON, from the items' own JSON. @param {string} table */
function requestBodyFor(table) {
  const bodyStart = `{"RequestItems":{${JSON.stringify(table)}:[`;
  const bodyEnd = ']},"ReturnConsumedCapacity":"TOTAL"}';
  return (/** @type {Entry[]} */ entries) => {
    let body = bodyStart;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (i > 0) body += ',';
      body += entry.op === 'delete' ? `{"DeleteRequest":{"Key":${entry.json}}}` : `{"PutRequest":{"Item":${entry.json}}}`;
    }
    return body + bodyEnd;
  };
}

/**
 * Capacity a call consumed, as its answer says; one unit per item written if it says nothing.
 * @param {import('./batch-write-client.js').BatchWriteOutput} output @param {number} written
 */
function consumedUnits(output, written) {
  if (output.ConsumedCapacity === undefined) return written;
  let units = 0;
  for (const consumed of output.ConsumedCapacity) units += consumed.CapacityUnits ?? 0;
  return units;
}

/**
 * The entries of the batch that DynamoDB returned unprocessed, found by their keys.
 * @param {Entry[]} sent
 * @param {Array<{ PutRequest?: { Item?: Item }, DeleteRequest?: { Key?: Item } }>} unprocessed
 * @param {(item: Item) => string} keyIdOf
 * @param {string} table
 */
function matchUnprocessed(sent, unprocessed, keyIdOf, table) {
  const byKey = new Map(sent.map((entry) => [entry.keyId, entry]));
  return unprocessed.map((request) => {
    const item = request.PutRequest?.Item ?? request.DeleteRequest?.Key;
    const entry = item === undefined ? undefined : byKey.get(keyIdOf(item));
    if (entry === undefined) throw new DynamoDBCallError('UnmatchedUnprocessedItem', `DynamoDB returned an unprocessed item that was not in the batch (table ${table})`, 200, undefined);
    return entry;
  });
}

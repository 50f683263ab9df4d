/**
 * Sends one row of a conditional write mode (item-requests.js) until it is written, skipped or rejected:
 * the same attempts as a batch's (send-batch.js), the WCU cap, the pace and a slot of the window for each,
 * full-jitter backoff after a throttle or a transient fault. A failed condition is an answer, not a
 * fault: the row is skipped (the table holds what sequential writes would have left), and the write
 * capacity the check consumed is counted, as DynamoDB charges it.
 */
import { describeError } from '../errors.js';
import { createAttemptBudget } from './attempt-budget.js';
import { attemptTurn, countApplied, countFailedCall, onTheWire, rejectUnwritten } from './call-results.js';
import { createItemRequests } from './item-requests.js';
import { createAdaptivePace, createWcuLimiter } from './pace.js';
import { classifyError } from './retry.js';
import { itemBytes, wireItemBytes } from '../items/item-size.js';

/** @typedef {import('../types.js').Entry} Entry */

/** Why a row was skipped, by write mode: the item exists, or its version is not lower than the row's. */
export const SKIP_REASONS = /** @type {const} */ ({ 'if-absent': 'ITEM_EXISTS', newer: 'NOT_NEWER', update: 'NOT_NEWER' });

/** @typedef {(typeof SKIP_REASONS)[keyof typeof SKIP_REASONS]} SkipReason */

/**
 * @typedef {Omit<import('./send-batch.js').BatchSenderOptions, 'keyIdOf' | 'client'> & {
 *   client: Pick<import('./batch-write-client.js').BatchWriteClient, 'send'>,
 *   writeMode: import('./item-requests.js').ConditionalMode,
 *   versionColumn: string | undefined,
 *   keys: import('./table-check.js').TableKeys,
 *   skipped: (entry: Entry, reason: SkipReason) => void,
 * }} ItemSenderOptions
 */

/**
 * @param {ItemSenderOptions} options
 * @returns {{ send: (entries: Entry[]) => Promise<void>, pace: ReturnType<typeof createAdaptivePace> }}  a call of one entry; send throws only a fatal error
 */
export function createItemSender(options) {
  /** @type {Sender} */
  const sender = {
    ...options,
    capacity: createWcuLimiter(options.maxWcu),
    pace: options.policy?.pace ?? createAdaptivePace({ adaptive: options.adaptiveConcurrency ?? false }),
    requestOf: createItemRequests(options),
    skipReason: SKIP_REASONS[options.writeMode],
  };
  return { send: (entries) => sendItem(sender, entries[0]), pace: sender.pace };
}

/**
 * @typedef {ItemSenderOptions & { capacity: ReturnType<typeof createWcuLimiter>, pace: ReturnType<typeof createAdaptivePace>,
 *   requestOf: ReturnType<typeof createItemRequests>, skipReason: SkipReason }} Sender
 */

/**
 * One row's attempts.
 * @param {Sender} sender @param {Entry} entry
 */
async function sendItem(sender, entry) {
  // A row whose call waited on an earlier row of its key may find the writes given up: it is handed on.
  if (sender.abandoned()) return;
  const request = sender.requestOf(entry);
  if (!('operation' in request)) return sender.reject(entry, request.reason, request.message);
  const { stats, capacity, pace } = sender;
  /** @type {unknown} */
  let lastError;
  const budget = createAttemptBudget(sender.maxAttempts, () => stats.written + stats.deleted + stats.skipped, sender.policy?.backoff);
  while (budget.left()) {
    const reserved = await attemptTurn(sender, budget, 1);
    if (reserved === undefined) break;
    let output;
    try {
      output = await sender.limit(call, sender, request);
    } catch (error) {
      const kind = classifyError(error);
      if (!sender.abandoned() && kind === 'condition') {
        spend(sender, conditionUnits(error, entry), reserved);
        sender.window.succeeded();
        return sender.skipped(entry, sender.skipReason);
      }
      // A failed call consumes nothing.
      capacity.settle(-1);
      pace.release(reserved);
      if (sender.abandoned()) return;
      if (kind === 'fatal') throw error;
      if (kind === 'invalid') return sender.reject(entry, 'REJECTED_BY_TABLE', describeError(error));
      countFailedCall(sender, budget, kind, 1, error);
      lastError = error;
      continue;
    }
    if (sender.abandoned()) return;
    spend(sender, output.ConsumedCapacity?.CapacityUnits ?? 1, reserved);
    countApplied(stats, [entry]);
    sender.written([entry]);
    sender.window.succeeded();
    return;
  }
  if (sender.abandoned()) return;
  rejectUnwritten(sender, [entry], budget.attempts(), lastError);
}

/**
 * What a failed condition was billed: a unit per started KB of the item the table holds (its answer's
 * ReturnValuesOnConditionCheckFailure item), at least 1. A server that returns no item (one that does not
 * implement it) is taken to hold an item the row's size, the nearest known.
 * @param {unknown} error @param {Entry} entry
 */
function conditionUnits(error, entry) {
  const held = /** @type {{ heldItemBytes?: number }} */ (error).heldItemBytes ?? entry.bytes ?? wireItemBytes(entry.json) ?? itemBytes(JSON.parse(entry.json));
  return Math.max(1, Math.ceil(held / 1024));
}

/** Capacity a call consumed: counted, and the cap and the pace settled. @param {Sender} sender @param {number} units @param {number} reserved */
function spend(sender, units, reserved) {
  sender.stats.wcu += units;
  sender.capacity.settle(units - 1);
  sender.pace.spend(units, 1, reserved);
}

/** One call on the wire, in a slot of the window. @param {Sender} sender @param {import('./item-requests.js').ItemRequest} request */
const call = (sender, request) => onTheWire(sender, () => sender.client.send(request.operation, request.body));

/**
 * What to do about a failed BatchWriteItem call, and how long to wait before the next attempt.
 */

const THROTTLES = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);
// Another writer holds the item: a transaction of another client's (TransactionConflictException), or a
// write in another Region of a multi-Region strongly consistent table (ReplicatedWriteConflictException).
// Both answer 400 and pass once the other write has; AWS's SDKs retry them.
const CONFLICTS = new Set(['TransactionConflictException', 'ReplicatedWriteConflictException']);

// Connection failures the SDK also retries (EHOSTUNREACH, ENETUNREACH, ENOTFOUND: a network that comes
// and goes; EPROTO: a TLS exchange cut short).
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ECONNABORTED', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPROTO']);
// Refusals of some items of a call (an item collection past 10 GB; an item whose encoding a server cannot
// read, which some DynamoDB-compatible servers answer with SerializationException): split, so that only
// those are rejected.
const REFUSALS = new Set(['ValidationException', 'ItemCollectionSizeLimitExceededException', 'SerializationException']);
const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/**
 * - condition: a conditional call's condition failed (PutItem, UpdateItem, DeleteItem): an answer, not a
 *   fault; the row is skipped.
 * - throttle: the whole call was refused for capacity; retry, and count the items as throttled.
 * - transient: 5xx, connection reset, time-out, another writer's hold on the item; retry.
 * - invalid: the table refused the request (ValidationException, an item collection over its size
 *   limit, SerializationException); retrying cannot help, but a smaller request may: the batch is split to find the offending items.
 * - fatal: the import cannot go on (missing table, no permission, bad credentials).
 * @typedef {'condition' | 'throttle' | 'transient' | 'invalid' | 'fatal'} ErrorKind
 */

/**
 * @param {unknown} error
 * @returns {ErrorKind}
 */
export function classifyError(error) {
  const e = /** @type {{ name?: string, code?: string, $metadata?: { httpStatusCode?: number }, $retryable?: unknown }} */ (error ?? {});
  const name = e.name ?? '';
  if (name === 'ConditionalCheckFailedException') return 'condition';
  if (THROTTLES.has(name)) return 'throttle';
  if (CONFLICTS.has(name)) return 'transient';
  if (REFUSALS.has(name)) return 'invalid';
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return 'transient';
  if (TIMEOUT_NAMES.has(name) || (e.code !== undefined && NETWORK_CODES.has(e.code)) || NETWORK_CODES.has(name)) return 'transient';
  if (name === 'AbortError' || /socket hang up|other side closed|ECONNRESET/i.test(String(/** @type {any} */ (error)?.message))) return 'transient';
  if (e.$retryable) return 'transient';
  return 'fatal';
}

/**
 * Exponential backoff with full jitter: a uniform wait in [0, min(cap, base * 2^(retry-1))).
 * @param {number} retry   1 for the first retry
 * @param {number} baseMs
 * @param {number} capMs
 * @param {() => number} [random]
 */
export function backoffDelay(retry, baseMs, capMs, random = Math.random) {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(retry - 1, 30));
  return Math.floor(random() * ceiling);
}

/**
 * BatchWriteItem calls (and the conditional modes' PutItem and UpdateItem) over keep-alive HTTP, signed
 * with Signature Version 4 here rather than sent through the SDK's middleware stack: the stack (endpoint
 * rules, retry strategy, user agent, schema walk, signer) cost a third of the import's CPU
 * (bench/README.md). The SDK still resolves the credentials and the endpoint, and sends every other call.
 * test/unit/write/batch-write-client.test.js checks the signature against the SDK's own signer. As the SDK does, an answer whose body does not match its
 * x-amz-crc32 header is retried rather than believed (a damaged "nothing unprocessed" would lose rows),
 * and a clock five minutes or more off the server's is corrected from its Date header.
 */
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { crc32 } from 'node:zlib';
import { DynamoDBCallError } from '../errors.js';
import { itemBytes } from '../items/item-size.js';

const SERVICE = 'dynamodb';
const TARGET_PREFIX = 'DynamoDB_20120810.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** @typedef {{ accessKeyId: string, secretAccessKey: string, sessionToken?: string }} Credentials */
/** @typedef {import('../types.js').Item} Item */
/**
 * The parts of a BatchWriteItem answer the batch writer reads.
 * @typedef {object} BatchWriteOutput
 * @property {Record<string, Array<{ PutRequest?: { Item?: Item }, DeleteRequest?: { Key?: Item } }>>} [UnprocessedItems]
 * @property {Array<{ CapacityUnits?: number }>} [ConsumedCapacity]
 */
/** The write calls this client sends. @typedef {'BatchWriteItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem'} WriteOperation */
/**
 * @typedef {object} BatchWriteClient
 * @property {(body: string) => Promise<BatchWriteOutput>} batchWrite
 * @property {(operation: WriteOperation, body: string) => Promise<{ ConsumedCapacity?: { CapacityUnits?: number } }>} send  one other write call
 * @property {() => Promise<URL>} endpoint  where the calls go
 * @property {() => void} destroy
 */

/**
 * @param {object} options
 * @param {URL | (() => Promise<URL>)} options.endpoint  a URL, or how to resolve it (once, on the first call)
 * @param {string} options.region  signing region
 * @param {() => Promise<Credentials>} options.credentials  called per call; the SDK's provider caches and refreshes
 * @param {number} options.requestTimeoutMs  a call with no answer for this long fails as TimeoutError
 * @param {number} options.maxSockets
 * @param {{ systemClockOffset?: number }} [options.clock]  the machine clock's correction in ms; pass the
 *   SDK client's config to share the offset it learns (DescribeTable runs first)
 * @returns {BatchWriteClient}
 */
export function createBatchWriteClient({ endpoint, region, credentials, requestTimeoutMs, maxSockets, clock = {} }) {
  /** @type {Promise<Target> | undefined} */
  let target;
  const connect = () => (target ??= resolveTarget(endpoint, maxSockets));
  const signingKeys = createSigningKeyCache();
  /** @param {WriteOperation} operation @param {string} body */
  async function send(operation, body) {
    const to = await connect();
    const payload = Buffer.from(body, 'utf8');
    const now = new Date(Date.now() + (clock.systemClockOffset ?? 0));
    const headers = signedHeaders({ host: to.host, path: to.path, region, payload, credentials: await credentials(), now, signingKeys, operation });
    return post(to, headers, payload, requestTimeoutMs, clock, operation);
  }
  return {
    batchWrite: (body) => send('BatchWriteItem', body),
    send,
    endpoint: async () => (await connect()).url,
    /** Closes every connection, ending the calls on them; a later call opens new ones. */
    destroy: () => {
      const closing = target;
      target = undefined;
      closing?.then((to) => to.agent.destroy(), () => {});
    },
  };
}

/**
 * Where the calls go, with a keep-alive agent of its own.
 * @typedef {{ request: typeof http.request, agent: http.Agent, hostname: string, port: string, path: string, host: string, url: URL }} Target
 */

/** @param {URL | (() => Promise<URL>)} endpoint @param {number} maxSockets @returns {Promise<Target>} */
async function resolveTarget(endpoint, maxSockets) {
  const url = typeof endpoint === 'function' ? await endpoint() : endpoint;
  const secure = url.protocol === 'https:';
  return {
    request: secure ? https.request : http.request,
    agent: secure ? new https.Agent({ keepAlive: true, maxSockets }) : new http.Agent({ keepAlive: true, maxSockets }),
    hostname: url.hostname,
    port: url.port,
    path: url.pathname,
    host: url.host,
    url,
  };
}

/**
 * Sends one signed call and reads its answer.
 * @param {Target} to @param {Record<string, string | number>} headers @param {Buffer} payload
 * @param {number} requestTimeoutMs @param {{ systemClockOffset?: number }} clock @param {WriteOperation} operation
 * @returns {Promise<any>}  the answer's JSON: each operation's callers read their own parts of it
 */
function post(to, headers, payload, requestTimeoutMs, clock, operation) {
  return new Promise((resolve, reject) => {
    const call = to.request({ agent: to.agent, hostname: to.hostname, port: to.port, path: to.path, method: 'POST', headers }, (response) => {
      /** @type {Buffer[]} */
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        try {
          resolve(answerOf(response, Buffer.concat(chunks), clock, operation));
        } catch (error) {
          reject(error);
        }
      });
    });
    call.setTimeout(requestTimeoutMs, () => call.destroy(new DynamoDBCallError('TimeoutError', `no answer to ${operation} within requestTimeoutMs (${requestTimeoutMs} ms)`, undefined, undefined)));
    call.on('error', reject);
    call.end(payload);
  });
}

/**
 * A whole answer: its output, or the error it stands for. A body that does not match its x-amz-crc32, or
 * a 200 whose body is not JSON (cut short on the way), is retryable: a put is idempotent.
 * @param {http.IncomingMessage} response @param {Buffer} bytes @param {{ systemClockOffset?: number }} clock
 * @param {WriteOperation} operation
 * @returns {BatchWriteOutput}
 */
function answerOf(response, bytes, clock, operation) {
  const text = bytes.toString('utf8');
  const status = response.statusCode ?? 0;
  const requestId = /** @type {string | undefined} */ (response.headers['x-amzn-requestid']);
  const clockCorrected = correctClock(clock, response.headers.date);
  const checksum = response.headers['x-amz-crc32'];
  if (checksum !== undefined && crc32(bytes) !== Number(checksum)) {
    throw new DynamoDBCallError('CRC32CheckFailed', `${operation} answered ${status} with a body that does not match its x-amz-crc32 header (${bytes.length} bytes)`, status, requestId, true);
  }
  if (status !== 200) {
    const error = answeredError(status, text, requestId, operation);
    // Refused for a clock that is off (Signature expired): signed again with the server's time, it goes through.
    if (clockCorrected) error.$retryable = {};
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new DynamoDBCallError('MalformedResponse', `${operation} answered 200 with a body that is not JSON (${text.length} bytes)`, status, requestId, true);
  }
}

/**
 * The headers of a signed POST of a DynamoDB call (Signature Version 4, header form).
 * @param {{ host: string, path: string, region: string, payload: Buffer, credentials: Credentials, now: Date, signingKeys?: ReturnType<typeof createSigningKeyCache>, operation?: WriteOperation }} request
 * @returns {Record<string, string | number>}
 */
export function signedHeaders({ host, path, region, payload, credentials, now, signingKeys = createSigningKeyCache(), operation = 'BatchWriteItem' }) {
  const target = TARGET_PREFIX + operation;
  const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, ''); // 20261122T003500Z
  const day = amzDate.slice(0, 8);
  const payloadHash = createHash('sha256').update(payload).digest('hex');
  // Signed headers, in the lowercase sorted order the canonical request needs.
  const token = credentials.sessionToken;
  const names = token === undefined ? 'content-length;content-type;host;x-amz-date;x-amz-target' : 'content-length;content-type;host;x-amz-date;x-amz-security-token;x-amz-target';
  const canonicalHeaders =
    `content-length:${payload.length}\ncontent-type:${CONTENT_TYPE}\nhost:${host}\nx-amz-date:${amzDate}\n` +
    (token === undefined ? '' : `x-amz-security-token:${token}\n`) +
    `x-amz-target:${target}\n`;
  const canonicalRequest = `POST\n${path}\n\n${canonicalHeaders}\n${names}\n${payloadHash}`;
  const scope = `${day}/${region}/${SERVICE}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash('sha256').update(canonicalRequest).digest('hex')}`;
  const signature = createHmac('sha256', signingKeys.keyFor(credentials.secretAccessKey, day, region)).update(stringToSign).digest('hex');
  /** @type {Record<string, string | number>} */
  const headers = {
    'content-length': payload.length,
    'content-type': CONTENT_TYPE,
    host,
    'x-amz-date': amzDate,
    'x-amz-target': target,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${names}, Signature=${signature}`,
  };
  if (token !== undefined) headers['x-amz-security-token'] = token;
  return headers;
}

/**
 * The signing key depends only on the secret, the day and the region: derive it once a day, not per call.
 */
function createSigningKeyCache() {
  let cached = { secret: '', day: '', region: '', key: Buffer.alloc(0) };
  return {
    /** @param {string} secret @param {string} day YYYYMMDD @param {string} region */
    keyFor(secret, day, region) {
      if (cached.secret !== secret || cached.day !== day || cached.region !== region) {
        const hmac = (/** @type {string | Buffer} */ key, /** @type {string} */ data) => createHmac('sha256', key).update(data).digest();
        cached = { secret, day, region, key: hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), SERVICE), 'aws4_request') };
      }
      return cached.key;
    },
  };
}

/**
 * As the SDK does: when the server's clock (its Date header) is five minutes or more from ours with the
 * offset applied, take the server's time from now on. Signatures more than five minutes off are refused.
 * @param {{ systemClockOffset?: number }} clock
 * @param {string | undefined} date
 * @returns {boolean} whether the offset changed
 */
function correctClock(clock, date) {
  if (date === undefined) return false;
  const serverTime = Date.parse(date);
  if (Number.isNaN(serverTime)) return false;
  const offset = clock.systemClockOffset ?? 0;
  if (Math.abs(Date.now() + offset - serverTime) < CLOCK_SKEW_MS) return false;
  clock.systemClockOffset = serverTime - Date.now();
  return true;
}

/**
 * DynamoDB's error answer (`{"__type": "com.amazonaws.dynamodb.v20120810#Name", "message": "..."}`) as an
 * error named like the SDK's, so that retry.js classifies both alike.
 * @param {number} status @param {string} text @param {string | undefined} requestId @param {WriteOperation} operation
 */
function answeredError(status, text, requestId, operation) {
  /** @type {{ __type?: string, message?: string, Message?: string, ThrottlingReasons?: Array<{ reason?: unknown, resource?: unknown }>, Item?: unknown }} */
  let parsed = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's or load balancer's page): named by its status below.
  }
  const name = parsed.__type?.split('#').pop() || (status >= 500 ? 'InternalServerError' : `HttpError${status}`);
  const message = parsed.message ?? parsed.Message ?? `${operation} answered HTTP ${status}`;
  const error = new DynamoDBCallError(name, message, status, requestId);
  // A failed condition's answer holds the item the table has (ReturnValuesOnConditionCheckFailure): only
  // its size is kept, which is what the check was billed by.
  if (parsed.Item !== null && typeof parsed.Item === 'object') error.heldItemBytes = itemBytes(/** @type {Record<string, import('../items/attribute-values.js').AttributeValue>} */ (parsed.Item));
  // Why a call was throttled (a hot key range, the table's or an index's capacity, the account's limit).
  if (Array.isArray(parsed.ThrottlingReasons)) {
    error.throttlingReasons = parsed.ThrottlingReasons.flatMap((r) => (typeof r?.reason === 'string' ? [{ reason: r.reason, ...(typeof r.resource === 'string' ? { resource: r.resource } : {}) }] : []));
  }
  return error;
}

/**
 * An HTTP proxy in front of a real DynamoDB endpoint (dynalite) that injects the faults a busy
 * table produces. For each BatchWriteItem call it may:
 *  - answer the whole call with a throttling error, forwarding nothing (share `throttleCalls`), each of
 *    ProvisionedThroughputExceededException, ThrottlingException and RequestLimitExceeded in turn;
 *  - hold back a share of the items (`unprocessedItems`): only the others are forwarded, and the held
 *    ones come back in UnprocessedItems, exactly as DynamoDB reports a partial success;
 *  - answer 500 InternalServerError without forwarding (share `serverErrors`);
 *  - forward the call, then reset the connection instead of answering (share `resetCalls`): the
 *    items are written but the client cannot know, the hardest case for "exactly once";
 *  - never answer (share `hangCalls`, or the calls `hangCall` picks by number), until the client gives up;
 *  - refuse a call holding an item `refuseItem` picks, whole, with the error it names (as a server that
 *    cannot read one item's encoding answers SerializationException).
 * A throttled call carries the ThrottlingReasons `throttlingReasons` gives, as DynamoDB's have since 2025;
 * with `pointInTimeRecovery`, DescribeContinuousBackups (which dynalite lacks) is answered here, and with
 * `itemCount`, DescribeTable's ItemCount (which dynalite leaves at 0).
 * A PutItem, UpdateItem or DeleteItem (a conditional write mode's) meets the same faults but the
 * unprocessed items and refusals, and one of their own (share `transactionConflicts`): a
 * TransactionConflictException, which DynamoDB answers while another client's transaction holds the item
 * (documented for these three calls, not for BatchWriteItem), forwarding nothing. Other calls pass through untouched. Listens on 127.0.0.1 and a free port.
 */
import http from 'node:http';
import { listenOnLoopback } from './loopback.js';

/**
 * @typedef {object} FaultOptions
 * @property {string} target             e.g. http://127.0.0.1:8000
 * @property {number} [unprocessedItems] share of items held back, 0..1
 * @property {number} [throttleCalls]    share of calls refused whole, 0..1
 * @property {(call: number) => string[]} [throttlingReasons]  the ThrottlingReasons a refused call carries (default: none, as DynamoDB before 2025)
 * @property {number} [serverErrors]     share of calls answered with a 500, 0..1
 * @property {number} [resetCalls]       share of calls forwarded, then reset, 0..1
 * @property {number} [hangCalls]        share of calls never answered, 0..1
 * @property {number} [transactionConflicts]  share of PutItem/UpdateItem/DeleteItem calls answered TransactionConflictException, 0..1
 * @property {'ENABLED' | 'DISABLED'} [pointInTimeRecovery]  answer DescribeContinuousBackups so (dynalite does not implement it)
 * @property {number} [itemCount]  DescribeTable's ItemCount (dynalite's is always 0; DynamoDB's about six hours old)
 * @property {(call: number) => boolean} [hangCall]  whether the call with this number (from 1) is never answered
 * @property {(request: Record<string, any>) => string | undefined} [refuseItem]  an error name for a put or delete request refused, else undefined
 * @property {() => number} [random]
 */

/** The calls of one item a conditional write mode sends. */
const ONE_ITEM_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

const THROTTLE_ERRORS = ['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'];

/** @param {FaultOptions} options */
export async function startFaultProxy({ target, itemCount, unprocessedItems = 0, throttleCalls = 0, throttlingReasons = () => [], pointInTimeRecovery, serverErrors = 0, resetCalls = 0, hangCalls = 0, transactionConflicts = 0, hangCall = () => false, refuseItem = () => undefined, random = Math.random }) {
  const counts = { calls: 0, throttledCalls: 0, throttledCallItems: 0, heldBackItems: 0, forwardedItems: 0, serverErrors: 0, resets: 0, hangs: 0, refusedCalls: 0, transactionConflicts: 0 };
  const targetUrl = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  /**
   * @param {http.IncomingMessage} req @param {string} body
   * @returns {Promise<{ status: number, headers: http.IncomingHttpHeaders, body: string }>}
   */
  function forward(req, body) {
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: targetUrl.host, 'content-length': String(Buffer.byteLength(body)) };
      const upstream = http.request({ host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers, agent }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: data }));
        res.on('error', reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });
  }

  /** @param {http.ServerResponse} res @param {number} status @param {http.IncomingHttpHeaders} headers @param {string} body */
  function reply(res, status, headers, body) {
    const { 'content-length': _length, 'x-amz-crc32': _crc, 'transfer-encoding': _te, connection: _c, ...rest } = headers;
    res.writeHead(status, { ...rest, 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  const server = http.createServer(async (req, res) => {
    try {
      let body = '';
      req.setEncoding('utf8');
      for await (const chunk of req) body += chunk;
      if (pointInTimeRecovery !== undefined && String(req.headers['x-amz-target']).endsWith('.DescribeContinuousBackups')) {
        return reply(res, 200, {}, JSON.stringify({ ContinuousBackupsDescription: { ContinuousBackupsStatus: pointInTimeRecovery, PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: pointInTimeRecovery } } }));
      }
      if (itemCount !== undefined && String(req.headers['x-amz-target']).endsWith('.DescribeTable')) {
        const answer = await forward(req, body);
        if (answer.status !== 200) return reply(res, answer.status, answer.headers, answer.body);
        const described = JSON.parse(answer.body);
        described.Table.ItemCount = itemCount;
        return reply(res, 200, answer.headers, JSON.stringify(described));
      }
      const operation = String(req.headers['x-amz-target']).split('.').pop() ?? '';
      if (ONE_ITEM_WRITES.has(operation)) return await oneItemCall(req, res, body);
      if (operation !== 'BatchWriteItem') {
        const answer = await forward(req, body);
        return reply(res, answer.status, answer.headers, answer.body);
      }
      counts.calls++;
      const request = JSON.parse(body);
      if (hangCall(counts.calls) || random() < hangCalls) {
        counts.hangs++;
        return; // the client's request timeout ends it; stop() closes what is left
      }
      const refusal = Object.values(/** @type {Record<string, Array<Record<string, any>>>} */ (request.RequestItems)).flat().map(refuseItem).find((name) => name !== undefined);
      if (refusal !== undefined) {
        counts.refusedCalls++;
        return reply(res, 400, {}, JSON.stringify({ __type: `com.amazon.coral.service#${refusal}`, message: `Injected: ${refusal} for one item of the call` }));
      }
      if (random() < serverErrors) {
        counts.serverErrors++;
        return reply(res, 500, {}, JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Injected: internal server error' }));
      }
      if (random() < throttleCalls) {
        counts.throttledCalls++;
        for (const requests of Object.values(/** @type {Record<string, unknown[]>} */ (request.RequestItems))) counts.throttledCallItems += requests.length;
        // The three throttling errors DynamoDB answers with, in turn.
        const name = THROTTLE_ERRORS[counts.throttledCalls % THROTTLE_ERRORS.length];
        const table = Object.keys(/** @type {Record<string, unknown[]>} */ (request.RequestItems))[0];
        const reasons = throttlingReasons(counts.calls).map((reason) => ({ reason, resource: `arn:aws:dynamodb:us-east-1:000000000000:table/${table}${reason.startsWith('Index') ? '/index/byCountry' : ''}` }));
        return reply(res, 400, {}, JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${name}`, message: `Injected: ${name}`, ...(reasons.length > 0 ? { ThrottlingReasons: reasons } : {}) }));
      }
      /** @type {Record<string, unknown[]>} */
      const heldBack = {};
      for (const [table, requests] of Object.entries(/** @type {Record<string, unknown[]>} */ (request.RequestItems))) {
        const keep = [];
        for (const item of requests) {
          if (random() < unprocessedItems) (heldBack[table] ??= []).push(item);
          else keep.push(item);
        }
        counts.heldBackItems += requests.length - keep.length;
        counts.forwardedItems += keep.length;
        if (keep.length > 0) request.RequestItems[table] = keep;
        else delete request.RequestItems[table];
      }
      if (Object.keys(request.RequestItems).length === 0) {
        return reply(res, 200, {}, JSON.stringify({ UnprocessedItems: heldBack, ConsumedCapacity: [] }));
      }
      const reset = random() < resetCalls;
      const answer = await forward(req, JSON.stringify(request));
      if (reset) {
        counts.resets++;
        // The client never learns of this call's held-back items: it retries the whole call.
        for (const items of Object.values(heldBack)) counts.heldBackItems -= items.length;
        return req.socket.destroy();
      }
      if (answer.status !== 200) return reply(res, answer.status, answer.headers, answer.body);
      const output = JSON.parse(answer.body);
      for (const [table, items] of Object.entries(heldBack)) {
        output.UnprocessedItems ??= {};
        output.UnprocessedItems[table] = [...(output.UnprocessedItems[table] ?? []), ...items];
      }
      return reply(res, 200, answer.headers, JSON.stringify(output));
    } catch (error) {
      reply(res, 500, {}, JSON.stringify({ __type: 'InternalServerError', message: `fault proxy: ${/** @type {Error} */ (error).message}` }));
    }
  });
  /**
   * A conditional write mode's call of one item: the same faults but unprocessed items, which it cannot
   * have. A reset comes after the call was forwarded: the item may be written and the client not know.
   * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} body
   */
  async function oneItemCall(req, res, body) {
    counts.calls++;
    if (hangCall(counts.calls) || random() < hangCalls) {
      counts.hangs++;
      return;
    }
    if (random() < serverErrors) {
      counts.serverErrors++;
      return reply(res, 500, {}, JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Injected: internal server error' }));
    }
    if (random() < throttleCalls) {
      counts.throttledCalls++;
      counts.throttledCallItems++;
      const name = THROTTLE_ERRORS[counts.throttledCalls % THROTTLE_ERRORS.length];
      return reply(res, 400, {}, JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${name}`, message: `Injected: ${name}` }));
    }
    // Drawn only when asked for, so that the other faults' draws (and saved cases' seeds) stay as they were.
    if (transactionConflicts > 0 && random() < transactionConflicts) {
      counts.transactionConflicts++;
      return reply(res, 400, {}, JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#TransactionConflictException', message: 'Injected: Transaction is ongoing for the item' }));
    }
    const reset = random() < resetCalls;
    const answer = await forward(req, body);
    counts.forwardedItems++;
    if (reset) {
      counts.resets++;
      return req.socket.destroy();
    }
    return reply(res, answer.status, answer.headers, answer.body);
  }
  const listening = await listenOnLoopback(server, agent);
  return {
    ...listening,
    counts,
  };
}

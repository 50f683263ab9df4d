#!/usr/bin/env node
/**
 * A local HTTP endpoint that speaks DynamoDB's BatchWriteItem (and DescribeTable) and models what
 * limits a real table. See bench/README.md for what it models and what it leaves out.
 *
 * Modes, combinable:
 *  - sink: every call is accepted at once and its items counted (measures the client alone);
 *  - latency: answers after `latencyMs` plus a uniform jitter of up to `jitterMs`;
 *  - capacity: `wcu` WCU/s split over `partitions` (each at most 1,000 WCU/s); an item goes to the
 *    partition of a hash of its partition key; each partition refills every second and, with `burst`,
 *    banks unused capacity for up to 300 s. Items over budget come back as UnprocessedItems; a call of
 *    which nothing fits gets ProvisionedThroughputExceededException with its ThrottlingReasons (a key
 *    range's when a quarter or more of the table's second is left elsewhere, else the table's capacity). DescribeTable gives the table's provisioned WCU.
 *  - forward: accepted items are also written to a real DynamoDB endpoint (DynamoDB Local).
 *
 * As a program it runs in its own process (so that it does not share the client's core) and prints
 * `{"endpoint": ...}` on its first stdout line: `node bench/capacity-model.js '{"wcu":10000}'`.
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { itemBytes } from '../src/items/item-size.js';

/**
 * @typedef {object} ModelOptions
 * @property {number} [latencyMs]    fixed delay before each answer
 * @property {number} [jitterMs]     plus a uniform random delay up to this
 * @property {number} [wcu]          table capacity in WCU/s; none = unlimited (sink)
 * @property {number} [partitions]   default: wcu / 1000, rounded up
 * @property {boolean} [burst]       bank unused capacity up to 300 s per partition
 * @property {string} [keyName]      partition key attribute (default id)
 * @property {string} [sortKeyName]  sort key attribute, if the modelled table has one
 * @property {string} [forward]      DynamoDB endpoint to write accepted items to
 */

const MAX_PARTITION_WCU = 1_000;
// Table names are 3-255 of [A-Za-z0-9_.-], so the name needs no unescaping.
const SINGLE_TABLE_HEAD = /^\{"RequestItems":\{"([A-Za-z0-9_.-]{3,255})":\[/;
const PUT_MARKER = Buffer.from('{"PutRequest":{"Item":');
const DELETE_MARKER = Buffer.from('{"DeleteRequest":');
const TABLE_BOUNDARY = Buffer.from('],"');
const RETURN_TOTAL = Buffer.from('"ReturnConsumedCapacity":"TOTAL"');
const BURST_SECONDS = 300;

/** @param {ModelOptions} options */
export async function startCapacityModel(options = {}) {
  const { latencyMs = 0, jitterMs = 0, wcu, burst = false, keyName = 'id', sortKeyName, forward } = options;
  const partitions = wcu === undefined ? 0 : (options.partitions ?? Math.ceil(wcu / MAX_PARTITION_WCU));
  if (wcu !== undefined && wcu / partitions > MAX_PARTITION_WCU) {
    throw new Error(`capacity model: ${wcu} WCU/s over ${partitions} partitions exceeds ${MAX_PARTITION_WCU} WCU/s per partition`);
  }
  const perPartition = wcu === undefined ? Infinity : wcu / partitions;
  const tokens = new Array(partitions).fill(perPartition);
  const banked = new Array(partitions).fill(0);
  let second = Math.floor(performance.now() / 1000);

  /** Per second since start: consumed WCU, throttled items, calls. */
  const startedSecond = second;
  /** @type {Array<{ wcu: number, throttledItems: number, calls: number, throttledCalls: number }>} */
  const perSecond = [];
  const totals = { calls: 0, items: 0, wcu: 0, throttledItems: 0, throttledCalls: 0 };

  function refill() {
    const now = Math.floor(performance.now() / 1000);
    for (; second < now; second++) {
      for (let p = 0; p < partitions; p++) {
        if (burst) banked[p] = Math.min(banked[p] + Math.max(tokens[p], 0), perPartition * BURST_SECONDS);
        tokens[p] = perPartition;
      }
    }
    const index = now - startedSecond;
    while (perSecond.length <= index) perSecond.push({ wcu: 0, throttledItems: 0, calls: 0, throttledCalls: 0 });
    return perSecond[index];
  }

  /** @param {string} value */
  function partitionOf(value) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
    return (hash >>> 0) % partitions;
  }

  /**
   * @param {Record<string, any>} item
   * @returns {{ partition: number, units: number }}
   */
  function costOf(item) {
    const key = item[keyName];
    const keyValue = key === undefined ? '' : String(key.S ?? key.N ?? '');
    return { partition: partitionOf(keyValue), units: Math.max(1, Math.ceil(itemBytes(item) / 1024)) };
  }

  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const forwardUrl = forward === undefined ? undefined : new URL(forward);

  /** @param {http.IncomingHttpHeaders} headers @param {string} body @returns {Promise<{ status: number, body: string }>} */
  function send(headers, body) {
    const url = /** @type {URL} */ (forwardUrl);
    return new Promise((resolve, reject) => {
      const request = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/', agent, headers: { ...headers, host: url.host, 'content-length': Buffer.byteLength(body) } }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 500, body: data }));
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  /**
   * @param {http.IncomingHttpHeaders} headers
   * @param {any} request
   * @returns {Promise<{ status: number, body: string }>}
   */
  async function batchWrite(headers, request) {
    const second = refill();
    second.calls++;
    totals.calls++;
    /** @type {Record<string, unknown[]>} */
    const unprocessed = {};
    /** @type {Record<string, unknown[]>} */
    const accepted = {};
    /** @type {Array<{ TableName: string, CapacityUnits: number }>} */
    const consumed = [];
    let acceptedCount = 0;
    let requested = 0;
    for (const [table, requests] of Object.entries(/** @type {Record<string, any[]>} */ (request.RequestItems))) {
      let units = 0;
      for (const entry of requests) {
        requested++;
        const item = entry.PutRequest?.Item ?? entry.DeleteRequest?.Key ?? {};
        if (partitions === 0) {
          units += Math.max(1, Math.ceil(itemBytes(item) / 1024));
          (accepted[table] ??= []).push(entry);
          continue;
        }
        const cost = costOf(item);
        if (tokens[cost.partition] >= cost.units) {
          tokens[cost.partition] -= cost.units;
        } else if (burst && banked[cost.partition] >= cost.units) {
          banked[cost.partition] -= cost.units;
        } else {
          (unprocessed[table] ??= []).push(entry);
          continue;
        }
        units += cost.units;
        (accepted[table] ??= []).push(entry);
      }
      acceptedCount += accepted[table]?.length ?? 0;
      if (units > 0) consumed.push({ TableName: table, CapacityUnits: units });
      second.wcu += units;
      totals.wcu += units;
    }
    const throttled = requested - acceptedCount;
    second.throttledItems += throttled;
    totals.throttledItems += throttled;
    totals.items += acceptedCount;
    if (acceptedCount === 0 && requested > 0) {
      second.throttledCalls++;
      totals.throttledCalls++;
      const table = Object.keys(request.RequestItems)[0];
      return { status: 400, body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'The level of configured provisioned throughput for the table was exceeded (capacity model)', ThrottlingReasons: [{ reason: throttlingReason(), resource: `arn:aws:dynamodb:us-east-1:000000000000:table/${table}` }] }) };
    }
    if (forwardUrl !== undefined) {
      const answer = await send(headers, JSON.stringify({ RequestItems: accepted }));
      if (answer.status !== 200) return answer;
      const forwarded = JSON.parse(answer.body);
      for (const [table, items] of Object.entries(/** @type {Record<string, unknown[]>} */ (forwarded.UnprocessedItems ?? {}))) {
        unprocessed[table] = [...(unprocessed[table] ?? []), ...items];
      }
    }
    return { status: 200, body: JSON.stringify({ UnprocessedItems: unprocessed, ConsumedCapacity: request.ReturnConsumedCapacity === 'TOTAL' ? consumed : undefined }) };
  }

  /**
   * Why a call was refused, as DynamoDB says it: a key range (the call's partitions are spent while the
   * table has a quarter or more of this second's capacity left elsewhere: uneven access), else the table's
   * provisioned capacity (uniform access near the table's rate spends its partitions at about the same time).
   */
  function throttlingReason() {
    let left = 0;
    for (let p = 0; p < partitions; p++) left += Math.max(tokens[p], 0);
    return left >= 0.25 * /** @type {number} */ (wcu) ? 'TableWriteKeyRangeThroughputExceeded' : 'TableWriteProvisionedThroughputExceeded';
  }

  /** @param {any} request */
  function describeTable(request) {
    return {
      status: 200,
      body: JSON.stringify({
        Table: {
          TableName: request.TableName,
          TableStatus: 'ACTIVE',
          KeySchema: [{ AttributeName: keyName, KeyType: 'HASH' }, ...(sortKeyName === undefined ? [] : [{ AttributeName: sortKeyName, KeyType: 'RANGE' }])],
          AttributeDefinitions: [keyName, ...(sortKeyName === undefined ? [] : [sortKeyName])].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          ...(wcu === undefined
            ? { BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' } }
            : { BillingModeSummary: { BillingMode: 'PROVISIONED' }, ProvisionedThroughput: { ReadCapacityUnits: 0, WriteCapacityUnits: wcu } }),
        },
      }),
    };
  }

  /**
   * The sink's answer without parsing the body, which would cost the sink more CPU than the client
   * spends on the call and leave the client less of a small machine's cores. Reads only the one-table
   * put shape (`{"RequestItems":{"t":[{"PutRequest":{"Item":...}},...]}...}`); an item's size is at most
   * the bytes of its wire JSON, so when each item's span is under 1 KB each costs exactly 1 WCU.
   * Returns undefined for anything else, which is then parsed and costed in full.
   * @param {Buffer} body
   * @returns {{ status: number, body: string } | undefined}
   */
  function sinkFastPath(body) {
    const head = SINGLE_TABLE_HEAD.exec(body.toString('latin1', 0, 300));
    // Between two tables' arrays the bytes `],"` appear; inside an item they cannot (a quote in a
    // string is escaped, and a list or set always closes with `]}`).
    if (head === null || body.includes(TABLE_BOUNDARY) || body.includes(DELETE_MARKER)) return undefined;
    let items = 0;
    for (let at = body.indexOf(PUT_MARKER, head[0].length); at !== -1; items++) {
      const next = body.indexOf(PUT_MARKER, at + PUT_MARKER.length);
      if ((next === -1 ? body.length : next) - at > 1024) return undefined;
      at = next;
    }
    const second = refill();
    second.calls++;
    second.wcu += items;
    totals.calls++;
    totals.items += items;
    totals.wcu += items;
    const consumed = body.includes(RETURN_TOTAL) ? `,"ConsumedCapacity":[{"TableName":"${head[1]}","CapacityUnits":${items}}]` : '';
    return { status: 200, body: `{"UnprocessedItems":{}${consumed}}` };
  }

  const server = http.createServer(async (req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const raw = Buffer.concat(chunks);
    const body = () => raw.toString('utf8');
    if (req.method === 'GET' && req.url === '/stats') {
      refill();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totals, perSecond }));
      return;
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    const started = performance.now();
    let answer;
    try {
      const sink = partitions === 0 && forwardUrl === undefined;
      if (target.endsWith('.BatchWriteItem')) answer = (sink ? sinkFastPath(raw) : undefined) ?? (await batchWrite(req.headers, JSON.parse(body())));
      else if (target.endsWith('.DescribeTable') && forwardUrl === undefined) answer = describeTable(JSON.parse(body()));
      else if (forwardUrl !== undefined) answer = await send(req.headers, body());
      else answer = { status: 400, body: JSON.stringify({ __type: 'com.amazon.coral.service#UnknownOperationException', message: `capacity model: ${target} is not modelled` }) };
    } catch (error) {
      answer = { status: 500, body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(error) }) };
    }
    const delay = latencyMs + Math.random() * jitterMs - (performance.now() - started);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(answer.body) });
    res.end(answer.body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    endpoint: `http://127.0.0.1:${port}`,
    partitions,
    stats: () => ({ totals, perSecond }),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      agent.destroy();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const model = await startCapacityModel(JSON.parse(process.argv[2] ?? '{}'));
  process.stdout.write(`${JSON.stringify({ endpoint: model.endpoint, partitions: model.partitions })}\n`);
  // Ends with its parent: the bench closes stdin (or dies) and this process follows.
  process.stdin.resume();
  process.stdin.on('end', () => model.stop().then(() => process.exit(0)));
}

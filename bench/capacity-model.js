#!/usr/bin/env node
/**
 * A local HTTP endpoint that speaks DynamoDB's BatchWriteItem (and DescribeTable; and PutItem, UpdateItem
 * and DeleteItem, a conditional write mode's calls of one item) and models what limits a real table. See bench/README.md for what it models and what it leaves out.
 *
 * Modes, combinable:
 *  - sink: every call is accepted at once and its items counted (measures the client alone);
 *  - latency: answers after `latencyMs` plus a uniform jitter of up to `jitterMs`;
 *  - table: a provisioned (`wcu`) or new on-demand (`mode: 'on-demand'`) table of bench/table-model.js:
 *    partitions of 1,000 WCU/s over the key space, the table's ceiling, burst, split for heat, on-demand
 *    growth, all on a stated time scale. Items over budget come back as UnprocessedItems; a call of which
 *    nothing fits is refused whole with DynamoDB's error and ThrottlingReasons. DescribeTable gives the
 *    key schema and the billing mode with its numbers (provisioned WCU; warm throughput and maximum).
 *  - forward: accepted items are also written to a real DynamoDB endpoint (DynamoDB Local).
 *
 * As a program it runs in its own process (so that it does not share the client's core) and prints
 * `{"endpoint": ...}` on its first stdout line: `node bench/capacity-model.js '{"wcu":10000}'`.
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { itemBytes } from '../src/items/item-size.js';
import { createTableModel, hashKey } from './table-model.js';

/**
 * @typedef {object} ModelOptions
 * @property {number} [latencyMs]    fixed delay before each answer
 * @property {'ACTIVE' | 'UPDATING'} [warmStatus]  the WarmThroughput status DescribeTable gives (default ACTIVE; UPDATING: a pre-warm under way)
 * @property {number} [jitterMs]     plus a uniform random delay up to this
 * @property {'provisioned' | 'on-demand'} [mode]  a table with capacity (bench/table-model.js); none and no `wcu`: a sink
 * @property {number} [wcu]          provisioned WCU/s
 * @property {number} [partitions]   at the start; default ceil(wcu / 1000), or 4 for a new on-demand table
 * @property {boolean} [burst]       bank unused capacity (300 model seconds of it)
 * @property {number} [maxWriteRate] an on-demand table's MaxWriteRequestUnits
 * @property {number} [timeScale]    model seconds per real second for splits, growth and the burst bank
 * @property {boolean} [splitForHeat]
 * @property {number} [splitAfter]   model seconds hot before a split
 * @property {number} [growthEvery]  model seconds between on-demand growth steps
 * @property {string} [keyName]      partition key attribute (default id)
 * @property {string} [sortKeyName]  sort key attribute, if the modelled table has one
 * @property {'S' | 'N'} [keyType]   the partition key's type as DescribeTable gives it (default S)
 * @property {'S' | 'N'} [sortKeyType]  the sort key's (default S)
 * @property {string} [forward]      DynamoDB endpoint to write accepted items to
 * @property {number} [conditionFails]  share of one-item calls (PutItem, UpdateItem) whose condition fails, 0..1
 */

// Table names are 3-255 of [A-Za-z0-9_.-], so the name needs no unescaping.
const SINGLE_TABLE_HEAD = /^\{"RequestItems":\{"([A-Za-z0-9_.-]{3,255})":\[/;
const PUT_MARKER = Buffer.from('{"PutRequest":{"Item":');
const DELETE_MARKER = Buffer.from('{"DeleteRequest":');
const TABLE_BOUNDARY = Buffer.from('],"');
const RETURN_TOTAL = Buffer.from('"ReturnConsumedCapacity":"TOTAL"');

/** The one-item calls of a conditional write mode. */
const ONE_ITEM_WRITES = /\.(PutItem|UpdateItem|DeleteItem)$/;

/** Why a write was refused, as DynamoDB's ThrottlingReasons and error type say it. */
const REFUSALS = {
  'key-range': { reason: 'TableWriteKeyRangeThroughputExceeded', type: 'ProvisionedThroughputExceededException' },
  provisioned: { reason: 'TableWriteProvisionedThroughputExceeded', type: 'ProvisionedThroughputExceededException' },
  'max-on-demand': { reason: 'TableWriteMaxOnDemandThroughputExceeded', type: 'ThrottlingException' },
  account: { reason: 'TableWriteAccountLimitExceeded', type: 'ThrottlingException' },
};

/** @param {ModelOptions} options */
export async function startCapacityModel(options = {}) {
  const { latencyMs = 0, jitterMs = 0, wcu, keyName = 'id', sortKeyName, keyType = 'S', sortKeyType = 'S', forward, warmStatus = 'ACTIVE' } = options;
  const mode = options.mode ?? (wcu === undefined ? undefined : 'provisioned');
  const table = mode === undefined ? undefined : createTableModel({ ...options, mode });

  /** Per second since start: consumed WCU, throttled items, calls, and the table's partitions and capacity. */
  const startedSecond = Math.floor(performance.now() / 1000);
  /** @type {Array<{ wcu: number, throttledItems: number, calls: number, throttledCalls: number, partitions: number, capacity: number }>} */
  const perSecond = [];
  const totals = { calls: 0, items: 0, wcu: 0, throttledItems: 0, throttledCalls: 0, conditionsFailed: 0 };
  const conditionFails = options.conditionFails ?? 0;

  function thisSecond() {
    const index = Math.floor(performance.now() / 1000) - startedSecond;
    while (perSecond.length <= index) {
      const state = table?.state();
      perSecond.push({ wcu: 0, throttledItems: 0, calls: 0, throttledCalls: 0, partitions: state?.partitions ?? 0, capacity: state?.capacity ?? 0 });
    }
    return perSecond[index];
  }

  /** @param {any} value  an AttributeValue @param {'S' | 'N'} type */
  const sortValue = (value, type) => (value === undefined ? 0 : type === 'N' ? Number(value.N) : String(value.S ?? value.N ?? ''));

  /**
   * @param {Record<string, any>} item
   * @returns {{ at: import('./table-model.js').Position, units: number }}
   */
  function costOf(item) {
    const key = item[keyName];
    const keyValue = key === undefined ? '' : String(key.S ?? key.N ?? '');
    const sort = sortKeyName === undefined ? 0 : sortValue(item[sortKeyName], sortKeyType);
    return { at: { hash: hashKey(keyValue), sort }, units: Math.max(1, Math.ceil(itemBytes(item) / 1024)) };
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
   * A conditional write mode's call of one item (PutItem, UpdateItem, DeleteItem): its item (an update's
   * key and values) costs what a batch's would; refused whole for capacity, or its condition failed at the
   * share asked (it consumes capacity all the same, as DynamoDB's do).
   * @param {any} request
   * @returns {{ status: number, body: string }}
   */
  function oneItem(request) {
    const second = thisSecond();
    second.calls++;
    totals.calls++;
    const item = request.Item ?? { ...request.Key, ...request.ExpressionAttributeValues };
    const cost = costOf(item);
    const outcome = table === undefined ? 'ok' : table.write(cost.at, cost.units);
    if (outcome !== 'ok') {
      second.throttledItems++;
      second.throttledCalls++;
      totals.throttledItems++;
      totals.throttledCalls++;
      const { reason, type } = REFUSALS[outcome];
      return { status: 400, body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `The table's write capacity was exceeded (capacity model: ${reason})`, ThrottlingReasons: [{ reason, resource: `arn:aws:dynamodb:us-east-1:000000000000:table/${request.TableName}` }] }) };
    }
    second.wcu += cost.units;
    totals.wcu += cost.units;
    if (request.ConditionExpression !== undefined && Math.random() < conditionFails) {
      totals.conditionsFailed++;
      return { status: 400, body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed' }) };
    }
    totals.items++;
    return { status: 200, body: request.ReturnConsumedCapacity === 'TOTAL' ? `{"ConsumedCapacity":{"TableName":${JSON.stringify(request.TableName)},"CapacityUnits":${cost.units}}}` : '{}' };
  }

  /**
   * @param {http.IncomingHttpHeaders} headers
   * @param {any} request
   * @returns {Promise<{ status: number, body: string }>}
   */
  async function batchWrite(headers, request) {
    const second = thisSecond();
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
    /** @type {import('./table-model.js').WriteOutcome | undefined} */
    let refusal;
    for (const [name, requests] of Object.entries(/** @type {Record<string, any[]>} */ (request.RequestItems))) {
      let units = 0;
      for (const entry of requests) {
        requested++;
        const item = entry.PutRequest?.Item ?? entry.DeleteRequest?.Key ?? {};
        if (table === undefined) {
          units += Math.max(1, Math.ceil(itemBytes(item) / 1024));
          (accepted[name] ??= []).push(entry);
          continue;
        }
        const cost = costOf(item);
        const outcome = table.write(cost.at, cost.units);
        if (outcome !== 'ok') {
          refusal ??= outcome;
          (unprocessed[name] ??= []).push(entry);
          continue;
        }
        units += cost.units;
        (accepted[name] ??= []).push(entry);
      }
      acceptedCount += accepted[name]?.length ?? 0;
      if (units > 0) consumed.push({ TableName: name, CapacityUnits: units });
      second.wcu += units;
      totals.wcu += units;
    }
    const throttled = requested - acceptedCount;
    second.throttledItems += throttled;
    totals.throttledItems += throttled;
    totals.items += acceptedCount;
    if (acceptedCount === 0 && requested > 0 && refusal !== undefined) {
      second.throttledCalls++;
      totals.throttledCalls++;
      const name = Object.keys(request.RequestItems)[0];
      const { reason, type } = REFUSALS[/** @type {Exclude<typeof refusal, 'ok'>} */ (refusal)];
      return { status: 400, body: JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `The table's write capacity was exceeded (capacity model: ${reason})`, ThrottlingReasons: [{ reason, resource: `arn:aws:dynamodb:us-east-1:000000000000:table/${name}` }] }) };
    }
    if (forwardUrl !== undefined) {
      const answer = await send(headers, JSON.stringify({ RequestItems: accepted }));
      if (answer.status !== 200) return answer;
      const forwarded = JSON.parse(answer.body);
      for (const [name, items] of Object.entries(/** @type {Record<string, unknown[]>} */ (forwarded.UnprocessedItems ?? {}))) {
        unprocessed[name] = [...(unprocessed[name] ?? []), ...items];
      }
    }
    return { status: 200, body: JSON.stringify({ UnprocessedItems: unprocessed, ConsumedCapacity: request.ReturnConsumedCapacity === 'TOTAL' ? consumed : undefined }) };
  }

  /** @param {any} request */
  function describeTable(request) {
    const facts = table?.describe();
    const keys = [[keyName, 'HASH', keyType], ...(sortKeyName === undefined ? [] : [[sortKeyName, 'RANGE', sortKeyType]])];
    return {
      status: 200,
      body: JSON.stringify({
        Table: {
          TableName: request.TableName,
          TableStatus: 'ACTIVE',
          KeySchema: keys.map(([name, role]) => ({ AttributeName: name, KeyType: role })),
          AttributeDefinitions: keys.map(([name, , type]) => ({ AttributeName: name, AttributeType: type })),
          ...(facts?.mode === 'provisioned'
            ? { BillingModeSummary: { BillingMode: 'PROVISIONED' }, ProvisionedThroughput: { ReadCapacityUnits: 0, WriteCapacityUnits: facts.wcu } }
            : {
                BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' },
                ProvisionedThroughput: { ReadCapacityUnits: 0, WriteCapacityUnits: 0 },
                ...(facts === undefined ? {} : { WarmThroughput: { ReadUnitsPerSecond: 3 * facts.warmWritesPerSecond, WriteUnitsPerSecond: facts.warmWritesPerSecond, Status: warmStatus }, OnDemandThroughput: { MaxReadRequestUnits: -1, MaxWriteRequestUnits: facts.maxWriteRate ?? -1 } }),
              }),
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
    const second = thisSecond();
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
      thisSecond();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totals, perSecond, table: table?.state(), startedAt: performance.timeOrigin + startedSecond * 1000 }));
      return;
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    const started = performance.now();
    let answer;
    try {
      const sink = table === undefined && forwardUrl === undefined;
      if (target.endsWith('.BatchWriteItem')) answer = (sink ? sinkFastPath(raw) : undefined) ?? (await batchWrite(req.headers, JSON.parse(body())));
      else if (ONE_ITEM_WRITES.test(target) && forwardUrl === undefined) answer = oneItem(JSON.parse(body()));
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
    partitions: table?.state().partitions ?? 0,
    stats: () => ({ totals, perSecond, table: table?.state() }),
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

import { afterEach, describe, expect, it } from 'vitest';
import { startCapacityModel } from './capacity-model.js';

/** @type {Array<{ stop(): Promise<void> }>} */
const started = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((model) => model.stop()));
});

/** @param {import('./capacity-model.js').ModelOptions} options */
async function model(options) {
  const m = await startCapacityModel(options);
  started.push(m);
  return m;
}

/** @param {string} endpoint @param {string} body */
async function batchWrite(endpoint, body) {
  const res = await fetch(endpoint, { method: 'POST', headers: { 'x-amz-target': 'DynamoDB_20120810.BatchWriteItem', 'content-type': 'application/x-amz-json-1.0' }, body });
  return { status: res.status, body: await res.json() };
}

/** @param {number} n @param {number} [valueChars] */
const puts = (n, valueChars = 20) => Array.from({ length: n }, (_, i) => ({ PutRequest: { Item: { id: { S: `id-${i}` }, name: { S: 'x'.repeat(valueChars) }, n: { N: String(i) } } } }));

describe('capacity model, sink', () => {
  it('answers a call in the client\'s shape as it answers the same call in any other key order', async () => {
    const sink = await model({});
    const items = puts(25);
    // The client's own serialization (bench fast path) and the same request with its keys reordered (parsed).
    const clientShape = await batchWrite(sink.endpoint, JSON.stringify({ RequestItems: { 'my-table.v2': items }, ReturnConsumedCapacity: 'TOTAL' }));
    const otherShape = await batchWrite(sink.endpoint, JSON.stringify({ ReturnConsumedCapacity: 'TOTAL', RequestItems: { 'my-table.v2': items } }));
    expect(clientShape).toEqual({ status: 200, body: { UnprocessedItems: {}, ConsumedCapacity: [{ TableName: 'my-table.v2', CapacityUnits: 25 }] } });
    expect(otherShape).toEqual(clientShape);
    expect(sink.stats().totals).toMatchObject({ calls: 2, items: 50, wcu: 50, throttledItems: 0, throttledCalls: 0 });
  });

  it('costs an item over 1 KB exactly, and counts two tables apart', async () => {
    const sink = await model({});
    const big = await batchWrite(sink.endpoint, JSON.stringify({ RequestItems: { t1: [...puts(2), ...puts(1, 1500)] }, ReturnConsumedCapacity: 'TOTAL' }));
    expect(big.body.ConsumedCapacity).toEqual([{ TableName: 't1', CapacityUnits: 2 + 2 }]);
    const two = await batchWrite(sink.endpoint, JSON.stringify({ RequestItems: { t1: puts(3), t2: puts(4) }, ReturnConsumedCapacity: 'TOTAL' }));
    expect(two.body.ConsumedCapacity).toEqual([{ TableName: 't1', CapacityUnits: 3 }, { TableName: 't2', CapacityUnits: 4 }]);
    const noCapacityAsked = await batchWrite(sink.endpoint, JSON.stringify({ RequestItems: { t1: puts(5) } }));
    expect(noCapacityAsked.body).toEqual({ UnprocessedItems: {} });
    expect(sink.stats().totals).toMatchObject({ calls: 3, items: 3 + 7 + 5, wcu: 4 + 7 + 5 });
  });
});

describe('capacity model, capacity', () => {
  it('accepts what the partitions hold, returns the rest as UnprocessedItems, and refuses a call of which nothing fits', async () => {
    const table = await model({ wcu: 10, partitions: 2 });
    // Start just after a second's refill, so that both calls fall in the same second.
    await new Promise((resolve) => setTimeout(resolve, 1020 - (performance.now() % 1000)));
    const first = await batchWrite(table.endpoint, JSON.stringify({ RequestItems: { t: puts(25) }, ReturnConsumedCapacity: 'TOTAL' }));
    expect(first.status).toBe(200);
    const unprocessed = first.body.UnprocessedItems.t ?? [];
    const accepted = 25 - unprocessed.length;
    // The table's 10 WCU: a partition may take up to 1,000 of them (adaptive capacity), the table no more.
    expect(accepted).toBe(10);
    expect(first.body.ConsumedCapacity).toEqual([{ TableName: 't', CapacityUnits: accepted }]);

    // What came back is only keys of full partitions: sent again in the same second, nothing fits.
    const answer = await batchWrite(table.endpoint, JSON.stringify({ RequestItems: { t: unprocessed } }));
    expect(answer.status).toBe(400);
    expect(answer.body.__type).toMatch(/#ProvisionedThroughputExceededException$/);
    // Its reason, as DynamoDB's: the table's provisioned 10 WCU are spent (each partition could take 1,000).
    expect(answer.body.ThrottlingReasons).toEqual([{ reason: 'TableWriteProvisionedThroughputExceeded', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/t' }]);
    expect(table.stats().totals).toMatchObject({ calls: 2, items: accepted, wcu: accepted, throttledCalls: 1, throttledItems: 25 - accepted + unprocessed.length });
  });

  it('describes the table with its provisioned WCU, so that the importer\'s pace starts there', async () => {
    const table = await model({ wcu: 3_000 });
    const res = await fetch(table.endpoint, { method: 'POST', headers: { 'x-amz-target': 'DynamoDB_20120810.DescribeTable' }, body: JSON.stringify({ TableName: 'bench' }) });
    expect((await res.json()).Table).toMatchObject({ TableName: 'bench', BillingModeSummary: { BillingMode: 'PROVISIONED' }, ProvisionedThroughput: { WriteCapacityUnits: 3_000 } });
  });
});

describe('capacity model, a new on-demand table', () => {
  it('describes its warm throughput and refuses one hot key with a key range reason, not the table\'s', async () => {
    const table = await model({ mode: 'on-demand', keyName: 'pk', keyType: 'N' });
    const res = await fetch(table.endpoint, { method: 'POST', headers: { 'x-amz-target': 'DynamoDB_20120810.DescribeTable' }, body: JSON.stringify({ TableName: 'bench' }) });
    expect((await res.json()).Table).toMatchObject({ BillingModeSummary: { BillingMode: 'PAY_PER_REQUEST' }, WarmThroughput: { WriteUnitsPerSecond: 4_000 }, AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'N' }] });
    await new Promise((resolve) => setTimeout(resolve, 1020 - (performance.now() % 1000)));
    const hot = Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: { pk: { N: '7' }, sk: { N: String(i) } } } }));
    let refused;
    for (let call = 0; call < 45 && refused === undefined; call++) {
      const answer = await batchWrite(table.endpoint, JSON.stringify({ RequestItems: { t: hot } }));
      if (answer.status === 400) refused = answer.body;
    }
    // 1,000 WCU of one partition key's partition: the 41st call of 25 at the latest is refused whole.
    expect(refused).toMatchObject({ __type: expect.stringMatching(/#ProvisionedThroughputExceededException$/), ThrottlingReasons: [{ reason: 'TableWriteKeyRangeThroughputExceeded' }] });
    expect(table.stats().totals.wcu).toBeLessThanOrEqual(1_000);
  });
});

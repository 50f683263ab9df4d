// A new on-demand table grows when pushed and says so in DescribeTable's WarmThroughput; the watch reads
// it again while an import writes and tells each rise, once. On the table model (bench/capacity-model.js),
// whose growth steps come every second here (time x1,800).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startCapacityModel } from '../../../bench/capacity-model.js';
import { watchWarmThroughput } from '../../../src/write/warm-watch.js';

/** @type {Array<() => unknown>} */
const cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** @param {string} endpoint @param {number} items  puts of distinct keys, 25 a call */
async function write(endpoint, items) {
  for (let sent = 0; sent < items; sent += 25) {
    const puts = Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: { id: { S: `k-${sent + i}` } } } }));
    await fetch(endpoint, { method: 'POST', headers: { 'x-amz-target': 'DynamoDB_20120810.BatchWriteItem', 'content-type': 'application/x-amz-json-1.0' }, body: JSON.stringify({ RequestItems: { t: puts } }) });
  }
}

/**
 * Writes until the table has grown past its first 4,000 WCU/s (a growth step after a second in which it took
 * more than 2,000), at most 5 seconds. @param {Awaited<ReturnType<typeof startCapacityModel>>} model
 */
async function pushUntilGrown(model) {
  const deadline = performance.now() + 5_000;
  while ((model.stats().table?.capacity ?? 0) <= 4_000 && performance.now() < deadline) await write(model.endpoint, 500);
  expect(model.stats().table?.capacity).toBeGreaterThan(4_000);
}

/**
 * A new on-demand table on the model (time x1,800, as above) and a watch on it every 100 ms that starts
 * from its 4,000 WCU/s; what the watch tells is in `told`.
 * @param {Partial<Parameters<typeof startCapacityModel>[0]>} options
 */
async function watchModel(options) {
  const model = await startCapacityModel({ mode: 'on-demand', timeScale: 1_800, ...options });
  cleanups.push(() => model.stop());
  const dynamodb = new DynamoDBClient({ endpoint: model.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  cleanups.push(() => dynamodb.destroy());
  /** @type {number[]} */
  const told = [];
  const watch = watchWarmThroughput({ dynamodb, table: 't', everyMs: 100, from: 4_000, onWarm: (units) => told.push(units) });
  cleanups.push(() => watch.stop());
  return { model, told, watch };
}

describe('warm throughput watch', () => {
  it('tells each rise of a growing table\'s warm throughput once, and nothing after it is stopped', async () => {
    const { model, told, watch } = await watchModel({});
    // A new table's 4,000 is known already: not told.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(told).toEqual([]);
    // Pushed past half its capacity in a second, the table grows at its next step to twice what it took.
    await pushUntilGrown(model);
    const capacity = () => model.stats().table?.capacity;
    // The step after the push may still rise with the push's last second; the one after that cannot.
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    // Each rise once, in order, the last one the table's.
    expect(told.length).toBeGreaterThan(0);
    told.forEach((units, x) => expect(units).toBeGreaterThan(x === 0 ? 4_000 : told[x - 1]));
    expect(told.at(-1)).toBe(capacity());
    // Steps without more traffic leave it where it is: nothing more is told.
    const count = told.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(told).toHaveLength(count);
    watch.stop();
    await write(model.endpoint, 12_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(capacity()).toBeGreaterThan(/** @type {number} */ (told.at(-1)));
    expect(told).toHaveLength(count);
  });

  it('takes no figure while the warm throughput is UPDATING (a pre-warm under way: the table may not have it yet)', async () => {
    const { model, told } = await watchModel({ warmStatus: 'UPDATING' });
    await pushUntilGrown(model);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(told).toEqual([]);
  });
});

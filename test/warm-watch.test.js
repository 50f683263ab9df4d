// A new on-demand table grows when pushed and says so in DescribeTable's WarmThroughput; the watch reads
// it again while an import writes and tells each rise, once. On the table model (bench/capacity-model.js),
// whose growth steps come every second here (time x1,800).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startCapacityModel } from '../bench/capacity-model.js';
import { watchWarmThroughput } from '../src/write/warm-watch.js';

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

describe('warm throughput watch', () => {
  it('tells each rise of a growing table\'s warm throughput once, and nothing after it is stopped', async () => {
    const model = await startCapacityModel({ mode: 'on-demand', timeScale: 1_800 });
    cleanups.push(() => model.stop());
    const dynamodb = new DynamoDBClient({ endpoint: model.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    cleanups.push(() => dynamodb.destroy());
    /** @type {number[]} */
    const told = [];
    const watch = watchWarmThroughput({ dynamodb, table: 't', everyMs: 100, from: 4_000, onWarm: (units) => told.push(units) });
    cleanups.push(() => watch.stop());
    // A new table's 4,000 is known already: not told.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(told).toEqual([]);
    // 3,000 WCU in a step: the next step takes the table to twice that.
    await write(model.endpoint, 3_000);
    const deadline = performance.now() + 5_000;
    while (told.length === 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(told).toHaveLength(1);
    expect(told[0]).toBeGreaterThanOrEqual(6_000);
    expect(told[0]).toBe(model.stats().table?.capacity);
    // Steps without more traffic leave it where it is: nothing more is told.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(told).toHaveLength(1);
    watch.stop();
    await write(model.endpoint, 12_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(model.stats().table?.capacity).toBeGreaterThan(told[0]);
    expect(told).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { checkFitsOnAws, SEGMENTS_PER_SHARD, SLOWEST_BYTES_PER_SECOND } from '../../../../src/dispatch/step-functions/limits.js';

const job = { bucket: 'b', key: 'k.csv', table: 'People' };

describe('what a job on AWS must fit in', () => {
  it('keeps 5,000 of the 25,000 history events for retries and redrives: 2,221 segments a shard', () => {
    expect(SEGMENTS_PER_SHARD).toBe(2_221);
  });

  it('takes any segmentMs for a shard that, read at the slowest planned rate, stays within the history', () => {
    // 1 GB in 10 shards: 100 MB a shard, 1,526 s at 64 KiB/s, 688 ms a segment at least.
    expect(() => checkFitsOnAws(job, { segmentMs: 700, shards: 10, bytesPerShard: undefined }, 1e9)).not.toThrow();
    expect(() => checkFitsOnAws(job, { segmentMs: undefined, shards: 1, bytesPerShard: undefined }, 1e12)).not.toThrow();
  });

  it('refuses a segmentMs that could pass it, naming the option, the limit and the value that fits', () => {
    const needed = Math.ceil((1e8 / SLOWEST_BYTES_PER_SECOND) * 1000 / SEGMENTS_PER_SHARD);
    expect(() => checkFitsOnAws(job, { segmentMs: 100, shards: 10, bytesPerShard: undefined }, 1e9)).toThrow(
      new RegExp(`Invalid option "segmentMs": got 100; on AWS a shard's execution holds at most 25000 history events, 2221 segments; a shard of 100.0 MB .* needs segments of ${needed} ms: set segmentMs to ${needed} or more`),
    );
    // Past 900,000 ms a segment (the function's limit) only more shards help.
    expect(() => checkFitsOnAws(job, { segmentMs: 900_000, shards: 1, bytesPerShard: undefined }, 2e11)).toThrow(/leave segmentMs out and set shards to \d+ or more/);
  });

  it('refuses a payload too large to be carried in every state', () => {
    expect(() => checkFitsOnAws({ ...job, columnTypes: 'x'.repeat(70_000) }, { segmentMs: undefined, shards: 1, bytesPerShard: undefined }, undefined)).toThrow(/Invalid option "payload".*keep them under 65536 bytes/);
  });
});

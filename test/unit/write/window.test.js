import { describe, expect, it } from 'vitest';
import { createWriteWindow } from '../../../src/write/window.js';

describe('AIMD write window', () => {
  it('halves on a throttle, once per window of calls, and grows by one per window of successes', () => {
    const limit = { concurrency: 0 };
    const window = createWriteWindow({ limit, adaptive: true, floor: 2, ceiling: 32 });
    expect(limit.concurrency).toBe(32);
    window.throttled();
    expect(limit.concurrency).toBe(16);
    // The other calls of the old window come back throttled too: no further cut for them.
    for (let i = 0; i < 15; i++) window.throttled();
    expect(limit.concurrency).toBe(16);
    window.throttled();
    expect(limit.concurrency).toBe(8);
    for (let i = 0; i < 9; i++) window.succeeded(); // +1/size each: about one per window
    expect(limit.concurrency).toBe(9);
    for (let i = 0; i < 200; i++) window.throttled();
    expect(limit.concurrency).toBe(2);
    for (let i = 0; i < 10_000; i++) window.succeeded();
    expect(limit.concurrency).toBe(32);
  });

  it('stays fixed when adaptive is off', () => {
    const limit = { concurrency: 0 };
    const window = createWriteWindow({ limit, adaptive: false, floor: 1, ceiling: 10 });
    for (let i = 0; i < 50; i++) window.throttled();
    expect(limit.concurrency).toBe(10);
  });
});

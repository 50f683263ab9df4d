import { describe, expect, it } from 'vitest';
import { createShuffleWindow } from '../../../src/items/shuffle.js';

/** A seeded generator, so that the order is the same every run. @param {number} seed */
function seeded(seed) {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('shuffle window', () => {
  it('emits every row exactly once, out of order, holding at most the window', async () => {
    /** @type {number[]} */
    const out = [];
    const window = createShuffleWindow(100, (/** @type {number} */ row) => {
      out.push(row);
      return undefined;
    }, { keyOf: String, onCollapse: () => expect.fail('no key repeats'), random: seeded(7) });
    for (let i = 0; i < 1_000; i++) {
      window.add(i);
      expect(i + 1 - out.length).toBeLessThanOrEqual(100);
    }
    await window.drain();
    expect([...out].sort((a, b) => a - b)).toEqual(Array.from({ length: 1_000 }, (_, i) => i));
    expect(out).not.toEqual(Array.from({ length: 1_000 }, (_, i) => i));
    // A row moves at most so far ahead: it cannot leave before the window has filled up to it.
    expect(out.every((row, position) => row <= position + 99)).toBe(true);
  });

  it('passes rows straight through at size 0, and hands back the writer\'s wait', async () => {
    /** @type {number[]} */
    const out = [];
    const wait = Promise.resolve();
    const window = createShuffleWindow(0, (/** @type {number} */ row) => {
      out.push(row);
      return row === 2 ? wait : undefined;
    }, { keyOf: String, onCollapse: () => expect.fail('no key repeats') });
    expect(window.add(1)).toBeUndefined();
    expect(window.add(2)).toBe(wait);
    await window.drain();
    expect(out).toEqual([1, 2]);
  });

  it('reorders keys but never the versions of one key: a later row replaces the held row of its key', async () => {
    /** @type {Array<{ key: string, line: number }>} */
    const out = [];
    let collapsed = 0;
    const window = createShuffleWindow(10, (/** @type {{ key: string, line: number }} */ row) => {
      out.push(row);
      return undefined;
    }, { keyOf: (row) => row.key, onCollapse: () => collapsed++, random: seeded(3) });
    // 2,000 rows over 15 keys: most rows find their key held in the window.
    for (let line = 1; line <= 2_000; line++) window.add({ key: `k${line % 15}`, line });
    await window.drain();
    expect(out.length + collapsed).toBe(2_000);
    expect(collapsed).toBeGreaterThan(0);
    /** @type {Map<string, number>} */
    const lastLine = new Map();
    for (const row of out) {
      expect(row.line).toBeGreaterThan(lastLine.get(row.key) ?? 0);
      lastLine.set(row.key, row.line);
    }
    // Each key's last version is the file's last row with that key.
    for (let k = 0; k < 15; k++) expect(lastLine.get(`k${k}`)).toBe(2_000 - ((2_000 - k) % 15));
  });

  it('queues the later rows of a held key behind it when rows do not collapse (a conditional write mode), in file order, within the window', async () => {
    /** @type {Array<{ key: string, line: number }>} */
    const out = [];
    const window = createShuffleWindow(10, (/** @type {{ key: string, line: number }} */ row) => {
      out.push(row);
      return undefined;
    }, { keyOf: (row) => row.key, onCollapse: undefined, random: seeded(3) });
    let most = 0;
    for (let line = 1; line <= 500; line++) {
      // One key in three is "hot", repeated far more often than the window holds.
      const wait = window.add({ key: line % 3 === 0 ? 'hot' : `k${line % 17}`, line });
      if (wait !== undefined) await wait;
      most = Math.max(most, window.held());
      expect(line - out.length).toBe(window.held());
    }
    await window.drain();
    expect(most).toBeLessThanOrEqual(10);
    expect(out.map((row) => row.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    // Each key's rows leave in file order.
    /** @type {Map<string, number>} */
    const last = new Map();
    for (const row of out) {
      expect(row.line).toBeGreaterThan(last.get(row.key) ?? 0);
      last.set(row.key, row.line);
    }
  });
});

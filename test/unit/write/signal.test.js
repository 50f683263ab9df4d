import { describe, expect, it } from 'vitest';
import { createSignal } from '../../../src/write/signal.js';

/** Whether a promise has settled, after the microtasks queued so far have run. @param {Promise<unknown>} promise */
async function hasSettled(promise) {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('signal', () => {
  it('gives every waiter until the next fire one promise, and resolves it on fire', async () => {
    const signal = createSignal();
    const first = signal.next();
    expect(signal.next()).toBe(first);
    expect(await hasSettled(first)).toBe(false);
    signal.fire();
    expect(await hasSettled(first)).toBe(true);
  });

  it('gives a new promise after a fire, which waits for the next fire', async () => {
    const signal = createSignal();
    const first = signal.next();
    signal.fire();
    const second = signal.next();
    expect(second).not.toBe(first);
    expect(await hasSettled(second)).toBe(false);
    signal.fire();
    expect(await hasSettled(second)).toBe(true);
  });

  it('keeps no count: a fire with no one waiting wakes no later waiter', async () => {
    const signal = createSignal();
    signal.fire();
    signal.fire();
    expect(await hasSettled(signal.next())).toBe(false);
  });
});

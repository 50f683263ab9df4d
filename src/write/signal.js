/**
 * A signal: something that happens again and again, that code can wait for the next time of. `next()`
 * gives the promise of the next `fire()` (one promise shared by every waiter until then, made only when
 * someone waits); `fire()` resolves it, and a wait after it gets a new promise. Firing with no one
 * waiting does nothing: a signal wakes waiters, it does not keep a count.
 *
 * The batch writer waits on three: the reader for room, a read loop for a row to settle, a flush for
 * the writes to be given up.
 */

/** @typedef {{ next: () => Promise<void>, fire: () => void }} Signal */

/** @returns {Signal} */
export function createSignal() {
  /** @type {Promise<void> | undefined} */
  let pending;
  /** @type {(() => void) | undefined} */
  let resolvePending;
  return {
    next() {
      pending ??= new Promise((resolve) => (resolvePending = () => resolve(undefined)));
      return pending;
    },
    fire() {
      const resolve = resolvePending;
      pending = undefined;
      resolvePending = undefined;
      resolve?.();
    },
  };
}

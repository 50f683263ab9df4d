/**
 * What a segment holds open (its reader, timers, listeners, watchers), released in one place: each
 * release is registered when the thing is taken, and run once, newest first.
 */

/** @returns {{ defer: (release: () => void) => void, release: () => void }} */
export function createCleanup() {
  /** @type {Array<() => void>} */
  let releases = [];
  return {
    defer(release) {
      releases.push(release);
    },
    release() {
      const pending = releases.reverse();
      releases = [];
      for (const release of pending) release();
    },
  };
}

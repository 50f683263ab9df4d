/**
 * Reorders rows within a window before they are batched: rows sorted by their partition key would
 * otherwise send every call to one partition at a time, and a table splits its capacity over its
 * partitions (the hot-key remedy of the seed article). Memory grows with the window: a held row of
 * about 200 bytes takes about 1 KB of heap (its item JSON, one flat string, and its fields for the rejects
 * file), and V8 lets the heap grow to two or three times what is live before it collects.
 */

/**
 * @template T
 * @param {number} size  rows held at most; 0 passes rows straight through
 * @param {(value: T) => Promise<void> | undefined} emit  may return a promise to wait on
 * @param {() => number} [random]
 */
export function createShuffleWindow(size, emit, random = Math.random) {
  /** @type {T[]} */
  const held = [];
  return {
    /**
     * @param {T} value
     * @returns {Promise<void> | undefined}
     */
    add(value) {
      if (size === 0) return emit(value);
      held.push(value);
      if (held.length < size) return undefined;
      // Out goes a row picked at random; the last row takes its place.
      const at = Math.floor(random() * held.length);
      const out = held[at];
      held[at] = /** @type {T} */ (held[held.length - 1]);
      held.pop();
      return emit(out);
    },
    /** Emits every row still held, in random order. */
    async drain() {
      while (held.length > 0) {
        const at = Math.floor(random() * held.length);
        const out = held[at];
        held[at] = /** @type {T} */ (held[held.length - 1]);
        held.pop();
        const wait = emit(out);
        if (wait !== undefined) await wait;
      }
    },
  };
}

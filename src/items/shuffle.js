/**
 * Reorders rows within a window before they are batched: rows sorted by their partition key would
 * otherwise send every call to one partition at a time, and a table splits its capacity over its
 * partitions (the hot-key remedy of the seed article). The window reorders keys, never the versions of
 * one key: a row whose key is already held replaces the held row (which a sequential import would have
 * overwritten) and the older one is counted as collapsed, so the rows of a key leave in file order.
 * Memory grows with the window, about 1 KB of heap for a row of 200 bytes (docs/design/items.md).
 */

/**
 * @template T
 * @param {number} size  rows held at most; 0 passes rows straight through
 * @param {(value: T) => Promise<void> | undefined} emit  may return a promise to wait on
 * @param {object} options
 * @param {(value: T) => string} options.keyOf  the row's primary key
 * @param {(older: T, newer: T) => void} options.onCollapse  a held row was replaced by a later row with its key
 * @param {() => number} [options.random]
 */
export function createShuffleWindow(size, emit, { keyOf, onCollapse, random = Math.random }) {
  /** @type {T[]} */
  const held = [];
  /** Where each held key is in `held`. @type {Map<string, number>} */
  const at = new Map();

  /** Takes a row out at random; the last row takes its place. */
  function takeOne() {
    const i = Math.floor(random() * held.length);
    const out = held[i];
    const last = /** @type {T} */ (held.pop());
    at.delete(keyOf(out));
    if (i < held.length) {
      held[i] = last;
      at.set(keyOf(last), i);
    }
    return out;
  }

  return {
    /**
     * @param {T} value  rows come in file order
     * @returns {Promise<void> | undefined}
     */
    add(value) {
      if (size === 0) return emit(value);
      const key = keyOf(value);
      const previous = at.get(key);
      if (previous !== undefined) {
        const older = held[previous];
        held[previous] = value;
        onCollapse(older, value);
        return undefined;
      }
      at.set(key, held.length);
      held.push(value);
      if (held.length < size) return undefined;
      return emit(takeOne());
    },
    /** Rows held now. */
    held: () => held.length,
    /** Emits every row still held, in random order. */
    async drain() {
      while (held.length > 0) {
        const wait = emit(takeOne());
        if (wait !== undefined) await wait;
      }
    },
  };
}

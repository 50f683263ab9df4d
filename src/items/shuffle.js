/**
 * Reorders rows within a window before they are batched: rows sorted by their partition key would
 * otherwise send every call to one partition at a time, and a table splits its capacity over its
 * partitions (the hot-key remedy of the seed article). The window reorders keys, never the versions of
 * one key: a row whose key is already held replaces the held row (which a sequential import would have
 * overwritten) and the older one is counted as collapsed, so the rows of a key leave in file order.
 * Under a conditional write mode no row replaces another (the first may be the one that applies): the
 * later rows of a held key queue behind it and leave with it, in file order; they count as held rows.
 * Memory grows with the window, about 1 KB of heap for a row of 200 bytes (docs/design/items.md).
 */

/**
 * @template T
 * @param {number} size  rows held at most; 0 passes rows straight through
 * @param {(value: T) => Promise<void> | undefined} emit  may return a promise to wait on
 * @param {object} options
 * @param {(value: T) => string} options.keyOf  the row's primary key
 * @param {((older: T, newer: T) => void) | undefined} options.onCollapse  a held row was replaced by a later
 *   row with its key; undefined: the later row queues behind it instead
 * @param {() => number} [options.random]
 */
export function createShuffleWindow(size, emit, { keyOf, onCollapse, random = Math.random }) {
  /** @type {T[]} */
  const held = [];
  /** Where each held key is in `held`. @type {Map<string, number>} */
  const at = new Map();
  /** Later rows of a held key, in file order, when rows queue rather than collapse. @type {Map<string, T[]>} */
  const queued = new Map();
  let queuedRows = 0;

  /** Emits a row and the rows queued behind it. @param {T} value */
  async function emitWithQueued(value) {
    const wait = emit(value);
    if (wait !== undefined) await wait;
    const behind = queued.get(keyOf(value));
    if (behind === undefined) return;
    queued.delete(keyOf(value));
    queuedRows -= behind.length;
    for (const row of behind) {
      const next = emit(row);
      if (next !== undefined) await next;
    }
  }
  /** @param {T} value */
  const release = (value) => (queued.size === 0 ? emit(value) : emitWithQueued(value));

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
        if (onCollapse === undefined) {
          const behind = queued.get(key);
          if (behind === undefined) queued.set(key, [value]);
          else behind.push(value);
          queuedRows++;
          return held.length + queuedRows < size ? undefined : release(takeOne());
        }
        const older = held[previous];
        held[previous] = value;
        onCollapse(older, value);
        return undefined;
      }
      at.set(key, held.length);
      held.push(value);
      if (held.length + queuedRows < size) return undefined;
      return release(takeOne());
    },
    /** Rows held now. */
    held: () => held.length + queuedRows,
    /** Emits every row still held, in random order. */
    async drain() {
      while (held.length > 0) {
        const wait = release(takeOne());
        if (wait !== undefined) await wait;
      }
    },
  };
}

/**
 * The batch writer: groups items into BatchWriteItem calls of 25 and keeps at most the window's size of
 * them in flight (a sliding window: a new call starts as soon as any call ends). The window is fixed or
 * adaptive (AIMD, window.js); sending one batch, with its re-drive and retries, is send-batch.js. Two rows
 * with one key in a batch would make DynamoDB refuse the whole call, so the later row (further down the
 * file) replaces the earlier one and is counted as collapsed. Nothing is dropped without being counted.
 *
 * For one key the file's order wins, as sequential writes would have it: a batch that holds a key of a
 * batch still outstanding waits for it to end before it is sent. A row that replaced another and is then
 * not written (refused, out of attempts) brings the row it replaced back: that one is written instead.
 *
 * The reader is held back by the rows outstanding (on the wire, waiting for a slot, or backing off), at
 * most `concurrency` calls' worth, so memory stays bounded whatever the window does. They are counted in
 * rows, not batches: a batch re-driving the few rows a hot partition refused holds a few rows, and
 * counted as a whole batch, a window's worth of such remnants backing off held the reader while the
 * table had room (a spread import, whose hot stretches refuse rows by design, lost 2 s in 28 to it).
 *
 * A segment whose time runs out before its writes end abandons them (`abandon`): the rows not yet
 * written or rejected are handed to the next segment, and nothing the abandoned calls do is counted.
 */
import pLimit from 'p-limit';
import { setTimeout as sleep } from 'node:timers/promises';
import { countRejection } from '../observe/counters.js';
import { supersede } from '../items/superseded.js';
import { createBatchSender } from './send-batch.js';
import { createWriteWindow } from './window.js';

export const BATCH_SIZE = 25;

/**
 * Items one call carries at most: BATCH_SIZE, or under a small WCU cap a twentieth of a second's worth.
 * The cap hands a call its units once its bucket is not empty, so each writer may pass its rate by one
 * call in a second: calls this small keep that to a twentieth of the rate (at least one item).
 * @param {number | undefined} maxWcu
 */
export const itemsPerCall = (maxWcu) => (maxWcu === undefined ? BATCH_SIZE : Math.max(1, Math.min(BATCH_SIZE, Math.floor(maxWcu / 20))));

/** @typedef {import('../types.js').Entry} Entry */
/** @typedef {import('../types.js').Rejection} Rejection */

/**
 * The import's own options (names as in config.js) and what the writer writes with.
 * @typedef {Pick<import('../config/index.js').ImportConfig, 'table' | 'concurrency' | 'maxAttempts' | 'backoffBaseMs' | 'backoffCapMs'>
 *   & Partial<Pick<import('../config/index.js').ImportConfig, 'adaptiveConcurrency' | 'minConcurrency' | 'maxWcu'>>
 *   & BatchWriterDeps} BatchWriterOptions
 */
/**
 * @typedef {object} BatchWriterDeps
 * @property {Pick<import('./batch-write-client.js').BatchWriteClient, 'batchWrite'>} client  sends one request body
 * @property {(item: import('../types.js').Item) => string} keyIdOf   the keyId of an item as DynamoDB returns it
 * @property {import('../observe/counters.js').Stats} stats
 * @property {(rejection: Rejection) => void} onReject
 * @property {(ms: number) => Promise<unknown>} [wait]  for tests
 * @property {number} [startRate]  WCU/s the adaptive pace starts at: the table's known ceiling (this writer's share of it)
 * @property {boolean} [tableGrows]  the table grows when pushed (on-demand, no maximum): the pace probes faster
 * @property {boolean} [unevenKeys]  the rows fall unevenly on the partitions by design (spread): the pace holds what the table says it takes
 */

/** @param {BatchWriterOptions} options */
export function createBatchWriter(options) {
  const { concurrency, stats, onReject } = options;
  const limit = pLimit(concurrency);
  const window = createWriteWindow({
    limit,
    adaptive: options.adaptiveConcurrency ?? false,
    floor: Math.min(options.minConcurrency ?? 1, concurrency),
    ceiling: concurrency,
    onChange: (size) => (stats.window = size),
  });
  stats.window = limit.concurrency;
  /** The first fatal error: it stops the import, and the summary counts what it left unwritten. @type {unknown} */
  let fatal;
  /** Rows added and not yet written, rejected or collapsed: what an abandoned segment hands on. @type {Set<Entry>} */
  const unsettled = new Set();
  let abandoned = false;
  /** @type {() => void} */
  let letGo = () => {};
  /** Resolves the promise `settled` gave out, if any. @type {(() => void) | undefined} */
  let settledWaiter;
  /** @type {Promise<void> | undefined} */
  let settling;
  function tellSettled() {
    const waiter = settledWaiter;
    settledWaiter = undefined;
    settling = undefined;
    waiter?.();
  }
  /** Settles when the writes are abandoned, so that a flush stops waiting. @type {Promise<void>} */
  const abandoning = new Promise((resolve) => (letGo = () => resolve(undefined)));
  const sender = createBatchSender({
    ...options,
    limit,
    window,
    written(entries) {
      for (const entry of entries) unsettled.delete(entry);
      if (!full()) wake();
      tellSettled();
    },
    reject(entry, reason, message) {
      unsettled.delete(entry);
      tellSettled();
      countRejection(stats, reason);
      onReject({ line: entry.line, reason, message, fields: entry.fields });
      // The row it replaced is the key's latest row now: no longer collapsed, it is written after all.
      const earlier = entry.replaced;
      if (earlier !== undefined) {
        stats.duplicatesCollapsed--;
        unsettled.add(earlier);
        revived.set(entry, earlier);
      }
    },
    stoppedBy: () => fatal,
    abandoned: () => abandoned,
    wait: options.wait ?? sleep,
  });
  const sendBatch = sender.send;

  /** Rows to write because the row that replaced them was rejected, by that row. @type {Map<Entry, Entry>} */
  const revived = new Map();
  const batch = createBatch(itemsPerCall(options.maxWcu), stats, (collapsed) => {
    unsettled.delete(collapsed);
    tellSettled();
  });

  /**
   * Sends a batch, then the rows its rejected rows had replaced (and theirs, if those are rejected too),
   * before the batch counts as ended: a later batch with one of those keys waits for them.
   * @param {Entry[]} entries
   */
  async function sendWithRevivals(entries) {
    let sending = entries;
    while (sending.length > 0) {
      await sendBatch(sending);
      const again = [];
      for (const entry of sending) {
        const earlier = revived.get(entry);
        if (earlier === undefined) continue;
        revived.delete(entry);
        again.push(earlier);
      }
      if (abandoned || fatal !== undefined) return;
      sending = again;
    }
  }
  /** Batches dispatched and not yet written or rejected. @type {Set<Promise<void>>} */
  const outstanding = new Set();
  const keysInFlight = createKeysInFlight();
  /** @type {(() => void) | undefined} */
  let wakeReader;

  function dispatch() {
    const entries = batch.take();
    // The file's order wins for a key: a batch that holds a key an earlier batch is still writing (or
    // re-driving, or backing off) is sent once that batch has ended, so the older row cannot land last.
    const earlier = keysInFlight.holders(entries);
    const started = earlier === undefined ? sendWithRevivals(entries) : Promise.all(earlier).then(() => sendWithRevivals(entries));
    const sending = started
      .catch((error) => {
        if (fatal === undefined) fatal = error;
      })
      .finally(() => {
        outstanding.delete(sending);
        keysInFlight.release(entries, sending);
        wake();
        tellSettled();
      });
    outstanding.add(sending);
    keysInFlight.hold(entries, sending);
  }

  /** Whether the rows outstanding (sent, or in batches waiting to be) fill the calls the writer may hold. */
  const full = () => unsettled.size - batch.size() >= concurrency * BATCH_SIZE;

  /** Lets a reader waiting for room go on (it looks again whether there is room). */
  function wake() {
    const waiting = wakeReader;
    wakeReader = undefined;
    waiting?.();
  }

  /** @returns {Promise<void>} */
  function room() {
    return new Promise((resolve) => {
      wakeReader = () => resolve(undefined);
    }).then(() => (abandoned ? undefined : fatal !== undefined ? Promise.reject(fatal) : full() ? room() : undefined));
  }

  return {
    /**
     * Adds one row. Returns a promise when the caller must wait (the rows outstanding fill the calls the
     * writer may hold), else undefined, so that the common path costs no promise.
     * @param {Entry} entry
     * @returns {Promise<void> | undefined}
     */
    add(entry) {
      if (fatal !== undefined) throw fatal;
      unsettled.add(entry);
      if (abandoned) return undefined;
      if (!batch.add(entry)) return undefined;
      dispatch();
      return full() ? room() : undefined;
    },

    /** Sends the last partial batch and waits for every call to end. Throws the first fatal error. */
    async flush() {
      if (batch.size() > 0 && fatal === undefined && !abandoned) dispatch();
      while (outstanding.size > 0 && !abandoned) await Promise.race([Promise.all(outstanding), abandoning]);
      // A fatal error stops the import even when the writes were given up after it: its rows were
      // rejected as stopped by it, and the job must not go on past them.
      if (fatal !== undefined) throw fatal;
    },

    /** The table's warm throughput rose to this many WCU/s (this writer's share): the pace may go there. @param {number} units */
    tableWarm: (units) => sender.pace.warm(units),

    /** Rows not yet written, rejected or collapsed: in the open batch or in batches outstanding. */
    queued: () => unsettled.size,
    /** Whether a row added is still on its way (not yet written, rejected or collapsed). @param {Entry} entry */
    pending: (entry) => unsettled.has(entry),

    /**
     * Resolves the next time a row settles (is written, rejected or collapsed) or a call ends, so that a
     * reader waiting for rows of its own to settle need not poll; rejects with the writes' fatal error.
     * After `abandon` nothing settles: it resolves in a moment.
     * @returns {Promise<void>}
     */
    settled() {
      if (fatal !== undefined) return Promise.reject(fatal);
      if (abandoned) return sleep(1);
      settling ??= new Promise((resolve) => (settledWaiter = () => resolve(undefined)));
      return settling;
    },

    /**
     * Gives up the writes: nothing the calls outstanding do is counted any more (their answers are
     * dropped, none is re-sent), a reader or a flush waiting is let go, and rows added from now on are
     * only kept. The caller closes the connections.
     */
    abandon() {
      abandoned = true;
      batch.take();
      letGo();
      wake();
      tellSettled();
    },

    /** The rows not written, rejected or collapsed, in file order: after `abandon`, what is handed on. */
    leftOver: () => [...unsettled].sort((a, b) => a.line - b.line),

    limit,
  };
}

/**
 * The batch being filled: at most one row per key. A row whose key is in it already replaces that row if
 * it is further down the file, as sequential writes would have it, even when rows arrive out of order
 * (shuffleWindow); either way one of the two is counted as collapsed.
 * @param {number} size  rows a full batch holds
 * @param {import('../observe/counters.js').Stats} stats
 * @param {(entry: Entry) => void} onCollapse  the row that lost
 */
function createBatch(size, stats, onCollapse) {
  /** @type {Entry[]} */
  let entries = [];
  /** @type {Map<string, number>} keyId -> index in entries */
  let keys = new Map();
  return {
    /** @param {Entry} entry @returns {boolean} whether the batch is full */
    add(entry) {
      const previous = keys.get(entry.keyId);
      if (previous !== undefined) {
        const older = entries[previous];
        if (entry.line > older.line) entries[previous] = entry;
        const [winner, loser] = entry.line > older.line ? [entry, older] : [older, entry];
        supersede(winner, loser);
        onCollapse(loser);
        stats.duplicatesCollapsed++;
        return false;
      }
      keys.set(entry.keyId, entries.length);
      entries.push(entry);
      return entries.length === size;
    },
    size: () => entries.length,
    /** The batch's entries; the batch is empty again. */
    take() {
      const taken = entries;
      entries = [];
      keys = new Map();
      return taken;
    },
  };
}

/** The last outstanding batch that holds each key, so that a later batch with that key waits for it. */
function createKeysInFlight() {
  /** @type {Map<string, Promise<void>>} */
  const holder = new Map();
  return {
    /** The outstanding batches that hold a key of these entries, if any. @param {Entry[]} entries */
    holders(entries) {
      /** @type {Promise<void>[] | undefined} */
      let found;
      for (const entry of entries) {
        const batch = holder.get(entry.keyId);
        if (batch !== undefined && !found?.includes(batch)) (found ??= []).push(batch);
      }
      return found;
    },
    /** @param {Entry[]} entries @param {Promise<void>} batch */
    hold(entries, batch) {
      for (const entry of entries) holder.set(entry.keyId, batch);
    },
    /** @param {Entry[]} entries @param {Promise<void>} batch  ended */
    release(entries, batch) {
      for (const entry of entries) if (holder.get(entry.keyId) === batch) holder.delete(entry.keyId);
    },
  };
}

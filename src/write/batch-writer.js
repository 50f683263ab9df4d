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
 * rows, not batches: a window's worth of batches re-driving the few rows a hot partition refused would
 * otherwise hold the reader while the table has room (measured: docs/design/pace.md).
 *
 * Whoever waits on the writer waits on a signal (signal.js): the reader for room (a batch ended, or rows
 * were written), a read loop for a row to settle, a flush for the writes to be abandoned.
 *
 * A segment whose time runs out before its writes end abandons them (`abandon`): the rows not yet
 * written or rejected are handed to the next segment, and nothing the abandoned calls do is counted.
 */
import pLimit from 'p-limit';
import { setTimeout as sleep } from 'node:timers/promises';
import { countRejection, countSkip } from '../observe/counters.js';
import { supersede } from '../items/superseded.js';
import { createBatchSender } from './send-batch.js';
import { createItemSender } from './send-item.js';
import { createSignal } from './signal.js';
import { createWriteWindow } from './window.js';

export const BATCH_SIZE = 25;

/**
 * Items one call carries at most: BATCH_SIZE, or under a small WCU cap a twentieth of a second's worth.
 * The cap hands a call its units once its bucket is not empty, so each writer may pass its rate by one
 * call in a second: calls this small keep that to a twentieth of the rate (at least one item).
 * @param {number | undefined} maxWcu
 */
export const itemsPerCall = (maxWcu) => (maxWcu === undefined ? BATCH_SIZE : Math.max(1, Math.min(BATCH_SIZE, Math.floor(maxWcu / 20))));

/**
 * Rows one call carries at most by write mode: BatchWriteItem's 25 for `put`, one for a conditional mode
 * (BatchWriteItem takes no condition).
 * @param {import('../config/index.js').ImportConfig['writeMode'] | undefined} writeMode
 */
export const rowsPerCall = (writeMode) => (writeMode === undefined || writeMode === 'put' ? BATCH_SIZE : 1);

/** @typedef {import('../types.js').Entry} Entry */
/** @typedef {import('../types.js').Rejection} Rejection */

/**
 * The import's own options (names as in config.js) and what the writer writes with.
 * @typedef {Pick<import('../config/index.js').ImportConfig, 'table' | 'concurrency' | 'maxAttempts' | 'backoffBaseMs' | 'backoffCapMs'>
 *   & Partial<Pick<import('../config/index.js').ImportConfig, 'adaptiveConcurrency' | 'minConcurrency' | 'maxWcu' | 'writeMode' | 'versionColumn'>>
 *   & BatchWriterDeps} BatchWriterOptions
 */
/**
 * @typedef {object} BatchWriterDeps
 * @property {Pick<import('./batch-write-client.js').BatchWriteClient, 'batchWrite' | 'send'>} client  sends one request body
 * @property {import('./table-check.js').TableKeys} [keys]  the table's key attributes (a conditional writeMode's conditions name them)
 * @property {(item: import('../types.js').Item) => string} keyIdOf   the keyId of an item as DynamoDB returns it
 * @property {import('../observe/counters.js').Stats} stats
 * @property {(rejection: Rejection) => void} onReject
 * @property {(ms: number) => Promise<unknown>} [wait]  for tests
 * @property {import('./write-policy.js').WritePolicy} [policy]  how this kind of import paces and backs off (write-policy.js)
 * @property {(message: string, fields: Record<string, unknown>) => void} [warn]  a warning about the rows (a version read as text that holds numbers)
 */

/** @param {BatchWriterOptions} options */
export function createBatchWriter(options) {
  const { concurrency, stats } = options;
  const { limit, window } = createWindow(options);
  /** The first fatal error: it stops the import, and the summary counts what it left unwritten. @type {unknown} */
  let fatal;
  let abandoned = false;
  const stopped = () => abandoned || fatal !== undefined;
  const roomSignal = createSignal();
  const settleSignal = createSignal();
  const letGoSignal = createSignal();
  const rows = createUnsettledRows(stats, options.onReject);
  /** A row was written, rejected or collapsed. @param {Entry} entry */
  const settle = (entry) => {
    rows.settle(entry);
    settleSignal.fire();
  };
  /** A batch ended, or the writes were given up: a reader waiting for room or for rows to settle looks again. */
  const wakeWaiters = () => {
    roomSignal.fire();
    settleSignal.fire();
  };
  // A conditional write mode sends a call per row: the window holds calls of one row.
  const perCall = rowsPerCall(options.writeMode);
  const conditional = perCall === 1;
  const batch = createBatch(conditional ? 1 : itemsPerCall(options.maxWcu), stats, settle);
  /** Whether the rows outstanding (sent, or in batches waiting to be) fill the calls the writer may hold. */
  const full = () => rows.size() - batch.size() >= concurrency * perCall;
  /** Rows settled by a call's answer: the reader may have room, a read loop a row it waits for. @param {Entry[]} entries */
  const answered = (entries) => {
    for (const entry of entries) rows.settle(entry);
    if (!full()) roomSignal.fire();
    settleSignal.fire();
  };
  const sender = createSender(options, conditional, {
    limit,
    window,
    written: answered,
    reject(entry, reason, message) {
      settle(entry);
      rows.rejected(entry, reason, message);
    },
    skipped(entry, reason) {
      countSkip(stats, reason, entry.line);
      answered([entry]);
    },
    stoppedBy: () => fatal,
    abandoned: () => abandoned,
    wait: options.wait ?? sleep,
  });
  const onFatal = (/** @type {unknown} */ error) => void (fatal ??= error);
  const inFlight = createBatchesInFlight((entries) => sendWithRevivals(entries, sender.send, rows.revivalsOf, stopped), onFatal, wakeWaiters);

  /** Resolves when there is room for more rows (or the writes stopped); rejects with a fatal error. @returns {Promise<void>} */
  function room() {
    return roomSignal.next().then(() => (abandoned ? undefined : fatal !== undefined ? Promise.reject(fatal) : full() ? room() : undefined));
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
      rows.add(entry);
      if (abandoned || !batch.add(entry)) return undefined;
      inFlight.dispatch(batch.take());
      return full() ? room() : undefined;
    },

    /** Sends the last partial batch and waits for every call to end. Throws the first fatal error. */
    async flush() {
      if (batch.size() > 0 && !stopped()) inFlight.dispatch(batch.take());
      while (inFlight.count() > 0 && !abandoned) await Promise.race([inFlight.allEnded(), letGoSignal.next()]);
      // A fatal error stops the import even when the writes were given up after it: its rows were
      // rejected as stopped by it, and the job must not go on past them.
      if (fatal !== undefined) throw fatal;
    },

    /** Rows not yet written, rejected or collapsed: in the open batch or in batches outstanding. */
    queued: () => rows.size(),
    /** Whether a row added is still on its way (not yet written, rejected or collapsed). @param {Entry} entry */
    pending: (entry) => rows.has(entry),

    /**
     * Resolves the next time a row settles (is written, rejected or collapsed) or a call ends, so that a
     * reader waiting for rows of its own to settle need not poll; rejects with the writes' fatal error.
     * After `abandon` nothing settles: it resolves in a moment.
     * @returns {Promise<void>}
     */
    settled() {
      if (fatal !== undefined) return Promise.reject(fatal);
      if (abandoned) return sleep(1);
      return settleSignal.next();
    },

    /**
     * Gives up the writes: nothing the calls outstanding do is counted any more (their answers are
     * dropped, none is re-sent), a reader or a flush waiting is let go, and rows added from now on are
     * only kept. The caller closes the connections.
     */
    abandon() {
      abandoned = true;
      batch.take();
      letGoSignal.fire();
      wakeWaiters();
    },

    /** The rows not written, rejected or collapsed, in file order: after `abandon`, what is handed on. */
    leftOver: () => rows.inFileOrder(),

    limit,
  };
}

/**
 * What sends a batch: a BatchWriteItem of up to 25 rows, or (a conditional write mode) a call of one row.
 * @param {BatchWriterOptions} options @param {boolean} conditional
 * @param {Pick<import('./send-batch.js').BatchSenderOptions, 'limit' | 'window' | 'written' | 'reject' | 'stoppedBy' | 'abandoned' | 'wait'>
 *   & Pick<import('./send-item.js').ItemSenderOptions, 'skipped'>} writer  what the sender tells the writer
 */
function createSender(options, conditional, writer) {
  const { skipped, ...batchWriter } = writer;
  if (!conditional) return createBatchSender({ ...options, ...batchWriter });
  return createItemSender({
    ...options,
    ...writer,
    writeMode: /** @type {import('./item-requests.js').ConditionalMode} */ (options.writeMode),
    versionColumn: options.versionColumn,
    keys: /** @type {import('./table-check.js').TableKeys} */ (options.keys),
  });
}

/**
 * The window of calls in flight: a p-limit whose concurrency the AIMD window sets (window.js), shown in
 * stats.window.
 * @param {BatchWriterOptions} options
 */
function createWindow({ concurrency, stats, adaptiveConcurrency, minConcurrency }) {
  const limit = pLimit(concurrency);
  const window = createWriteWindow({
    limit,
    adaptive: adaptiveConcurrency ?? false,
    floor: Math.min(minConcurrency ?? 1, concurrency),
    ceiling: concurrency,
    onChange: (size) => (stats.window = size),
  });
  stats.window = limit.concurrency;
  return { limit, window };
}

/**
 * The rows added and not yet written, rejected or collapsed: what holds the reader back, and what an
 * abandoned segment hands on. A rejected row that had replaced another (a collapse) revives it: the
 * earlier row is the key's latest now, no longer collapsed, and is written after all.
 * @param {import('../observe/counters.js').Stats} stats
 * @param {(rejection: Rejection) => void} onReject
 */
function createUnsettledRows(stats, onReject) {
  /** @type {Set<Entry>} */
  const unsettled = new Set();
  /** Rows to write because the row that replaced them was rejected, by that row. @type {Map<Entry, Entry>} */
  const revived = new Map();
  return {
    /** @param {Entry} entry */
    add: (entry) => void unsettled.add(entry),
    /** @param {Entry} entry */
    has: (entry) => unsettled.has(entry),
    size: () => unsettled.size,
    /** Written, rejected or collapsed. @param {Entry} entry */
    settle: (entry) => void unsettled.delete(entry),
    /**
     * A settled row was rejected: counted, reported, and the row it replaced revived.
     * @param {Entry} entry @param {import('../errors.js').RejectReason} reason @param {string} message
     */
    rejected(entry, reason, message) {
      countRejection(stats, reason);
      onReject({ line: entry.line, reason, message, fields: entry.fields });
      const earlier = entry.replaced;
      if (earlier !== undefined) {
        stats.duplicatesCollapsed--;
        unsettled.add(earlier);
        revived.set(entry, earlier);
      }
    },
    /** The rows revived by these entries' rejection, each handed out once. @param {Entry[]} entries */
    revivalsOf(entries) {
      const again = [];
      for (const entry of entries) {
        const earlier = revived.get(entry);
        if (earlier === undefined) continue;
        revived.delete(entry);
        again.push(earlier);
      }
      return again;
    },
    inFileOrder: () => [...unsettled].sort((a, b) => a.line - b.line),
  };
}

/**
 * Sends a batch, then the rows its rejected rows had revived (and theirs, if those are rejected too),
 * before the batch counts as ended: a later batch with one of those keys waits for them.
 * @param {Entry[]} entries
 * @param {(entries: Entry[]) => Promise<void>} sendBatch
 * @param {(entries: Entry[]) => Entry[]} revivalsOf
 * @param {() => boolean} stopped  abandoned, or stopped by a fatal error
 */
async function sendWithRevivals(entries, sendBatch, revivalsOf, stopped) {
  let sending = entries;
  while (sending.length > 0) {
    await sendBatch(sending);
    const again = revivalsOf(sending);
    if (stopped()) return;
    sending = again;
  }
}

/**
 * The batches dispatched and not yet ended. The file's order wins for a key: a batch that holds a key an
 * earlier batch is still writing (or re-driving, or backing off) is sent once that batch has ended, so
 * the older row cannot land last.
 * @param {(entries: Entry[]) => Promise<void>} send  rejects only with a fatal error
 * @param {(error: unknown) => void} onFatal
 * @param {() => void} onEnd  a batch ended
 */
function createBatchesInFlight(send, onFatal, onEnd) {
  /** @type {Set<Promise<void>>} */
  const outstanding = new Set();
  const keysInFlight = createKeysInFlight();
  return {
    /** @param {Entry[]} entries */
    dispatch(entries) {
      const earlier = keysInFlight.holders(entries);
      const started = earlier === undefined ? send(entries) : Promise.all(earlier).then(() => send(entries));
      const sending = started.catch(onFatal).finally(() => {
        outstanding.delete(sending);
        keysInFlight.release(entries, sending);
        onEnd();
      });
      outstanding.add(sending);
      keysInFlight.hold(entries, sending);
    },
    count: () => outstanding.size,
    allEnded: () => Promise.all(outstanding),
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

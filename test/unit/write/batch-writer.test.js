import { describe, expect, it, vi } from 'vitest';
import { BATCH_SIZE, createBatchWriter } from '../../../src/write/batch-writer.js';
import { writePolicyFor } from '../../../src/write/write-policy.js';
import { createStats } from '../../../src/observe/counters.js';

/**
 * An in-memory BatchWriteItem endpoint: records each call's items and answers with `answer`.
 * @param {(keys: string[], call: number) => { unprocessed?: string[], error?: Error }} [answer]
 */
function recordingClient(answer = () => ({})) {
  /** @type {string[][]} */
  const calls = [];
  let active = 0;
  let maxActive = 0;
  return {
    calls,
    get maxActive() {
      return maxActive;
    },
    /** @param {string} body */
    async batchWrite(body) {
      const request = JSON.parse(body);
      expect(Object.keys(request.RequestItems)).toEqual(['t']);
      expect(request.ReturnConsumedCapacity).toBe('TOTAL');
      const requests = request.RequestItems.t;
      const keys = requests.map((/** @type {any} */ r) => r.PutRequest.Item.id.S);
      calls.push(keys);
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((resolve) => setImmediate(resolve));
      active--;
      const { unprocessed = [], error } = answer(keys, calls.length);
      if (error) throw error;
      return {
        UnprocessedItems: unprocessed.length ? { t: requests.filter((/** @type {any} */ r) => unprocessed.includes(r.PutRequest.Item.id.S)) } : {},
        ConsumedCapacity: [{ TableName: 't', CapacityUnits: keys.length - unprocessed.length }],
      };
    },
  };
}

/** @param {ReturnType<typeof recordingClient>} client @param {Partial<import('../../../src/write/batch-writer.js').BatchWriterOptions>} [options] */
function writerFor(client, options = {}) {
  const stats = createStats();
  /** @type {import('../../../src/types.js').Rejection[]} */
  const rejections = [];
  const writer = createBatchWriter({
    client: /** @type {any} */ (client),
    table: 't',
    keyIdOf: (item) => item.id.S ?? '',
    concurrency: 4,
    maxAttempts: 5,
    backoffBaseMs: 1,
    backoffCapMs: 2,
    stats,
    onReject: (rejection) => rejections.push(rejection),
    wait: async () => {},
    ...options,
  });
  return { writer, stats, rejections };
}

/** @param {ReturnType<typeof writerFor>['writer']} writer @param {number} count @param {(i: number) => string} [key] */
async function addRows(writer, count, key = (i) => `k${i}`) {
  for (let i = 0; i < count; i++) {
    const id = key(i);
    const wait = writer.add({ json: JSON.stringify({ id: { S: id } }), keyId: id, line: i + 2, fields: [id] });
    if (wait) await wait;
  }
  await writer.flush();
}

describe('batch writer', () => {
  it.each([
    [0, []],
    [1, [1]],
    [24, [24]],
    [25, [25]],
    [26, [25, 1]],
    [50, [25, 25]],
  ])('%i rows make calls of %j', async (rows, sizes) => {
    const client = recordingClient();
    const { writer, stats } = writerFor(client);
    await addRows(writer, rows);
    expect(client.calls.map((keys) => keys.length)).toEqual(sizes);
    expect(stats.written).toBe(rows);
    expect(new Set(client.calls.flat()).size).toBe(rows);
  });

  it('never has more calls in flight than the window', async () => {
    const client = recordingClient();
    const { writer, stats } = writerFor(client, { concurrency: 3 });
    await addRows(writer, 1000);
    expect(client.maxActive).toBe(3);
    expect(stats.written).toBe(1000);
    expect(stats.inFlight).toBe(0);
  });

  it('re-drives UnprocessedItems until all are written, counting retries and throttled items', async () => {
    // Every first sight of a key is left unprocessed; its second passes.
    const seen = new Set();
    const client = recordingClient((keys) => ({ unprocessed: keys.filter((k) => !seen.has(k) && seen.add(k)) }));
    const { writer, stats, rejections } = writerFor(client);
    await addRows(writer, 60);
    expect(stats.written).toBe(60);
    expect(stats.throttledItems).toBe(60);
    expect(stats.retries).toBe(3);
    expect(rejections).toEqual([]);
    expect(stats.wcu).toBe(60);
  });

  it('rejects items still unprocessed after maxAttempts that wrote nothing, saying how many came back', async () => {
    const client = recordingClient((keys) => ({ unprocessed: keys.slice(0, 2) }));
    const { writer, stats, rejections } = writerFor(client, { maxAttempts: 1 });
    await addRows(writer, 25);
    expect(stats.written).toBe(23);
    expect(rejections.map((r) => r.line)).toEqual([2, 3]);
    // Progress is judged since the previous attempt began: the first two attempts span the 23 items the
    // first call wrote, so they do not count; the third, after a stretch that wrote nothing, does.
    expect(rejections[0].message).toBe('not written after 3 attempts; last error: 2 of 2 items came back as UnprocessedItems');
    expect(client.calls.map((keys) => keys.length)).toEqual([25, 2, 2]);
  });

  it('lets a batch wait its turn past maxAttempts while the import as a whole keeps writing', async () => {
    // k0..k24 are refused 6 times in a row; every other batch is written at once, so the import progresses.
    let refusals = 0;
    const client = recordingClient((keys) => (keys.includes('k0') && refusals++ < 6 ? { unprocessed: keys } : {}));
    const { writer, stats, rejections } = writerFor(client, { maxAttempts: 2, concurrency: 2 });
    await addRows(writer, 25 * 40);
    expect(rejections).toEqual([]);
    expect(stats.written).toBe(25 * 40);
    expect(client.calls.filter((keys) => keys.includes('k0')).length).toBe(7);
  });

  describe('backoff', () => {
    /** Each wait's ceiling: with random() just under 1, full jitter waits the whole ceiling, less a ms at most. */
    const ceilings = async (/** @type {(waits: number[]) => Promise<void>} */ run) => {
      const random = vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
      try {
        /** @type {number[]} */
        const waits = [];
        await run(waits);
        return waits.map((ms) => Math.ceil(ms / 10) * 10);
      } finally {
        random.mockRestore();
      }
    };

    /** A batch refused eight times in a row (3 of its rows) while every other batch is written. */
    const refusedWhileOthersWrite = async (/** @type {boolean} */ unevenKeys) => {
      let refusals = 0;
      const client = recordingClient((keys) => (keys.includes('k0') && refusals++ < 8 ? { unprocessed: keys.slice(0, 3) } : {}));
      return ceilings(async (waits) => {
        const { writer, rejections } = writerFor(client, { maxAttempts: 2, concurrency: 2, backoffBaseMs: 10, backoffCapMs: 10_000, policy: writePolicyFor({ adaptive: false, unevenKeys }), wait: async (ms) => void waits.push(ms) });
        await addRows(writer, 25 * 40);
        expect(rejections).toEqual([]);
      });
    };

    it('of a spread import stops doubling at 16 x its base while the import writes: a batch refused eight times in a row waits its turn, not seconds', async () => {
      expect(await refusedWhileOthersWrite(true)).toEqual([10, 20, 40, 80, 160, 160, 160, 160]);
    });

    it('of other imports doubles on while the import writes (a hot partition the reader does not relieve is left alone)', async () => {
      expect(await refusedWhileOthersWrite(false)).toEqual([10, 20, 40, 80, 160, 320, 640, 1280]);
    });

    it('of a spread import doubles on to its cap while nothing is written anywhere (the table takes nothing)', async () => {
      const throttle = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
      const client = recordingClient(() => ({ error: throttle }));
      const waited = await ceilings(async (waits) => {
        const { writer, stats } = writerFor(client, { maxAttempts: 9, concurrency: 1, backoffBaseMs: 10, backoffCapMs: 500, policy: writePolicyFor({ adaptive: false, unevenKeys: true }), wait: async (ms) => void waits.push(ms) });
        await addRows(writer, 1);
        expect(stats.rejected).toBe(1);
      });
      expect(waited).toEqual([10, 20, 40, 80, 160, 320, 500, 500]);
    });
  });

  it('retries throttled and transient calls, then rejects with the last error after maxAttempts', async () => {
    const throttle = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    const client = recordingClient(() => ({ error: throttle }));
    const { writer, stats, rejections } = writerFor(client, { maxAttempts: 3 });
    await addRows(writer, 30);
    expect(client.calls.length).toBe(6);
    expect(stats.written).toBe(0);
    expect(stats.rejected).toBe(30);
    expect(stats.throttledCalls).toBe(6);
    expect(rejections[0]).toMatchObject({ reason: 'ATTEMPTS_EXHAUSTED', line: 2, fields: ['k0'] });
    expect(rejections[0].message).toMatch(/3 attempts.*ProvisionedThroughputExceededException: slow down/);
  });

  it('splits a refused batch and rejects only the refused item', async () => {
    const invalid = Object.assign(new Error('Type mismatch for key'), { name: 'ValidationException' });
    const client = recordingClient((keys) => (keys.includes('k7') ? { error: invalid } : {}));
    const { writer, stats, rejections } = writerFor(client);
    await addRows(writer, 25);
    expect(stats.written).toBe(24);
    expect(rejections).toEqual([{ line: 9, reason: 'REJECTED_BY_TABLE', message: 'ValidationException: Type mismatch for key', fields: ['k7'] }]);
  });

  it('writes the row a refused row had replaced, as sequential writes would leave it, before a later batch of its key', async () => {
    // A table that refuses the rows of some lines (as DynamoDB refuses an index key of the wrong type) and keeps, per key, the last row written.
    const refusedLines = new Set([5, 6, 30]);
    /** @type {Map<string, number>} */
    const table = new Map();
    const invalid = Object.assign(new Error('One or more parameter values were invalid: Type mismatch for Index Key'), { name: 'ValidationException' });
    const client = {
      /** @param {string} body */
      async batchWrite(body) {
        const items = JSON.parse(body).RequestItems.t.map((/** @type {any} */ r) => r.PutRequest.Item);
        await new Promise((resolve) => setImmediate(resolve));
        if (items.some((/** @type {any} */ item) => refusedLines.has(Number(item.v.N)))) throw invalid;
        for (const item of items) table.set(item.id.S, Number(item.v.N));
        return { ConsumedCapacity: [{ TableName: 't', CapacityUnits: items.length }] };
      },
    };
    const { writer, stats, rejections } = writerFor(/** @type {any} */ (client), { concurrency: 2 });
    // Lines 2..6 are key "a" (5 and 6 refused): the batch keeps line 6 and the rows it replaced. Line 30 (key "b",
    // refused) replaced line 29. Key "a" comes back on line 40, in a later batch, which must win.
    const keyOf = (/** @type {number} */ line) => (line <= 6 ? 'a' : line === 29 || line === 30 ? 'b' : line === 40 ? 'a' : `k${line}`);
    for (let line = 2; line <= 60; line++) {
      const id = keyOf(line);
      const wait = writer.add({ json: JSON.stringify({ id: { S: id }, v: { N: String(line) } }), keyId: id, line, fields: [id] });
      if (wait) await wait;
    }
    await writer.flush();
    expect(rejections.map((r) => [r.line, r.reason])).toEqual(expect.arrayContaining([[6, 'REJECTED_BY_TABLE'], [5, 'REJECTED_BY_TABLE'], [30, 'REJECTED_BY_TABLE']]));
    expect(rejections.length).toBe(3);
    // Line 4 is the last row of "a" the table takes before line 40; line 29 is b's.
    expect(table.get('a')).toBe(40);
    expect(table.get('b')).toBe(29);
    // Every line is written, rejected or collapsed, once: 2 and 3 stay collapsed (4 was written instead of 6).
    expect({ written: stats.written, rejected: stats.rejected, collapsed: stats.duplicatesCollapsed }).toEqual({ written: 59 - 3 - 2, rejected: 3, collapsed: 2 });
    expect(writer.queued()).toBe(0);
  });

  it('keeps at most four replaced rows of a key: a key repeated in every row holds no more', async () => {
    const client = recordingClient();
    const { writer, stats } = writerFor(client);
    /** @type {import('../../../src/types.js').Entry[]} */
    const added = [];
    for (let i = 0; i < 1000; i++) {
      const entry = { json: JSON.stringify({ id: { S: 'same' } }), keyId: 'same', line: i + 2, fields: ['same'] };
      added.push(entry);
      const wait = writer.add(entry);
      if (wait) await wait;
    }
    const last = /** @type {import('../../../src/types.js').Entry} */ (added.at(-1));
    const chain = [];
    for (let at = last.replaced; at !== undefined; at = at.replaced) chain.push(at.line);
    expect(chain).toEqual([1000, 999, 998, 997]);
    await writer.flush();
    expect({ written: stats.written, collapsed: stats.duplicatesCollapsed }).toEqual({ written: 1, collapsed: 999 });
  });

  it('counts throttled calls by their ThrottlingReasons; a hot key range backs off its batch but leaves the window alone', async () => {
    /** @param {string[]} reasons */
    const throttle = (reasons) => Object.assign(new Error('throttled'), { name: 'ThrottlingException', throttlingReasons: reasons.map((reason) => ({ reason })) });
    for (const [reasons, shrinks] of /** @type {const} */ ([[['TableWriteKeyRangeThroughputExceeded'], false], [['TableWriteProvisionedThroughputExceeded'], true], [['IndexWriteKeyRangeThroughputExceeded', 'IndexWriteProvisionedThroughputExceeded'], true]])) {
      let refusals = 0;
      const client = recordingClient(() => (refusals++ < 8 ? { error: throttle([...reasons]) } : {}));
      const { writer, stats } = writerFor(client, { concurrency: 16, adaptiveConcurrency: true, maxAttempts: 20 });
      /** @type {number[]} */
      const windows = [];
      for (let i = 0; i < 25 * 16; i++) {
        const id = `k${i}`;
        const wait = writer.add({ json: JSON.stringify({ id: { S: id } }), keyId: id, line: i + 2, fields: [id] });
        windows.push(stats.window);
        if (wait) await wait;
      }
      await writer.flush();
      windows.push(stats.window);
      expect(stats.written).toBe(25 * 16);
      expect(stats.throttledCalls).toBe(8);
      expect(stats.throttledCallsByReason).toEqual(Object.fromEntries(reasons.map((reason) => [reason, 8])));
      expect({ reasons, shrank: Math.min(...windows) < 16 }).toEqual({ reasons, shrank: shrinks });
    }
  });

  it('collapses duplicate keys within a batch, the later row winning', async () => {
    const client = recordingClient();
    const { writer, stats } = writerFor(client);
    await addRows(writer, 30, (i) => (i < 10 ? 'same' : `k${i}`));
    expect(stats.duplicatesCollapsed).toBe(9);
    expect(client.calls[0].filter((k) => k === 'same').length).toBe(1);
    expect(stats.written + stats.duplicatesCollapsed).toBe(30);
  });

  it('stops on a fatal error: no new calls, and flush throws it', async () => {
    const missing = Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
    const client = recordingClient(() => ({ error: missing }));
    const { writer } = writerFor(client, { concurrency: 1 });
    await expect(addRows(writer, 200)).rejects.toThrow('Requested resource not found');
    expect(client.calls.length).toBeLessThanOrEqual(2);
  });

  it('settled: resolves when a row settles (written or collapsed), and rejects once the writes failed', async () => {
    /** @type {Array<() => void>} */
    const answers = [];
    const client = recordingClient();
    const { writer } = writerFor(client, { client: /** @type {any} */ ({ batchWrite: (/** @type {string} */ body) => new Promise((resolve) => answers.push(() => resolve(client.batchWrite(body)))) }) });
    const entry = (/** @type {string} */ id, /** @type {number} */ line) => ({ json: JSON.stringify({ id: { S: id } }), keyId: id, line, fields: [id] });
    let settles = 0;
    const count = () => writer.settled().then(() => settles++);
    // Nothing settles while the only call is unanswered.
    for (let i = 0; i < BATCH_SIZE; i++) writer.add(entry(`k${i}`, i + 2));
    const first = count();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settles).toBe(0);
    expect(answers.length).toBe(1);
    answers[0]();
    await first;
    expect(settles).toBe(1);
    // A row collapsed into a later one of its key settles at once.
    writer.add(entry('same', 100));
    const collapsed = count();
    writer.add(entry('same', 101));
    await collapsed;
    expect(settles).toBe(2);
    // A fatal error: the waiter is let go, and settled rejects from then on.
    const missing = Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
    const failing = writerFor(recordingClient(() => ({ error: missing })), { concurrency: 1 }).writer;
    // The last row fills the one call the writer may hold: add asks the reader to wait, and that wait fails too.
    for (let i = 0; i < BATCH_SIZE; i++) failing.add(entry(`f${i}`, i + 2))?.catch(() => {});
    await failing.settled();
    await expect(failing.settled()).rejects.toThrow('Requested resource not found');
  });

  it('sends exactly BATCH_SIZE items per full call', () => {
    expect(BATCH_SIZE).toBe(25);
  });

  it('cuts the adaptive window when items come back unprocessed, and grows it again on success', async () => {
    // The first 40 calls leave one item unprocessed; every later call succeeds whole.
    const client = recordingClient((keys, call) => (call <= 40 ? { unprocessed: keys.slice(0, 1) } : {}));
    /** @type {number[]} */
    const windows = [];
    const { writer, stats } = writerFor(client, { concurrency: 16, adaptiveConcurrency: true, minConcurrency: 1, maxAttempts: 50 });
    for (let i = 0; i < 25 * 400; i++) {
      const id = `k${i}`;
      const wait = writer.add({ json: JSON.stringify({ id: { S: id } }), keyId: id, line: i + 2, fields: [id] });
      if (wait) await wait;
      windows.push(stats.window);
    }
    await writer.flush();
    expect(stats.written).toBe(25 * 400);
    expect(Math.min(...windows)).toBeLessThanOrEqual(2);
    expect(windows.at(-1)).toBe(16);
  });

  it('holds no slot of the window while a batch backs off', async () => {
    /** @type {Array<() => void>} */
    const sleepers = [];
    // The first two batches come back wholly unprocessed the first time: the window is cut from 4 to 2
    // and both back off.
    const refused = new Set(['k0', 'k25']);
    const client = recordingClient((keys) => (refused.delete(keys[0]) ? { unprocessed: keys } : {}));
    const { writer, stats } = writerFor(client, { concurrency: 4, adaptiveConcurrency: true, wait: () => new Promise((resolve) => sleepers.push(() => resolve(undefined))) });
    const flushed = addRows(writer, 25 * 6);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sleepers.length).toBe(2);
    expect(stats.window).toBeLessThan(4);
    // The two batches backing off hold no slot: the other four were written meanwhile.
    expect(stats.written).toBe(25 * 4);
    for (const wake of sleepers) wake();
    await flushed;
    expect(stats.written).toBe(25 * 6);
    expect(client.maxActive).toBeLessThanOrEqual(4);
  });

  it('holds the reader by the rows outstanding: a batch re-driving a few refused rows does not hold a whole batch', async () => {
    /** @type {Array<() => void>} */
    const sleepers = [];
    // Of each of the first two batches, one row comes back unprocessed and backs off until woken.
    const refused = new Set(['k0', 'k25']);
    const client = recordingClient((keys) => ({ unprocessed: keys.filter((key) => refused.delete(key)) }));
    const { writer, stats } = writerFor(client, { concurrency: 2, wait: () => new Promise((resolve) => sleepers.push(() => resolve(undefined))) });
    const flushed = addRows(writer, 25 * 6);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sleepers.length).toBe(2);
    // Two rows back off; counted as two whole batches they would fill the writer's two calls and hold the
    // reader: the rows of the four batches after them were read and written meanwhile.
    expect(stats.written).toBe(25 * 6 - 2);
    expect(writer.queued()).toBe(2);
    for (const wake of sleepers) wake();
    await flushed;
    expect(stats.written).toBe(25 * 6);
  });

  it('holds the reader while the rows outstanding fill the calls the writer may hold', async () => {
    /** @type {Array<() => void>} */
    const answers = [];
    const client = {
      /** @param {string} body */
      batchWrite(body) {
        const count = JSON.parse(body).RequestItems.t.length;
        return new Promise((resolve) => answers.push(() => resolve({ ConsumedCapacity: [{ TableName: 't', CapacityUnits: count }] })));
      },
    };
    const { writer } = writerFor(/** @type {any} */ (client), { concurrency: 2 });
    let read = 0;
    const reading = (async () => {
      for (let i = 0; i < 25 * 4; i++) {
        const wait = writer.add({ json: JSON.stringify({ id: { S: `k${i}` } }), keyId: `k${i}`, line: i + 2, fields: [] });
        read++;
        if (wait) await wait;
      }
      await writer.flush();
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Two calls of 25 on the wire: the reader waits after the row that filled the second batch.
    expect(read).toBe(50);
    expect(writer.queued()).toBe(50);
    answers.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(read).toBe(75);
    while (answers.length > 0 || read < 100) {
      answers.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await reading;
    expect(writer.queued()).toBe(0);
  });

  it('keeps the row from further down the file when duplicates arrive out of order', async () => {
    /** @type {any[]} */
    const sent = [];
    const client = {
      /** @param {string} body */
      async batchWrite(body) {
        sent.push(...JSON.parse(body).RequestItems.t.map((/** @type {any} */ r) => r.PutRequest.Item));
        return { UnprocessedItems: {} };
      },
    };
    const { writer, stats } = writerFor(/** @type {any} */ (client));
    /** @type {Array<[string, number]>} */
    const rows = [['a', 9], ['b', 3], ['a', 4], ['a', 12], ['b', 2]];
    for (const [id, line] of rows) writer.add({ json: JSON.stringify({ id: { S: id }, line: { N: String(line) } }), keyId: id, line, fields: [id] });
    await writer.flush();
    expect(stats.duplicatesCollapsed).toBe(3);
    expect(sent).toEqual([{ id: { S: 'a' }, line: { N: '12' } }, { id: { S: 'b' }, line: { N: '3' } }]);
    expect(stats.written).toBe(2);
  });

  describe('for one key, the row further down the file lands last, whatever the answers', () => {
    /**
     * A table in memory: each call applies the items it processes, after `delay(call)` ms; the first
     * call that holds `k` leaves it unprocessed when `unprocessedFirst` is set.
     * @param {{ unprocessedFirst: boolean, delay: (call: number) => number }} behaviour
     */
    function tableClient({ unprocessedFirst, delay }) {
      /** @type {Map<string, number>} */
      const table = new Map();
      let calls = 0;
      let heldBack = false;
      return {
        table,
        /** @param {string} body */
        async batchWrite(body) {
          const call = ++calls;
          const requests = JSON.parse(body).RequestItems.t;
          await new Promise((resolve) => setTimeout(resolve, delay(call)));
          const unprocessed = [];
          for (const request of requests) {
            const item = request.PutRequest.Item;
            if (unprocessedFirst && !heldBack && item.id.S === 'k') {
              heldBack = true;
              unprocessed.push(request);
            } else table.set(item.id.S, Number(item.line.N));
          }
          return { UnprocessedItems: unprocessed.length > 0 ? { t: unprocessed } : {} };
        },
      };
    }

    /** Key k on lines 2 and 30, in two batches that can be in flight at once. @param {ReturnType<typeof tableClient>} client */
    async function writeTwoVersions(client) {
      const { writer } = writerFor(/** @type {any} */ (client), { concurrency: 8 });
      for (let line = 2; line <= 60; line++) {
        const id = line === 2 || line === 30 ? 'k' : `r${line}`;
        const wait = writer.add({ json: JSON.stringify({ id: { S: id }, line: { N: String(line) } }), keyId: id, line, fields: [id] });
        if (wait) await wait;
      }
      await writer.flush();
      return client.table;
    }

    it('when the older row comes back unprocessed while the newer one is written', async () => {
      const table = await writeTwoVersions(tableClient({ unprocessedFirst: true, delay: () => 1 }));
      expect(table.get('k')).toBe(30);
    });

    it('when the call with the older row is answered after the call with the newer one', async () => {
      const table = await writeTwoVersions(tableClient({ unprocessedFirst: false, delay: (call) => (call === 1 ? 50 : 1) }));
      expect(table.get('k')).toBe(30);
    });
  });
});


describe('batch writer, writes given up (a segment out of time)', () => {
  /** A client whose calls after the first `answered` never answer. @param {number} answered @param {Error} [fatal]  the first call fails with it */
  function stallingClient(answered, fatal) {
    let calls = 0;
    return {
      /** @param {string} body */
      async batchWrite(body) {
        calls++;
        if (fatal !== undefined && calls === 1) throw fatal;
        if (calls > answered) return new Promise(() => {});
        const requests = JSON.parse(body).RequestItems.t;
        return { UnprocessedItems: {}, ConsumedCapacity: [{ TableName: 't', CapacityUnits: requests.length }] };
      },
    };
  }

  it('counts nothing more, lets the reader go, and hands on exactly the rows not written, in file order', async () => {
    const { writer, stats, rejections } = writerFor(/** @type {any} */ (stallingClient(3)), { concurrency: 2 });
    /** @type {Promise<void> | undefined} */
    let waiting;
    let added = 0;
    // Rows of 40 keys, each key again and again: 3 calls are answered, then the window fills and the reader waits.
    while (added < 400 && waiting === undefined) {
      const id = `k${added % 40}`;
      const wait = writer.add({ json: JSON.stringify({ id: { S: id } }), keyId: id, line: added + 2, fields: [id] });
      added++;
      if (wait !== undefined && !(await Promise.race([wait.then(() => true), new Promise((resolve) => setTimeout(resolve, 50, false))]))) waiting = wait;
    }
    expect(waiting).toBeDefined();
    writer.abandon();
    await waiting;
    // Rows added after the writes were given up are only kept.
    expect(writer.add({ json: '{"id":{"S":"late"}}', keyId: 'late', line: 10_000, fields: ['late'] })).toBeUndefined();
    await writer.flush();
    const left = writer.leftOver();
    expect(left.map((entry) => entry.line)).toEqual([...left.map((entry) => entry.line)].sort((a, b) => a - b));
    expect(left.at(-1)?.line).toBe(10_000);
    expect(stats.written).toBe(75);
    expect(rejections).toEqual([]);
    expect(stats.written + stats.duplicatesCollapsed + left.length).toBe(added + 1);
  });

  it('still fails on a fatal error that came before the writes were given up', async () => {
    const missing = Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
    const { writer } = writerFor(/** @type {any} */ (stallingClient(0, missing)), { concurrency: 2 });
    for (let i = 0; i < 50; i++) writer.add({ json: JSON.stringify({ id: { S: `k${i}` } }), keyId: `k${i}`, line: i + 2, fields: [`k${i}`] })?.catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    writer.abandon();
    await expect(writer.flush()).rejects.toThrow('Requested resource not found');
  });
});

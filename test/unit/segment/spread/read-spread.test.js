/**
 * readSpread's start: the ranges find where they start (past the run of the key the range before them
 * reads) at once, not one after another; and when one of them cannot be read, every reader opened is
 * closed, those opened after the failure too, before the error is thrown.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSpread } from '../../../../src/segment/spread/read-spread.js';
import { createRecordParser } from '../../../../src/records/csv/csv-records.js';

const CSV = 'a,1\na,2\nb,1\nb,2\nc,1\nc,2\nd,1\nd,2\n';
/** Byte where each line starts. */
const at = (/** @type {number} */ line) => CSV.split('\n').slice(0, line).join('\n').length + (line > 0 ? 1 : 0);

/** Cut in three mid-run of a key (between b,1 and b,2, and between c,1 and c,2), as a planner's cuts may fall. */
const rangesOf = () => [
  { byte: 0, end: at(3), stop: undefined, line: 0 },
  { byte: at(3), end: at(5), stop: undefined, line: 3 },
  { byte: at(5), end: CSV.length, stop: undefined, line: 5 },
];

/**
 * @param {{ delays: number[], failAt?: number }} how  ms each range's open takes; the range whose open fails
 */
function harness({ delays, failAt }) {
  /** @type {Array<{ range: number, event: string }>} */
  const events = [];
  const note = (/** @type {number} */ range, /** @type {string} */ event) => events.push({ range, event });
  /** @type {string[]} */
  const passed = [];
  const options = {
    ranges: rangesOf(),
    end: CSV.length,
    /** @param {{ byte: number, line: number }} range */
    async open(range) {
      const j = rangesOf().findIndex((r) => r.byte === range.byte);
      note(j, 'open');
      await new Promise((resolve) => setTimeout(resolve, delays[j]));
      if (j === failAt) throw new Error(`range ${j} cannot be read`);
      const records = createRecordParser({ delimiter: ',', lineOffset: range.line, fieldCount: 2, atFileStart: range.byte === 0 });
      const body = Readable.from([Buffer.from(CSV.slice(range.byte))]);
      note(j, 'opened');
      return { records, body, close: () => note(j, 'closed') };
    },
    /** @param {string[]} fields @param {number} line */
    buildItem: (fields, line) => ({ json: JSON.stringify(fields), keyId: fields[0], op: /** @type {const} */ ('put'), line, bytes: undefined }),
    compare: (/** @type {string} */ a, /** @type {string} */ b) => (a < b ? -1 : a > b ? 1 : 0),
    /** @param {{ fields: string[] }} entry */
    pass: (entry) => {
      passed.push(entry.fields.join(','));
      return undefined;
    },
    report: { stats: /** @type {any} */ ({ rowsRead: 0, byte: 0 }), rejectRow: () => {}, rejectsBacklog: () => undefined },
    firstByte: 0,
    stopBy: Infinity,
  };
  return { options, events, passed };
}

describe('readSpread', () => {
  it('finds the ranges\' starts at once, and reads each row once, runs of one key whole', async () => {
    const { options, events, passed } = harness({ delays: [0, 20, 20] });
    await readSpread(options);
    // Ranges 1 and 2 are both opening before either is open: one after another, range 2 would open first.
    expect(events.slice(0, 2).map((e) => `${e.event} ${e.range}`).sort()).toEqual(['open 1', 'open 2']);
    expect([...passed].sort()).toEqual(CSV.trim().split('\n'));
    // Each key's rows in file order, whatever the interleaving.
    for (const key of ['a', 'b', 'c', 'd']) expect(passed.filter((row) => row.startsWith(key))).toEqual([`${key},1`, `${key},2`]);
    expect(options.ranges.map((range) => range.byte)).toEqual(options.ranges.map((range) => range.stop));
  });

  it('closes every reader opened, one opened after another failed too, then throws that failure', async () => {
    const { options, events, passed } = harness({ delays: [0, 10, 80], failAt: 1 });
    await expect(readSpread(options)).rejects.toThrow('range 1 cannot be read');
    // Range 2 was still opening when range 1 failed: it is closed as well, once it opened.
    const opened = events.filter((e) => e.event === 'opened').map((e) => e.range);
    const closed = events.filter((e) => e.event === 'closed').map((e) => e.range);
    expect(opened).toContain(2);
    expect(closed.sort()).toEqual(opened.sort());
    expect(passed).toEqual([]);
  });

  it('waits on the writer\'s settles, not on a clock, while every range has its share on the way; still stops on time', async () => {
    // 120 keys in order, cut in two ranges; nothing settles until the test says so.
    const csv = Array.from({ length: 120 }, (_, i) => `k${String(i).padStart(3, '0')},1\n`).join('');
    const half = csv.indexOf('k060');
    /** @type {Set<unknown>} */
    const held = new Set();
    let looks = 0;
    /** @type {Array<() => void>} */
    let waiters = [];
    let stop = false;
    const reading = readSpread({
      ranges: [
        { byte: 0, end: half, stop: undefined, line: 0 },
        { byte: half, end: csv.length, stop: undefined, line: 60 },
      ],
      end: csv.length,
      async open(range) {
        const records = createRecordParser({ delimiter: ',', lineOffset: range.line, fieldCount: 2, atFileStart: range.byte === 0 });
        return { records, body: Readable.from([Buffer.from(csv.slice(range.byte))]), close: () => {} };
      },
      buildItem: (fields, line) => ({ json: JSON.stringify(fields), keyId: fields[0], op: 'put', line, bytes: undefined }),
      compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
      pass: (entry) => {
        held.add(entry);
        return undefined;
      },
      pending: (entry) => {
        looks++;
        return held.has(entry);
      },
      settled: () => new Promise((resolve) => waiters.push(() => resolve(undefined))),
      rowsInFlight: 50,
      report: { stats: /** @type {any} */ ({ rowsRead: 0, byte: 0 }), rejectRow: () => {}, rejectsBacklog: () => undefined },
      firstByte: 0,
      stopBy: Infinity,
      stopNow: () => stop,
    });
    const settle = (/** @type {number} */ rows) => {
      [...held].slice(0, rows).forEach((entry) => held.delete(entry));
      const woken = waiters;
      waiters = [];
      woken.forEach((wake) => wake());
    };
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Each range's share (about 25 rows, a call's) is on its way: the reader waits (again after each 100 ms clock).
    const shares = held.size;
    expect(shares).toBeGreaterThanOrEqual(50);
    expect(shares).toBeLessThanOrEqual(52);
    expect(waiters.length).toBeGreaterThanOrEqual(1);
    // Polling each millisecond looked at the rows about 50 times in 50 ms; waiting, once a clock (a late timer on a busy machine allowed for).
    const looksWaiting = looks;
    const since = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(looks - looksWaiting).toBeLessThanOrEqual((2 + Math.ceil((performance.now() - since) / 100)) * shares);
    // A settle lets the reader go on at once, as far as the room made.
    settle(25);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(held.size).toBe(shares);
    expect(waiters.length).toBeGreaterThanOrEqual(1);
    // Nothing settles any more, and the segment is asked to stop: it does, on the clock.
    const asked = performance.now();
    stop = true;
    await expect(reading).resolves.toEqual({ stoppedEarly: true });
    expect(performance.now() - asked).toBeLessThan(1000);
  });
});

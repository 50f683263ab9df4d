/**
 * The shard planner's one promise: parsing each shard on its own, from its start byte with its start
 * line and the header, gives exactly the records (and the malformed-record skips) of parsing the whole
 * file, at the same lines. Checked on every fixture and on a generated file full of quoted line breaks,
 * escaped and stray quotes and mixed line ends, fed to the scanner in chunks of many sizes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRecordParser } from '../../../src/records/csv/csv-records.js';
import { createRecordScanner } from '../../../src/records/csv/record-scanner.js';
import { planLineShards, planShards as planOrPause, unpaused } from '../../../src/plan/shard-plan.js';

/** The planner asked without pause: a whole plan. @param {Parameters<typeof planOrPause>} args */
const planShards = async (...args) => unpaused(await planOrPause(...args));

/** @type {Record<string, { options?: { delimiter?: string } }>} */
const corpus = JSON.parse(readFileSync(new URL('../../fixtures/expected.json', import.meta.url), 'utf8'));

/**
 * Parses bytes as csv-records.js does; returns the outputs as comparable strings.
 * @param {Buffer} bytes @param {string} delimiter @param {number} lineOffset
 * @param {string[] | undefined} header  given when `bytes` start after it
 * @param {import('../../../src/records/csv/text-encoding.js').Encoding} [encoding]  the planner's, for a shard
 */
async function parseAll(bytes, delimiter, lineOffset, header, encoding) {
  // A shard is read mid-file, in the encoding the planner decided.
  const { input, parser, toRow } = createRecordParser({ delimiter, lineOffset, fieldCount: header?.length, ...(header === undefined ? {} : { atFileStart: false, encoding }) });
  input.end(bytes);
  /** @type {string[]} */
  const out = [];
  let headerSeen = header !== undefined;
  for await (const output of parser) {
    const row = toRow(output);
    if (row.fields !== undefined && !headerSeen) {
      headerSeen = true;
      continue;
    }
    out.push(row.fields === undefined ? `${row.line} skip ${row.reason}` : `${row.line} ${JSON.stringify(row.fields)}`);
  }
  return out;
}

/** @param {Buffer} bytes @param {number} size */
function* chunksOf(bytes, size) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** @param {Buffer} bytes @param {number} chunkSize */
async function* body(bytes, chunkSize) {
  yield* chunksOf(bytes, chunkSize);
}

/**
 * @param {Buffer} bytes @param {string} delimiter @param {number} shards @param {number} chunkSize
 */
async function expectShardsParseAsWhole(bytes, delimiter, shards, chunkSize) {
  const plan = await planShards(body(bytes, chunkSize), { bytes: bytes.length, shards, delimiter, where: 'test' });
  const whole = await parseAll(bytes, delimiter, 0, undefined);
  const pieces = [];
  for (const range of plan.shards) pieces.push(...(await parseAll(bytes.subarray(range.start, range.end), delimiter, range.line, plan.header, plan.encoding)));
  expect(pieces).toEqual(whole);
  // The ranges tile the file after the header.
  for (let i = 1; i < plan.shards.length; i++) expect(plan.shards[i].start).toBe(plan.shards[i - 1].end);
  if (plan.shards.length > 0) expect(plan.shards.at(-1)?.end).toBe(bytes.length);
  return plan;
}

/** A file with every kind of record boundary and non-boundary, seeded. @param {number} rows */
function trickyCsv(rows) {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const ends = ['\n', '\r\n', '\r'];
  let csv = 'id,name,note\n';
  for (let i = 0; i < rows; i++) {
    const end = ends[Math.floor(random() * 3)];
    const kind = Math.floor(random() * 8);
    if (kind === 0) csv += `r${i},"two${end}lines","and ""quotes"""${end}`;
    else if (kind === 1) csv += `r${i},5'11",stray " quote${end}`;
    else if (kind === 2) csv += `r${i},"Ann"x,after close${end}`;
    else if (kind === 3) csv += `r${i},short${end}`;
    else if (kind === 4) csv += `${end}`;
    else if (kind === 5) csv += `r${i},"""","${end}${end}"${end}`;
    else csv += `r${i},name ${i},plain${end}`;
  }
  return Buffer.from(csv);
}

describe('record scanner', () => {
  it('finds the boundaries csv-parse finds, whatever the chunk size', () => {
    const bytes = Buffer.from('a,b\n"x\r\ny",1\r\n"q""",2\rlast,3');
    for (const size of [1, 2, 3, 5, 64]) {
      /** @type {Array<{ byte: number, lines: number }>} */
      const found = [];
      const scanner = createRecordScanner({ delimiter: ',', onBoundary: (b) => void found.push(b) });
      for (const chunk of chunksOf(bytes, size)) scanner.scan(chunk);
      expect(scanner.end()).toEqual({ bytes: bytes.length, lines: 4 });
      expect(found).toEqual([
        { byte: 4, lines: 1 },
        { byte: 14, lines: 3 },
        { byte: 22, lines: 4 },
      ]);
    }
  });
});

describe('shard planner', () => {
  it.each(Object.entries(corpus))('%s: shards parse as the whole file', async (name, expected) => {
    const bytes = readFileSync(new URL(`../../fixtures/${name}`, import.meta.url));
    const delimiter = expected.options?.delimiter === '\\t' ? '\t' : (expected.options?.delimiter ?? ',');
    if (bytes.length === 0) {
      await expect(planShards(body(bytes, 7), { bytes: 0, shards: 3, delimiter, where: 's3://b/empty.csv' })).rejects.toThrow('s3://b/empty.csv is empty');
      return;
    }
    for (const shards of [2, 3, 5]) await expectShardsParseAsWhole(bytes, delimiter, shards, 7);
  });

  it('cuts a file of quoted line breaks, escaped and stray quotes and mixed line ends into even shards', async () => {
    const bytes = trickyCsv(5_000);
    for (const chunkSize of [1, 13, 4096]) {
      const plan = await expectShardsParseAsWhole(bytes, ',', 8, chunkSize);
      expect(plan.shards.length).toBe(8);
      const sizes = plan.shards.map((range) => range.end - range.start);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(200);
    }
  });

  it('pauses after any chunk and goes on from its progress to the same plan, read no further than its last cut (issue 47)', async () => {
    const bytes = trickyCsv(3_000);
    for (const [chunkSize, shards] of [[13, 8], [4096, 3], [700, 40]]) {
      const whole = await planShards(body(bytes, chunkSize), { bytes: bytes.length, shards, delimiter: ',', where: 'test' });
      /** @type {import('../../../src/plan/shard-plan.js').PlanProgress | undefined} */
      let resume;
      let invocations = 0;
      let lastByteRead = 0;
      for (;;) {
        invocations++;
        const from = resume?.byte ?? 0;
        const counted = (async function* () {
          let offset = from;
          for (const chunk of chunksOf(bytes.subarray(from), chunkSize)) {
            offset += chunk.length;
            lastByteRead = Math.max(lastByteRead, offset);
            yield chunk;
          }
        })();
        const result = await planOrPause(counted, { bytes: bytes.length, shards, delimiter: ',', where: 'test', resume, pause: () => true });
        if (!('paused' in result)) {
          expect(result).toEqual(whole);
          break;
        }
        expect(result.paused.byte).toBeGreaterThan(from);
        resume = /** @type {any} */ (JSON.parse(JSON.stringify(result.paused)));
      }
      // A pause after every chunk: about one invocation a chunk up to the last cut, and not past it.
      expect(invocations).toBeGreaterThan(2);
      expect(lastByteRead).toBeLessThan(/** @type {number} */ (whole.shards.at(-1)?.start) + 2 * chunkSize + 1_000);
    }
  });

  it('JSON Lines: pauses and goes on to the same cuts', async () => {
    const lines = Buffer.from(Array.from({ length: 2_000 }, (_, i) => `{"id":"k${i}","n":${i}}\n`).join(''));
    const whole = unpaused(await planLineShards(body(lines, 100), { bytes: lines.length, shards: 7, where: 'test' }));
    /** @type {any} */
    let resume;
    for (;;) {
      const result = await planLineShards(body(lines.subarray(resume?.byte ?? 0), 100), { bytes: lines.length, shards: 7, where: 'test', resume, pause: () => true });
      if (!('paused' in result)) {
        expect(result).toEqual(whole);
        break;
      }
      resume = JSON.parse(JSON.stringify(result.paused));
    }
    expect(whole.shards).toHaveLength(7);
  });

  it('gives fewer shards than asked when the file has fewer records, and says so', async () => {
    const plan = await planShards(body(Buffer.from('id,n\n1,a\n2,b\n'), 4), { bytes: 13, shards: 8, delimiter: ',', where: 'test' });
    expect(plan.header).toEqual(['id', 'n']);
    expect(plan.shards).toEqual([
      { index: 0, start: 5, end: 9, line: 1 },
      { index: 1, start: 9, end: 13, line: 2 },
    ]);
    expect(plan.note).toBe('asked for 8 shards; the file has record boundaries for 2');
  });

  it('reads the header past a BOM and empty lines', async () => {
    const bytes = Buffer.from('\uFEFF\n\r\n"i""d",name\n1,a\n');
    const withBomThenQuote = Buffer.from('\uFEFF"i""d",name\n1,"a\nb"\n2,c\n');
    for (const size of [1, 2, 4]) {
      const quoted = await planShards(body(withBomThenQuote, size), { bytes: withBomThenQuote.length, shards: 2, delimiter: ',', where: 'test' });
      expect(quoted.header).toEqual(['i"d', 'name']);
      expect(quoted.shards.map((range) => range.line)).toEqual([1, 3]);
    }
    const plan = await planShards(body(bytes, 3), { bytes: bytes.length, shards: 2, delimiter: ',', where: 'test' });
    expect(plan.header).toEqual(['i"d', 'name']);
    expect(plan.shards).toEqual([{ index: 0, start: bytes.length - 4, end: bytes.length, line: 3 }]);
  });

  it('refuses a header an import would refuse, with the same message: text not valid in its encoding, a bad quote', async () => {
    const utf16 = (/** @type {string} */ text) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    /** @type {Array<[Buffer, RegExp]>} */
    const cases = [
      [Buffer.concat([Buffer.from('id,n'), Buffer.from([0xfc]), Buffer.from('m\n1,a\n2,b\n')]), /the header line cannot be read: line 1: the record has bytes that are not UTF-8/],
      [utf16('id,n\ud800m\n1,a\n2,b\n'), /the header line cannot be read: line 1: the record has a UTF-16 code unit without its pair/],
      [Buffer.from('id,"n"m\n1,a\n2,b\n'), /the header line cannot be read: line 1: a quoted field is closed by a quote followed by other text/],
    ];
    for (const [bytes, message] of cases) {
      const failure = await planShards(body(bytes, 3), { bytes: bytes.length, shards: 2, delimiter: ',', where: 'test' }).catch((error) => error);
      expect(failure).toMatchObject({ code: 'HEADER_INVALID', message: expect.stringMatching(message) });
      // The whole-file reader says the same of its first record.
      const records = createRecordParser({ delimiter: ',' });
      records.input.end(bytes);
      for await (const output of records.parser) {
        const first = records.toRow(output);
        expect(first.fields === undefined && `the header line cannot be read: ${first.message}`).toBe(failure.message);
        break;
      }
    }
  });

  it('decides the encoding once, from the file\'s start, for every shard: UTF-16LE by its BOM, and refuses UTF-32LE', async () => {
    const text = `id,name\r\n${Array.from({ length: 40 }, (_, i) => `${i},"\u2c22 ${i}, x"`).join('\r\n')}\r\n`;
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const plan = await expectShardsParseAsWhole(bytes, ',', 4, 5);
    expect(plan).toMatchObject({ encoding: 'utf-16le', header: ['id', 'name'] });
    expect(plan.shards.every((range) => range.start % 2 === 0)).toBe(true);
    const utf32 = Buffer.from([0xff, 0xfe, 0, 0, 0x69, 0, 0, 0]);
    await expect(planShards(body(utf32, 1), { bytes: utf32.length, shards: 2, delimiter: ',', where: 'test' })).rejects.toThrow(/UTF-32LE .*save it as UTF-8 or UTF-16LE/);
  });
});

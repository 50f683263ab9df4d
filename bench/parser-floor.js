#!/usr/bin/env node
/**
 * Parsing alone, over generated rows held in memory, no S3, no calls: csv-parse's stream parser with the
 * importer's options (src/records/csv/csv-options.js), or the importer's own record reader
 * (src/records/csv/csv-records.js: the record splitter, then csv-parse a batch at a time). Their rows/s
 * bound what one thread that parses can import. One reader a process: measured second in one process,
 * either ran 15-20% slower than alone (the first one's heap and compiled code left behind).
 *   node bench/parser-floor.js [rows] [csv-parse | reader]   prints `{"secondsPer100k": ..., "rowsPerSecond": ...}`
 */
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse';
import { csvChunks } from '../data-generator/people.js';
import { csvReadingOptions } from '../src/records/csv/csv-options.js';
import { createRecordParser } from '../src/records/csv/csv-records.js';

/** @typedef {{ secondsPer100k: number, rowsPerSecond: number }} ParseRate */

/** csv-parse's stream parser, as a peer that reads CSV with it would. @param {Buffer[]} chunks */
async function csvParseRecords(chunks) {
  const parser = parse({ ...csvReadingOptions(','), relax_column_count: true });
  Readable.from(chunks).pipe(parser);
  let records = 0;
  for await (const fields of parser) if (fields !== undefined) records++;
  return records;
}

/** The importer's record reader. @param {Buffer[]} chunks */
async function readerRecords(chunks) {
  const { input, parser, toRow } = createRecordParser({ delimiter: ',' });
  Readable.from(chunks).pipe(input);
  let records = 0;
  for await (const output of parser) if (toRow(output).fields !== undefined) records++;
  return records;
}

/**
 * @param {Buffer[]} chunks @param {number} rows @param {number} runs @param {(chunks: Buffer[]) => Promise<number>} read
 * @returns {Promise<ParseRate>}
 */
async function rateOf(chunks, rows, runs, read) {
  const seconds = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const records = await read(chunks);
    if (records !== rows + 1) throw new Error(`parsed ${records} records of ${rows + 1}`);
    seconds.push((performance.now() - started) / 1000);
  }
  const median = seconds.sort((a, b) => a - b)[Math.floor(runs / 2)];
  return { secondsPer100k: (median / rows) * 100_000, rowsPerSecond: rows / median };
}

/**
 * @param {number} rows @param {'csv-parse' | 'reader'} reader @param {number} [runs] median of this many runs
 * @returns {Promise<ParseRate>}
 */
export async function parserFloor(rows, reader, runs = 3) {
  const chunks = [...csvChunks({ rows, seed: 11, sorted: false })];
  return rateOf(chunks, rows, runs, reader === 'reader' ? readerRecords : csvParseRecords);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const reader = process.argv[3] ?? 'csv-parse';
  if (reader !== 'csv-parse' && reader !== 'reader') throw new Error(`reader "${reader}": csv-parse or reader`);
  process.stdout.write(`${JSON.stringify(await parserFloor(Number(process.argv[2] ?? 300_000), reader))}\n`);
}

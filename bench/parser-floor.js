#!/usr/bin/env node
/**
 * The parser alone: the record splitter and csv-parse with the importer's options (src/records/csv/csv-records.js) over generated rows held
 * in memory, no S3, no calls. Its rows/s bounds what one thread that parses can import.
 *   node bench/parser-floor.js [rows]   prints `{"secondsPer100k": ..., "rowsPerSecond": ...}`
 */
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { csvChunks } from '../data-generator/generate.js';
import { createRecordParser } from '../src/records/csv/csv-records.js';

/** @param {number} rows @param {number} [runs] median of this many runs */
export async function parserFloor(rows, runs = 3) {
  const chunks = [...csvChunks({ rows, seed: 11, sorted: false })];
  const seconds = [];
  for (let run = 0; run < runs; run++) {
    const { input, parser, toRow } = createRecordParser({ delimiter: ',' });
    const started = performance.now();
    let records = 0;
    Readable.from(chunks).pipe(input);
    for await (const output of parser) if (toRow(output).fields !== undefined) records++;
    if (records !== rows + 1) throw new Error(`parsed ${records} records of ${rows + 1}`);
    seconds.push((performance.now() - started) / 1000);
  }
  const median = seconds.sort((a, b) => a - b)[Math.floor(runs / 2)];
  return { secondsPer100k: (median / rows) * 100_000, rowsPerSecond: rows / median };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await parserFloor(Number(process.argv[2] ?? 300_000)))}\n`);
}

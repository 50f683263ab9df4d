#!/usr/bin/env node
/**
 * `npm run report -- <log file> [--out chart.svg]`: the throughput chart of any import, from its log:
 * a file of the importer's JSON log lines, as `npm start` prints them or as exported from CloudWatch
 * Logs (text before the JSON object on a line, such as a timestamp and request id, is skipped).
 * One line per job and segment in the chart; a summary of each job on stdout.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { renderChart } from './chart.js';

/**
 * The throughput points and summaries in a log's text.
 * @param {string} text
 */
export function readLog(text) {
  /** @type {Array<{ t: number, rowsPerSecond: number, window: number, throttledItems: number, run: string }>} */
  const points = [];
  /** @type {Array<Record<string, any>>} */
  const summaries = [];
  for (const line of text.split('\n')) {
    const start = line.indexOf('{');
    if (start === -1) continue;
    let entry;
    try {
      entry = JSON.parse(line.slice(start));
    } catch {
      continue;
    }
    if (entry.message === 'summary') summaries.push(entry);
    if (entry.message !== 'throughput' || typeof entry.elapsedSeconds !== 'number') continue;
    const run = `${entry.jobId ?? 'import'}${entry.segment === undefined ? '' : ` #${entry.segment}`}`;
    points.push({ t: entry.elapsedSeconds, rowsPerSecond: entry.rowsPerSecond ?? 0, window: entry.window ?? 0, throttledItems: entry.throttledItems ?? 0, run });
  }
  return { points, summaries };
}

async function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { out: { type: 'string' } } });
  const file = positionals[0];
  if (file === undefined) throw new Error('usage: npm run report -- <log file> [--out chart.svg]');
  const { points, summaries } = readLog(readFileSync(file, 'utf8'));
  if (points.length === 0) throw new Error(`${file} has no throughput lines (JSON lines with "message":"throughput"); is it the importer's log?`);
  const out = values.out ?? `${file}.svg`;
  writeFileSync(out, await renderChart(points, `Import throughput: ${file}`));
  for (const summary of summaries) {
    process.stdout.write(`${summary.jobId ?? ''} ${summary.key ?? ''}: ${summary.rowsRead} rows read, ${summary.written} written, ${summary.rejected} rejected, ${summary.rowsPerSecond} rows/s over ${summary.seconds} s${summary.segments > 1 ? ` in ${summary.segments} segments` : ''}\n`);
  }
  process.stdout.write(`chart: ${out} (${points.length} points)\n`);
}

if (process.argv[1]?.endsWith('report.js')) {
  main().catch((error) => {
    process.stderr.write(`report failed: ${error.message}\n`);
    process.exit(1);
  });
}

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { renderChart } from './chart.js';
import { readLog } from './report.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (/** @type {Record<string, unknown>} */ fields) => JSON.stringify({ level: 'INFO', message: 'throughput', service: 'csv-import', jobId: 'job-1', segment: 1, ...fields });
const log = [
  // As exported from CloudWatch Logs: a timestamp and request id before the JSON.
  `2026-11-22T10:00:01.000Z\tabc-123\tINFO\t${line({ elapsedSeconds: 1, rowsPerSecond: 900, window: 32, throttledItems: 0 })}`,
  line({ elapsedSeconds: 2, rowsPerSecond: 1200, window: 16, throttledItems: 40 }),
  'START RequestId: abc-123 Version: $LATEST',
  '{"not json',
  JSON.stringify({ level: 'INFO', message: 'summary', jobId: 'job-1', key: 'imports/a.csv', rowsRead: 2100, written: 2100, rejected: 0, rowsPerSecond: 1050, seconds: 2, segments: 1 }),
].join('\n');

describe('npm run report', () => {
  it('reads the throughput lines of a log, whatever comes before the JSON', () => {
    const { points, summaries } = readLog(log);
    expect(points).toEqual([
      { t: 1, rowsPerSecond: 900, window: 32, throttledItems: 0, run: 'job-1 #1' },
      { t: 2, rowsPerSecond: 1200, window: 16, throttledItems: 40, run: 'job-1 #1' },
    ]);
    expect(summaries.map((s) => s.written)).toEqual([2100]);
  });

  it('draws the chart as SVG with vega-lite', async () => {
    const svg = await renderChart(readLog(log).points, 'test chart');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('rows written per second');
    expect(svg).toContain('test chart');
  });

  it('writes the chart beside the log and prints each job', async () => {
    const file = path.join(dir, 'import.log');
    writeFileSync(file, log);
    const { stdout } = await promisify(execFile)(process.execPath, ['bench/report.js', file]);
    expect(stdout).toMatch(/job-1 imports\/a.csv: 2100 rows read, 2100 written, 0 rejected, 1050 rows\/s over 2 s/);
    expect(readFileSync(`${file}.svg`, 'utf8')).toMatch(/^<svg/);
    await expect(promisify(execFile)(process.execPath, ['bench/report.js', path.join(dir, 'missing.log')])).rejects.toThrow(/ENOENT/);
  });
});

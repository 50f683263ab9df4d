/**
 * An import holds nothing per row it has finished with: its live heap (after a full GC) stays flat
 * however many rows it has read. A leak of even a key string per row would grow it by megabytes here.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { startCapacityModel } from '../../bench/capacity-model.js';
import { clientsFor } from '../../src/clients.js';
import { resolveConfig } from '../../src/config/index.js';
import { runImport } from '../../src/segment/import-segment.js';
import { generatedCsv } from '../support/imports.js';
import { TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';

const { env, s3 } = useLocalServers();
setFlagsFromString('--expose-gc');
/** @type {() => void} */
const gc = runInNewContext('gc');

const onCleanup = useCleanups(env);

describe('memory', () => {
  it('an import\'s live heap does not grow with the rows it has read', async () => {
    const rows = 200_000;
    const sink = await startCapacityModel({});
    onCleanup(() => sink.stop());
    await upload(s3, 'memory/input.csv', generatedCsv(rows, 51));

    const config = resolveConfig({ bucket: TEST_BUCKET, key: 'memory/input.csv', table: 'memory-table', logIntervalMs: 250 }, { ...process.env, DYNAMODB_ENDPOINT: sink.endpoint });
    const clients = clientsFor(config);
    onCleanup(() => {
      clients.batchWrite.destroy();
    });
    /** Live heap in MB, and rows read, at each throughput line. @type {Array<{ rowsRead: number, liveMB: number }>} */
    const samples = [];
    /** @param {string} message @param {Record<string, any>} fields */
    const info = (message, fields) => {
      if (message !== 'throughput') return;
      gc();
      samples.push({ rowsRead: fields.rowsRead, liveMB: process.memoryUsage().heapUsed / 2 ** 20 });
    };
    const outcome = await runImport(config, { clients, logger: { info, warn: () => {}, error: () => {} } });

    expect(outcome.done && outcome.summary).toMatchObject({ rowsRead: rows, written: rows, balanced: true });
    // From a sample early in the import (code compiled, sockets open) to every later one.
    const during = samples.filter((sample) => sample.rowsRead < rows);
    const early = during.find((sample) => sample.rowsRead >= rows / 10);
    expect(early).toBeDefined();
    const later = during.filter((sample) => sample.rowsRead >= rows / 2);
    expect(later.length).toBeGreaterThanOrEqual(2);
    const growthMB = Math.max(...later.map((sample) => sample.liveMB)) - /** @type {{ liveMB: number }} */ (early).liveMB;
    console.info(JSON.stringify({ figures: 'live heap during an import', samples: samples.map((sample) => [sample.rowsRead, Math.round(sample.liveMB * 10) / 10]) }));
    // 3 MB over the 100,000 or more rows between them: less than 30 bytes a row.
    expect(growthMB).toBeLessThan(3);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { runningInLambda } from '../../../src/config/index.js';
import { createMetricsPublisher } from '../../../src/observe/metrics.js';

afterEach(() => vi.restoreAllMocks());

describe('CloudWatch metrics (embedded metric format)', () => {
  it('publishes each interval as 1-second metrics with the table as dimension', async () => {
    /** @type {string[]} */
    const lines = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const publish = await createMetricsPublisher('people', true);
    publish?.({ rowsPerSecond: 12_000, wcuPerSecond: 12_500, throttledItems: 40, window: 24 });
    vi.restoreAllMocks();

    const emf = lines.map((line) => JSON.parse(line)).find((entry) => entry._aws !== undefined);
    expect(emf).toMatchObject({ table: 'people', RowsWrittenPerSecond: 12_000, ConsumedWcuPerSecond: 12_500, ThrottledItems: 40, Window: 24 });
    const directive = emf._aws.CloudWatchMetrics[0];
    expect(directive.Namespace).toBe('CsvImport');
    expect(directive.Dimensions[0]).toContain('table');
    expect(directive.Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'RowsWrittenPerSecond', Unit: 'Count/Second', StorageResolution: 1 },
        { Name: 'Window', Unit: 'Count', StorageResolution: 1 },
      ]),
    );
  });

  it('is off outside Lambda and under sls invoke local', async () => {
    expect(await createMetricsPublisher('people', false)).toBeUndefined();
    const saved = { ...process.env };
    try {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      expect(runningInLambda()).toBe(false);
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'csv-import-dev-import';
      process.env.IS_LOCAL = 'true';
      expect(runningInLambda()).toBe(false);
      delete process.env.IS_LOCAL;
      expect(runningInLambda()).toBe(true);
    } finally {
      process.env = saved;
    }
  });
});

/**
 * What the table says changes how an import writes: the pace starts at a provisioned table's WCU; a table
 * that holds items and has no point-in-time recovery gets a warning (or, with requirePitr, a refusal);
 * throttled calls are counted by their ThrottlingReasons, and a hot key range brings advice, not a slower
 * import. On dynalite, behind the fault proxy where it lacks an operation or a behaviour.
 */
import { CreateTableCommand, PutItemCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.js';
import { runJob } from '../../src/handler.js';
import { generatedCsv, summaryOf } from '../support/imports.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { scanTable } from '../oracle/differential.js';
import { createTable, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';

/** A logger that keeps every line. */
function recordingLog() {
  /** @type {Array<{ level: string, message: string, fields: Record<string, any> }>} */
  const lines = [];
  const at = (/** @type {string} */ level) => (/** @type {string} */ message, /** @type {Record<string, any>} */ fields) => void lines.push({ level, message, fields });
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('a table-aware import', () => {
  const local = useLocalServers();
  const cleanup = useCleanups(local.env);

  /** @param {Record<string, unknown>} payload @param {ReturnType<typeof recordingLog>['log']} log */
  const run = async (payload, log) => summaryOf(await runJob(payload, resolveConfig(payload, process.env), undefined, { log }));

  it('warns when a table that holds items has no point-in-time recovery, refuses with requirePitr, and is quiet when it has it', async () => {
    await upload(local.s3, 'aware/people.csv', generatedCsv(300, 5));
    const table = await createTable(local.dynamodb);
    await local.dynamodb.send(new PutItemCommand({ TableName: table, Item: { id: { S: 'already-here' } } }));
    const payload = { bucket: TEST_BUCKET, key: 'aware/people.csv', table };

    for (const [pointInTimeRecovery, requirePitr, outcome] of /** @type {const} */ ([['DISABLED', false, 'warned'], ['DISABLED', true, 'refused'], ['ENABLED', true, 'quiet']])) {
      // DescribeTable's ItemCount as DynamoDB would say it (dynalite's is always 0; docs/local-servers.md).
      const itemCount = (await scanTable(local.env, table)).length;
      const proxy = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT, pointInTimeRecovery, itemCount });
      cleanup(() => proxy.stop());
      process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
      const { lines, log } = recordingLog();
      const result = await run({ ...payload, requirePitr }, log).catch((/** @type {Error} */ error) => error);
      const warning = lines.find((line) => line.message === 'no point-in-time recovery');
      if (outcome === 'refused') {
        expect(result).toBeInstanceOf(Error);
        expect(/** @type {Error} */ (result).name).toBe('TableError');
        // The first run wrote 300 items beside the one that was there.
        expect(String(result)).toContain(`table "${table}" holds about 301 items and has no point-in-time recovery`);
        expect(String(result)).toContain(`aws dynamodb update-continuous-backups --table-name ${table} --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true`);
        expect(lines.some((line) => line.message === 'throughput')).toBe(false);
      } else {
        expect(result).toMatchObject({ written: 300, balanced: true });
        expect(warning === undefined ? 'quiet' : 'warned').toBe(outcome);
        expect(lines.find((line) => line.message === 'table')?.fields).toMatchObject({ billingMode: 'PAY_PER_REQUEST', pointInTimeRecovery: pointInTimeRecovery === 'ENABLED' });
      }
    }
    // A dry run refuses what the import would refuse.
    const proxy = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT, pointInTimeRecovery: 'DISABLED' });
    cleanup(() => proxy.stop());
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
    await expect(run({ ...payload, requirePitr: true, dryRun: true }, recordingLog().log)).rejects.toThrow(/has no point-in-time recovery/);
    // With requirePitr, a table DynamoDB counts as empty is refused too: it refreshes ItemCount every six hours or so.
    const empty = await createTable(local.dynamodb);
    await expect(run({ ...payload, table: empty, requirePitr: true }, recordingLog().log)).rejects.toThrow(new RegExp(`table "${empty}" has no point-in-time recovery`));
    const quietOnEmpty = recordingLog();
    await run({ ...payload, table: empty }, quietOnEmpty.log);
    expect(quietOnEmpty.lines.filter((line) => line.level === 'warn')).toEqual([]);

    // dynalite itself has no backups (nor has DynamoDB Local): it cannot be told, and says so; requirePitr
    // refuses. (The proxy only says the table holds items, as DynamoDB's ItemCount would.)
    const counting = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT, itemCount: 301 });
    cleanup(() => counting.stop());
    process.env.DYNAMODB_ENDPOINT = counting.endpoint;
    const { lines, log } = recordingLog();
    await run(payload, log);
    expect(lines.find((line) => line.message === 'point-in-time recovery unknown')?.fields.reason).toContain('does not implement DescribeContinuousBackups');
    await expect(run({ ...payload, requirePitr: true }, log)).rejects.toThrow(/cannot be told/);
  });

  it('starts the pace at a provisioned table\'s WCU instead of finding it by throttling', async () => {
    const rows = 2_000;
    await upload(local.s3, 'aware/provisioned.csv', generatedCsv(rows, 6));
    const table = `t-${randomUUID()}`;
    await local.dynamodb.send(
      new CreateTableCommand({ TableName: table, BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 1_000 }, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] }),
    );
    await waitUntilTableExists({ client: local.dynamodb, maxWaitTime: 30, minDelay: 0.05, maxDelay: 1 }, { TableName: table });
    const { lines, log } = recordingLog();
    const started = performance.now();
    const summary = await run({ bucket: TEST_BUCKET, key: 'aware/provisioned.csv', table }, log);
    const seconds = (performance.now() - started) / 1000;
    expect(summary).toMatchObject({ written: rows, throttledCalls: 0, balanced: true });
    expect(lines.find((line) => line.message === 'table')?.fields).toMatchObject({ billingMode: 'PROVISIONED', writeCeiling: 1_000 });
    // DynamoDB Local does not throttle: only the pace keeps 2,000 WCU to about two seconds (a tenth of a second of burst, 2% growth a second).
    expect(seconds).toBeGreaterThan(1.7);
  });

  it('counts throttled calls by reason; a hot key range is retried and brings advice once, without cutting the window', async () => {
    const rows = 3_000;
    await upload(local.s3, 'aware/hot.csv', generatedCsv(rows, 7));
    const table = await createTable(local.dynamodb);
    const proxy = await startFaultProxy({ target: local.env.DYNAMODB_ENDPOINT, throttleCalls: 0.3, throttlingReasons: () => ['TableWriteKeyRangeThroughputExceeded'], random: mulberry(3) });
    cleanup(() => proxy.stop());
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
    const { lines, log } = recordingLog();
    const summary = await run({ bucket: TEST_BUCKET, key: 'aware/hot.csv', table, logIntervalMs: 100, concurrency: 8 }, log);
    expect(summary).toMatchObject({ written: rows, rejected: 0, balanced: true });
    expect(proxy.counts.throttledCalls).toBeGreaterThan(0);
    expect(summary.throttledCallsByReason).toEqual({ TableWriteKeyRangeThroughputExceeded: proxy.counts.throttledCalls });
    const throughput = lines.filter((line) => line.message === 'throughput');
    expect(throughput.at(-1)?.fields.throttledCallsByReason).toEqual(summary.throttledCallsByReason);
    expect(throughput.every((line) => line.fields.window === 8)).toBe(true);
    const advice = lines.filter((line) => line.message === 'hot key range');
    expect(advice.length).toBe(1);
    expect(advice[0]).toMatchObject({ level: 'warn', fields: { reason: expect.stringContaining('shuffleWindow') } });
  });
});

/** A small seeded generator, for a repeatable share of faults. @param {number} seed */
function mulberry(seed) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

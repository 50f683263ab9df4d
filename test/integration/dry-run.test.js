/**
 * The dry run: its figures against a small file worked out by hand (sizes, WCU, secondary indexes,
 * repeated keys, rejects, cost, time), and against a real import of the same file (what it said would be
 * written was written), on DynamoDB Local; nothing is written to the table or beside the file.
 */
import { CreateTableCommand, DeleteTableCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.js';
import { handler, runJob } from '../../src/handler.js';
import { createKeyCount } from '../../src/items/key-count.js';
import { createTable, listKeys, scanAll, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';

const quiet = { info() {}, warn() {}, error() {} };

/**
 * A table with partition key id (S), and two global indexes: byCountry (country, S; INCLUDE name) and
 * byScore (score, N; ALL). Provisioned when `wcu` is given (the indexes get `indexWcu`).
 * @param {import('@aws-sdk/client-dynamodb').DynamoDBClient} dynamodb
 * @param {{ wcu?: number, indexWcu?: number, scoreType?: 'N' | 'S' }} [options]
 */
async function tableWithIndexes(dynamodb, { wcu, indexWcu = 1, scoreType = 'N' } = {}) {
  const table = `t-${randomUUID()}`;
  const throughput = (/** @type {number} */ units) => (wcu === undefined ? {} : { ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: units } });
  await dynamodb.send(
    new CreateTableCommand({
      TableName: table,
      ...(wcu === undefined ? { BillingMode: 'PAY_PER_REQUEST' } : { BillingMode: 'PROVISIONED', ...throughput(wcu) }),
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'country', AttributeType: 'S' },
        { AttributeName: 'score', AttributeType: scoreType },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        { IndexName: 'byCountry', KeySchema: [{ AttributeName: 'country', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['name'] }, ...throughput(indexWcu) },
        { IndexName: 'byScore', KeySchema: [{ AttributeName: 'score', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ...throughput(indexWcu) },
      ],
    }),
  );
  await waitUntilTableExists({ client: dynamodb, maxWaitTime: 30, minDelay: 0.05, maxDelay: 1 }, { TableName: table });
  return table;
}

// Worked out by hand: an attribute is its name's bytes plus its value's (a string's UTF-8 bytes; a number
// one byte per two significant digits, plus one). One WCU per started KB.
const HAND_CSV = [
  'id,name,country,score,bio',
  `a,Ann,US,5,${'x'.repeat(1500)}`, // line 2: id 3 + name 7 + country 9 + score 7 + bio 1503 = 1529 B: 2 WCU; byCountry id+country+name 19 B: 1; byScore (ALL) 1529 B: 2
  'b,Bob,,7,hi', //                      line 3: 3 + 7 + 0 + 7 + 5 = 22 B: 1 WCU; no country: not in byCountry; byScore 22 B: 1
  'a,Al,FR,,', //                        line 4: id a again: 3 + 6 + 9 = 18 B: 1 WCU; byCountry 18 B: 1; no score: not in byScore
  'c,Cy,US,x,', //                       line 5: INVALID_NUMBER
  ',Di,US,1,', //                        line 6: MISSING_KEY
  'd,Ed', //                             line 7: FIELD_COUNT
  '',
].join('\n');

describe('a dry run', () => {
  const local = useLocalServers();
  const cleanup = useCleanups(local.env);
  const dropLater = (/** @type {string} */ table) => cleanup(async () => void (await local.dynamodb.send(new DeleteTableCommand({ TableName: table })).catch(() => {})));

  it('reports the rows, rejects, keys, sizes, capacity per index, cost and time of a file worked out by hand, and writes nothing', async () => {
    await upload(local.s3, 'dry/hand.csv', HAND_CSV);
    const table = await tableWithIndexes(local.dynamodb);
    dropLater(table);
    const payload = { bucket: TEST_BUCKET, key: 'dry/hand.csv', table, columnTypes: { score: 'N' }, dryRun: true, maxWcu: 3, pricePerMillionWrites: 100 };
    const report = /** @type {import('../../src/dry-run/dry-run.js').DryRunReport} */ (await runJob(payload, resolveConfig(payload, process.env), undefined, { log: quiet }));
    report.writeCapacity.indexes.sort((a, b) => a.name.localeCompare(b.name));

    expect(report).toMatchObject({
      dryRun: true,
      rowsRead: 6,
      wouldWrite: 3,
      wouldReject: 3,
      rejectedByReason: { INVALID_NUMBER: 1, MISSING_KEY: 1, FIELD_COUNT: 1 },
      firstRejectedLines: { INVALID_NUMBER: [5], MISSING_KEY: [6], FIELD_COUNT: [7] },
      balanced: true,
      keys: { distinct: 2, exact: true, repeatedRows: 1 },
      itemBytes: { total: 1529 + 22 + 18, largest: 1529, average: Math.round((1529 + 22 + 18) / 3) },
      writeCapacity: {
        table: 4,
        indexes: [
          { name: 'byCountry', kind: 'global', items: 2, wcu: 2 },
          { name: 'byScore', kind: 'global', items: 2, wcu: 3 },
        ],
        total: 9,
      },
      tableNow: { billingMode: 'PAY_PER_REQUEST', itemCount: 0 },
      cost: { onDemandUsd: 0.0009, pricePerMillionWrites: 100 },
      time: { atMaxWcu: { seconds: 3, maxWcu: 3 } },
      bytesRead: Buffer.byteLength(HAND_CSV),
    });
    expect(report.cost.importFromS3Usd).toBeCloseTo((Buffer.byteLength(HAND_CSV) / 2 ** 30) * 0.15, 4);
    expect(await scanAll(local.dynamodb, table)).toEqual([]);
    expect(await listKeys(local.s3, 'rejects/dry/')).toEqual([]);
    expect(await listKeys(local.s3, `_imports/${report.jobId}/`)).toEqual([]);
  });

  it('runs from a Lambda payload ({"dryRun": true}) through the handler, and writes nothing', async () => {
    await upload(local.s3, 'dry/hand.csv', HAND_CSV);
    const table = await tableWithIndexes(local.dynamodb);
    dropLater(table);
    const payload = { bucket: TEST_BUCKET, key: 'dry/hand.csv', table, columnTypes: { score: 'N' }, dryRun: true };
    const first = /** @type {import('../../src/dry-run/dry-run.js').DryRunReport} */ (await handler(payload));
    expect(first).toMatchObject({ dryRun: true, rowsRead: 6, wouldWrite: 3, writeCapacity: { total: 9 } });
    expect(await scanAll(local.dynamodb, table)).toEqual([]);
  });

  it('gives a provisioned table\'s time at its slowest ceiling, the table\'s or an index\'s, and no on-demand cost', async () => {
    await upload(local.s3, 'dry/hand.csv', HAND_CSV);
    const table = await tableWithIndexes(local.dynamodb, { wcu: 2, indexWcu: 1 });
    dropLater(table);
    const payload = { bucket: TEST_BUCKET, key: 'dry/hand.csv', table, columnTypes: { score: 'N' }, dryRun: true };
    const report = /** @type {import('../../src/dry-run/dry-run.js').DryRunReport} */ (await runJob(payload, resolveConfig(payload, process.env), undefined, { log: quiet }));
    // The table: 4 WCU at 2/s is 2 s; byCountry 2 at 1/s is 2 s; byScore 3 at 1/s is 3 s.
    expect(report.time.atTableCeiling).toEqual({ seconds: 3, writesPerSecond: 1, limitedBy: 'index byScore (provisioned WCU)' });
    expect(report.cost.onDemandUsd).toBeUndefined();
    expect(report.tableNow.billingMode).toBe('PROVISIONED');
  });

  it('said what a real import of the same file then wrote, rejected and left in the table, an index key of the wrong type included', async () => {
    // Keys repeat (900 keys over 3,000 rows, some in adjacent rows); every 7th row has a score, which the table's index types S and
    // the import N: DynamoDB refuses those rows whole. Every 500th row has a bad number.
    const rows = ['id,name,n,score,country'];
    /** @type {Map<string, string>} the name the table must end with, per key: the key's last row that is written */
    const expected = new Map();
    const counts = { REJECTED_BY_TABLE: 0, INVALID_NUMBER: 0 };
    for (let i = 0; i < 3_000; i++) {
      // Every 4th row repeats the key of the row before it: the two meet in one batch.
      const id = `r${((i % 4 === 3 ? i - 1 : i) * 7919) % 900}`;
      const bad = i % 500 === 499;
      const score = i % 7 === 0 ? String(i) : '';
      rows.push(`${id},name ${i},${bad ? 'x' : i},${score},${['US', 'FR', ''][i % 3]}`);
      if (bad) counts.INVALID_NUMBER++;
      else if (score !== '') counts.REJECTED_BY_TABLE++;
      else expected.set(id, `name ${i}`);
    }
    await upload(local.s3, 'dry/mixed.csv', `${rows.join('\n')}\n`);
    const table = await tableWithIndexes(local.dynamodb, { scoreType: 'S' });
    dropLater(table);
    const options = { bucket: TEST_BUCKET, key: 'dry/mixed.csv', table, columnTypes: { n: 'N', score: 'N' } };

    const dry = /** @type {import('../../src/dry-run/dry-run.js').DryRunReport} */ (await runJob({ ...options, dryRun: true }, resolveConfig({ ...options, dryRun: true }, process.env), undefined, { log: quiet }));
    expect(await scanAll(local.dynamodb, table)).toEqual([]);
    const real = /** @type {import('../../src/segment/import-segment.js').ImportSummary} */ (await runJob(options, resolveConfig(options, process.env), undefined, { log: quiet }));

    expect(dry).toMatchObject({ rowsRead: 3_000, wouldReject: counts.REJECTED_BY_TABLE + counts.INVALID_NUMBER, rejectedByReason: counts, keys: { distinct: expected.size, exact: true } });
    const { REJECTED_BY_TABLE: refused, ...otherReasons } = dry.rejectedByReason;
    const { REJECTED_BY_TABLE: refusedByTable, ...realOtherReasons } = real.rejectedByReason;
    expect({ rowsRead: real.rowsRead, balanced: real.balanced, reasons: realOtherReasons }).toEqual({ rowsRead: dry.rowsRead, balanced: true, reasons: otherReasons });
    // A row the table would refuse can be replaced by the next row with its key in the same batch before it
    // is sent: then the import counts it as collapsed, not refused. Every other row is where the dry run said.
    expect(refusedByTable).toBeLessThanOrEqual(refused);
    expect(refused - refusedByTable).toBeLessThanOrEqual(real.duplicatesCollapsed);
    expect(real.written + real.duplicatesCollapsed + refusedByTable).toBe(dry.wouldWrite + refused);
    // The table: for each key, its last row the table takes, as sequential writes would leave it.
    const items = await scanAll(local.dynamodb, table);
    expect(new Map(items.map((item) => [item.id.S, item.name.S]))).toEqual(expected);
  });

  it('sizes every column type and an empty cell kept as NULL, and foresees an index refusing a NULL key; the import agrees', async () => {
    const csv = [
      'id,doc,tags,bin,note,country',
      // id 3 + doc 3+14 (a map: 3, + 1 + "k" 1 + a list: 3 + 2 x (1 + 2)) + tags 4+3 + bin 3+3 (AQID is 3 bytes) + note 4+1 (NULL) + country 7+2 = 47 B
      'a,"{""k"":[1,2]}",x|yy,AQID,,US',
      'b,,,,,', // country NULL: byCountry refuses it
      '',
    ].join('\n');
    await upload(local.s3, 'dry/types.csv', csv);
    const table = await tableWithIndexes(local.dynamodb);
    dropLater(table);
    const options = { bucket: TEST_BUCKET, key: 'dry/types.csv', table, columnTypes: { doc: 'M', tags: 'SS', bin: 'B' }, emptyCell: 'null' };
    const dry = /** @type {import('../../src/dry-run/dry-run.js').DryRunReport} */ (await runJob({ ...options, dryRun: true }, resolveConfig({ ...options, dryRun: true }, process.env), undefined, { log: quiet }));
    expect(dry).toMatchObject({
      rowsRead: 2, wouldWrite: 1, rejectedByReason: { REJECTED_BY_TABLE: 1 }, itemBytes: { largest: 47 },
      writeCapacity: { table: 1, indexes: expect.arrayContaining([{ name: 'byCountry', kind: 'global', items: 1, wcu: 1 }, { name: 'byScore', kind: 'global', items: 0, wcu: 0 }]) },
    });
    const real = /** @type {import('../../src/segment/import-segment.js').ImportSummary} */ (await runJob(options, resolveConfig(options, process.env), undefined, { log: quiet }));
    expect(real).toMatchObject({ rowsRead: 2, written: 1, rejectedByReason: { REJECTED_BY_TABLE: 1 }, balanced: true });
  });

  it('dry-runs JSON Lines, DynamoDB JSON and deletes as it does CSV: each foresees what the import then does', async () => {
    const table = await tableWithIndexes(local.dynamodb);
    dropLater(table);
    const jsonl = [
      // id 3 + name 7 + country 9 + score 7 + nested 6 + (3 + 1 + "k" 1 + 1 (BOOL)) = 38 B
      '{"id": "a", "name": "Ann", "country": "US", "score": 5, "nested": {"k": true}}',
      '{"id": "b", "country": 7}', // byCountry types country S: refused
      '{"id": "c", "score": "x"}', // byScore types score N: refused
      '{"id": "d", "country": ""}', // an empty index key: refused
      'not json',
      '{"id": "e"}',
    ].join('\n');
    await upload(local.s3, 'dry/people.jsonl', jsonl);
    const dynamodbJson = ['{"Item": {"id": {"S": "f"}, "score": {"N": "12"}, "ss": {"SS": ["x", "yy"]}}}', '{"Keys": {"id": {"S": "a"}}}', '{"Item": {"id": {"S": "g"}, "score": {"NULL": true}}}'].join('\n');
    await upload(local.s3, 'dry/changes.json', dynamodbJson);
    const run = async (/** @type {Record<string, unknown>} */ options) => runJob(options, resolveConfig(options, process.env), undefined, { log: quiet });
    const base = { bucket: TEST_BUCKET, table };

    const dry = /** @type {any} */ (await run({ ...base, key: 'dry/people.jsonl', dryRun: true }));
    expect(dry).toMatchObject({ format: 'jsonl', rowsRead: 6, wouldWrite: 2, rejectedByReason: { REJECTED_BY_TABLE: 3, INVALID_JSON: 1 }, firstRejectedLines: { REJECTED_BY_TABLE: [2, 3, 4], INVALID_JSON: [5] }, itemBytes: { largest: 38 }, balanced: true });
    expect(dry.writeCapacity.indexes).toEqual(expect.arrayContaining([{ name: 'byCountry', kind: 'global', items: 1, wcu: 1 }, { name: 'byScore', kind: 'global', items: 1, wcu: 1 }]));
    const real = /** @type {any} */ (await run({ ...base, key: 'dry/people.jsonl' }));
    expect(real).toMatchObject({ rowsRead: 6, written: 2, rejectedByReason: { REJECTED_BY_TABLE: 3, INVALID_JSON: 1 } });

    const dryChanges = /** @type {any} */ (await run({ ...base, key: 'dry/changes.json', dryRun: true }));
    // Each row's own operation: the Keys line is a delete (issue 35, defect 5).
    expect(dryChanges).toMatchObject({ format: 'dynamodb-json', rowsRead: 3, wouldWrite: 1, wouldDelete: 1, rejectedByReason: { REJECTED_BY_TABLE: 1 }, firstRejectedLines: { REJECTED_BY_TABLE: [3] }, balanced: true });
    expect(dryChanges.deleteNote).toContain('at least');

    // A delete: 1 WCU per key at least, and said so; nothing deleted by the dry run.
    await upload(local.s3, 'dry/gone.csv', 'id\na\nb\n\n');
    const dryDelete = /** @type {any} */ (await run({ ...base, key: 'dry/gone.csv', mode: 'delete', dryRun: true }));
    expect(dryDelete).toMatchObject({ mode: 'delete', rowsRead: 2, wouldWrite: 0, wouldDelete: 2, writeCapacity: { table: 2, total: 2 } });
    expect(dryDelete.deleteNote).toContain('at least');
    expect((await scanAll(local.dynamodb, table)).map((item) => item.id.S).sort()).toEqual(['a', 'e']);

    // The import does what the dry run of the changes said: one put, one delete.
    const realChanges = /** @type {any} */ (await run({ ...base, key: 'dry/changes.json' }));
    expect(realChanges).toMatchObject({ written: dryChanges.wouldWrite, deleted: dryChanges.wouldDelete });
    expect((await scanAll(local.dynamodb, table)).map((item) => item.id.S).sort()).toEqual(['e', 'f']);
  });

  it('foresees the rows an index refuses (a key of another type, or too long, with or without its other key) and counts no index the file has no key for', async () => {
    const table = `t-${randomUUID()}`;
    await local.dynamodb.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ['id', 'city', 'zip', 'email'].map((name) => ({ AttributeName: name, AttributeType: name === 'zip' ? 'N' : 'S' })),
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          // zip is N in the index, and S in the import (no columnTypes): a row with a zip is refused, a city or not.
          { IndexName: 'byCity', KeySchema: [{ AttributeName: 'city', KeyType: 'HASH' }, { AttributeName: 'zip', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
          // The file has no email column: no item lands in it.
          { IndexName: 'byEmail', KeySchema: [{ AttributeName: 'email', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['phone'] } },
        ],
      }),
    );
    await waitUntilTableExists({ client: local.dynamodb, maxWaitTime: 30, minDelay: 0.05, maxDelay: 1 }, { TableName: table });
    dropLater(table);
    const csv = ['id,city,zip,note', 'a,Paris,,one', 'b,,75001,two', 'c,Lyon,69001,three', `d,${'x'.repeat(2049)},,four`, 'e,Nice,,five', 'f,,,six', ''].join('\n');
    await upload(local.s3, 'dry/indexes.csv', csv);
    const options = { bucket: TEST_BUCKET, key: 'dry/indexes.csv', table };
    const dry = /** @type {import('../../src/dry-run/dry-run.js').DryRunReport} */ (await runJob({ ...options, dryRun: true }, resolveConfig({ ...options, dryRun: true }, process.env), undefined, { log: quiet }));
    dry.writeCapacity.indexes.sort((x, y) => x.name.localeCompare(y.name));
    expect(dry).toMatchObject({ wouldWrite: 3, wouldReject: 3, rejectedByReason: { REJECTED_BY_TABLE: 3 }, firstRejectedLines: { REJECTED_BY_TABLE: [3, 4, 5] } });
    // a, e: city only, no zip: not in byCity (it needs both keys). f: nothing. byEmail: never.
    expect(dry.writeCapacity.indexes).toEqual([
      { name: 'byCity', kind: 'global', items: 0, wcu: 0 },
      { name: 'byEmail', kind: 'global', items: 0, wcu: 0 },
    ]);
    expect(dry.writeCapacity.total).toBe(3);
    const real = /** @type {import('../../src/segment/import-segment.js').ImportSummary} */ (await runJob(options, resolveConfig(options, process.env), undefined, { log: quiet }));
    expect({ written: real.written, rejectedByReason: real.rejectedByReason, lines: real.rejectSample.map((r) => r.line) }).toEqual({ written: 3, rejectedByReason: { REJECTED_BY_TABLE: 3 }, lines: [3, 4, 5] });
  });

  it('counts distinct keys exactly up to its bound, and estimates them within 2% past it', () => {
    const exact = createKeyCount({ exactKeys: 1_000_000 });
    const past = createKeyCount({ exactKeys: 10_000 });
    for (let i = 0; i < 200_000; i++) {
      for (const count of [exact, past]) {
        count.add(`key-${i}`);
        if (i % 4 === 0) count.add(`key-${i}`);
      }
    }
    expect(exact.result()).toEqual({ distinct: 200_000, exact: true });
    const estimate = past.result();
    expect(estimate.exact).toBe(false);
    expect(Math.abs(estimate.distinct - 200_000) / 200_000).toBeLessThan(0.02);
  });
});

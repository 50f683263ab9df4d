/**
 * Property: any DynamoDB JSON file of puts and deletes over a few keys (full-export lines, incremental
 * new images and deletes, malformed lines, blank lines, CRLF), imported into DynamoDB Local, leaves the
 * table the sequential oracle (changes-oracle.js) computes, with the same rejects at the same lines and
 * balanced books: puts and deletes of one key land in file order through batching, collapse and the
 * shuffle window.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/handler.js';
import { resolveConfig } from '../../src/config/index.js';
import { expectedChanges } from './changes-oracle.js';
import { scanTable } from './differential.js';
import { canonicalItem as canonical } from './oracle.js';
import { createTable, readRejects, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const quiet = { info() {}, warn() {}, error() {} };


const key = fc.constantFrom('k0', 'k1', 'k2', 'k3', 'k4').map((id) => ({ id: { S: id } }));
const number = fc.oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.constantFrom('1.50', '12345678901234567890123', '-0', '1E+3', '0.001'));
const attributes = fc.record(
  {
    v: number.map((N) => ({ N })),
    flag: fc.boolean().map((BOOL) => ({ BOOL })),
    nul: fc.constant({ NULL: true }),
    tags: fc.uniqueArray(fc.constantFrom('a', 'b', 'ü', 'x y'), { minLength: 1, maxLength: 3 }).map((SS) => ({ SS })),
    ns: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 3 }).map((values) => ({ NS: values.map(String) })),
    doc: fc.record({ list: fc.array(number.map((N) => ({ N })), { maxLength: 3 }) }).map(({ list }) => ({ M: { list: { L: list } } })),
  },
  { requiredKeys: [] },
);
const image = fc.tuple(key, attributes).map(([k, rest]) => ({ ...rest, ...k }));
const metadata = { WriteTimestampMicros: { N: '1732400000000000' } };
const line = fc.oneof(
  { weight: 4, arbitrary: image.map((Item) => JSON.stringify({ Item })) },
  { weight: 3, arbitrary: image.map((NewImage) => JSON.stringify({ Metadata: metadata, Keys: { id: NewImage.id }, NewImage })) },
  { weight: 3, arbitrary: key.map((Keys) => JSON.stringify({ Metadata: metadata, Keys, OldImage: { ...Keys, v: { N: '0' } } })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'not json',
      '{"Item":{"v":{"N":"1"}}}',
      '{"Item":{"id":{"S":"k1"},"v":{"N":"abc"}}}',
      '{"Item":{"id":{"S":"k2"},"s":{"SS":[]}}}',
      '{"Other":{}}',
      '{"Item":{"id":{"N":"1"}}}',
      '{"Item":{"id":{"S":"k3"},"x":{"S":"a","N":"1"}}}',
      '{"Keys":{"id":{"S":""}}}',
      '',
      '  ',
    ),
  },
);
const changeFile = fc.record({ lines: fc.array(line, { minLength: 1, maxLength: 150 }), crlf: fc.boolean(), shuffleWindow: fc.constantFrom(0, 0, 40) });

describe('DynamoDB JSON puts and deletes against the sequential oracle', () => {
  const local = useLocalServers();

  it('leaves the table, rejects and books the oracle computes, for any order of puts and deletes of a few keys', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(changeFile, async ({ lines, crlf, shuffleWindow }) => {
        const text = `${lines.join(crlf ? '\r\n' : '\n')}\n`;
        const keys = { partition: /** @type {{ name: string, type: 'S' }} */ ({ name: 'id', type: 'S' }) };
        const expected = expectedChanges(text, keys);
        const table = await createTable(local.dynamodb, { partition: { name: 'id', type: 'S' } });
        const objectKey = `changes/${run++}.json`;
        await upload(local.s3, objectKey, text);
        const payload = { bucket: TEST_BUCKET, key: objectKey, table, keyColumn: 'id', format: 'dynamodb-json', shuffleWindow, concurrency: 4 };
        const summary = /** @type {any} */ (await runJob(payload, resolveConfig(payload, process.env), undefined, { log: quiet }));

        expect(summary.rowsRead).toBe(expected.rowsRead);
        expect(summary.balanced).toBe(true);
        const rejects = [];
        for (const rejectsKey of summary.rejectsObjects) rejects.push(...(await readRejects(local.s3, rejectsKey)).slice(1).map((row) => ({ line: Number(row[0]), reason: row[1] })));
        expect(rejects.sort((a, b) => a.line - b.line)).toEqual(expected.rejected);
        const table_ = (await scanTable(local.env, table)).map(canonical).sort((a, b) => a.id.S.localeCompare(b.id.S));
        const oracle = [...expected.items.values()].map(canonical).sort((a, b) => a.id.S.localeCompare(b.id.S));
        expect(table_).toEqual(oracle);
      }),
      { numRuns: 100, seed: 20261124 },
    );
  }, 300_000);
});

/**
 * The corpus of malformed and edge-case files under test/fixtures, each imported into a fresh table of
 * DynamoDB Local. expected.json gives, per file, the import options, the rows read and written, and the
 * line of every rejected row by reason; the table, the rejects file and the summary are checked against it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handler } from '../../src/handler.js';
import { createTable, listKeys, readRejects, scanAll, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';

const { dynamodb, s3 } = useLocalServers();

/**
 * @typedef {object} Expected
 * @property {Record<string, unknown>} [options]
 * @property {number} rowsRead
 * @property {number} written
 * @property {number} [duplicatesCollapsed]
 * @property {Record<string, number[]>} rejected   reason -> lines
 * @property {Record<string, Record<string, string>>} [items]  id -> attributes besides the key
 */

/** @type {Record<string, Expected>} */
const corpus = JSON.parse(readFileSync(new URL('../fixtures/expected.json', import.meta.url), 'utf8'));

describe('fixture corpus', () => {
  it('has at least 20 files, each with its expectations', () => {
    expect(Object.keys(corpus).length).toBeGreaterThanOrEqual(20);
  });

  it.each(Object.entries(corpus))('%s', async (name, expected) => {
    const table = await createTable(dynamodb);
    const key = `fixtures/${name}`;
    await upload(s3, key, readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));
    const summary = /** @type {import('../../src/segment/import-segment.js').ImportSummary} */ (await handler({ bucket: TEST_BUCKET, key, table, ...expected.options }));

    const rejectedCount = Object.values(expected.rejected).reduce((sum, lines) => sum + lines.length, 0);
    expect(summary).toMatchObject({
      rowsRead: expected.rowsRead,
      written: expected.written,
      rejected: rejectedCount,
      duplicatesCollapsed: expected.duplicatesCollapsed ?? 0,
      rejectedByReason: Object.fromEntries(Object.entries(expected.rejected).map(([reason, lines]) => [reason, lines.length])),
      balanced: true,
    });

    const items = await scanAll(dynamodb, table);
    expect(items.length).toBe(expected.written);
    for (const [id, attributes] of Object.entries(expected.items ?? {})) {
      const item = items.find((candidate) => candidate.id.S === id);
      const { id: _id, ...rest } = item ?? {};
      expect(Object.fromEntries(Object.entries(rest).map(([attribute, value]) => [attribute, value.S ?? value.N ?? String(value.BOOL)]))).toEqual(attributes);
    }

    if (rejectedCount === 0) {
      expect(summary.rejectsObjects).toEqual([]);
      expect(await listKeys(s3, `rejects/${key}/`)).toEqual([]);
      return;
    }
    expect(summary.rejectsObjects).toEqual([expect.stringMatching(new RegExp(`^rejects/${key}/${summary.jobId}/segment-0001-[0-9a-f]{8}\\.csv$`))]);
    const [header, ...rows] = await readRejects(s3, summary.rejectsObjects[0]);
    expect(header.slice(0, 3)).toEqual(['line', 'reason', 'message']);
    /** @type {Record<string, number[]>} */
    const found = {};
    for (const [line, reason, message] of rows) {
      (found[reason] ??= []).push(Number(line));
      expect(message).toMatch(new RegExp(`^line ${line}: |^\\w+`));
    }
    for (const lines of Object.values(found)) lines.sort((a, b) => a - b);
    expect(found).toEqual(expected.rejected);
  });
});

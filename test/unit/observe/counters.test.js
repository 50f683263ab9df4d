/** The job's figures from its shards' summaries (src/observe/counters.js sumSummaries). */
import { describe, expect, it } from 'vitest';
import { sumSummaries } from '../../../src/observe/counters.js';

const part = (/** @type {Record<string, unknown>} */ fields) => ({ rowsRead: 3, written: 1, skipped: 2, skippedByReason: { ITEM_EXISTS: 2 }, ...fields });

describe('sumSummaries', () => {
  it('keeps the first skipped lines of the shards of one object, in order', () => {
    const total = sumSummaries([part({ key: 'a.csv', skippedLines: [40, 9] }), part({ key: 'a.csv', skippedLines: [3, 77] })], 1);
    expect(total).toMatchObject({ rowsRead: 6, skipped: 4, skippedByReason: { ITEM_EXISTS: 4 }, skippedLines: [3, 9, 40, 77] });
  });

  it('names each object\'s skipped lines in a job over many, never mixing their numbers (issue 46)', () => {
    const total = sumSummaries([part({ key: 'p/a.csv', skippedLines: [2, 5] }), part({ key: 'p/b.csv', skippedLines: [2, 3] })], 1);
    expect(total).not.toHaveProperty('skippedLines');
    expect(total).toMatchObject({ skipped: 4, skippedLinesByObject: { 'p/a.csv': [2, 5], 'p/b.csv': [2, 3] } });
  });
});

import { describe, expect, it } from 'vitest';
import { summaryText } from '../../../src/cli/summary-text.js';

const where = { source: 'people.csv', table: 'People', locate: (/** @type {string} */ key) => key };
const figures = { jobId: 'j', rowsRead: 20, written: 5, rejected: 1, duplicatesCollapsed: 0, seconds: 1, rowsPerSecond: 5, balanced: true };

describe('summaryText', () => {
  it('shows a conditional write mode\'s skipped rows, by reason with their lowest lines, and balances the books with them', () => {
    const text = summaryText({ ...figures, skipped: 14, skippedByReason: { NOT_NEWER: 14 }, skippedLines: [2, 3, 5, 7, 11, 13, 17, 19, 23, 29] }, where);
    expect(text).toMatch(/skipped +14 +NOT_NEWER 14 \(lines 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, \.\.\.\)/);
    expect(text).toMatch(/books +balanced +read = written \+ rejected \+ collapsed \+ skipped/);
  });

  it('leaves the skipped row out of a put\'s summary', () => {
    const text = summaryText({ ...figures, written: 19 }, where);
    expect(text).not.toMatch(/skipped/);
    expect(text).toMatch(/read = written \+ rejected \+ collapsed$/m);
  });
});

/** The line a stopped import prints of its books so far (src/cli/import-command.js). */
import { describe, expect, it } from 'vitest';
import { stoppedBooks } from '../../../src/cli/import-command.js';

describe('a stopped import\'s books', () => {
  it('name every count that has rows, the skipped and collapsed ones too (issue 46)', () => {
    expect(stoppedBooks({ rowsRead: 1_200, written: 1_000, rejected: 0 })).toBe('1,200 rows read, 1,000 written, 0 rejected');
    expect(stoppedBooks({ rowsRead: 1_200, written: 700, deleted: 100, rejected: 50, duplicatesCollapsed: 30, skipped: 320 })).toBe(
      '1,200 rows read, 700 written, 100 deleted, 50 rejected, 30 collapsed into a later row of their key, 320 skipped by the write mode',
    );
  });
});

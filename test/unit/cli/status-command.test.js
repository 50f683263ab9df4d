import { describe, expect, it } from 'vitest';
import { formatJobStatus } from '../../../src/cli/status-command.js';

/** A job status of one done shard. @param {{ written: number, deleted: number, skipped?: number }} counts */
function statusOf({ written, deleted, skipped = 0 }) {
  const shard = { jobId: 'j', shard: 0, shards: 1, state: /** @type {const} */ ('done'), updatedAt: '', rowsRead: 5, written, deleted, rejected: 1, skipped, rowsPerSecond: 5, file: '/tmp/people.csv' };
  return /** @type {import('../../../src/state/job-status.js').JobStatus} */ (/** @type {unknown} */ ({ jobId: 'j', plan: undefined, shards: [shard], total: { ...shard, seconds: 1, balanced: true, rejectsObjects: [] } }));
}

describe('formatJobStatus', () => {
  it('counts a put job\'s rows written, and a delete job\'s rows deleted', () => {
    const put = formatJobStatus(statusOf({ written: 4, deleted: 0 }), (key) => key);
    expect(put).toMatch(/rows read +written +rejected/);
    expect(put).toMatch(/total +done +5 +4 +1/);
    const removed = formatJobStatus(statusOf({ written: 0, deleted: 4 }), (key) => key);
    expect(removed).toMatch(/rows read +deleted +rejected/);
    expect(removed).toMatch(/total +done +5 +4 +1/);
  });

  it('shows rows written beside rows deleted when a job does both (an incremental export, issue 46, 6)', () => {
    const both = formatJobStatus(statusOf({ written: 3, deleted: 1 }), (key) => key);
    expect(both).toMatch(/rows read +written +deleted +rejected +rows\/s/);
    expect(both).toMatch(/total +done +5 +3 +1 +1 +5/);
  });

  it('adds a skipped column once a shard skipped a row (a conditional write mode)', () => {
    const conditional = formatJobStatus(statusOf({ written: 1, deleted: 0, skipped: 3 }), (key) => key);
    expect(conditional).toMatch(/rows read +written +rejected +skipped +rows\/s/);
    expect(conditional).toMatch(/total +done +5 +1 +1 +3 +5/);
    expect(formatJobStatus(statusOf({ written: 4, deleted: 0 }), (key) => key)).not.toMatch(/skipped/);
  });
});

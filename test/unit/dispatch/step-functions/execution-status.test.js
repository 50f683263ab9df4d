import { describe, expect, it } from 'vitest';
import { activeRate, readExecutionStatus } from '../../../../src/dispatch/step-functions/execution-status.js';

const ARN = 'arn:aws:states:us-east-1:111122223333:execution:csv-import-dev-job:3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c';
const MAP_RUN = (/** @type {string} */ id) => `arn:aws:states:us-east-1:111122223333:mapRun:csv-import-dev-job/Shards:${id}`;

/**
 * A Step Functions client answering each command by its name, as the SDK's answers look.
 * @param {Record<string, (input: any) => unknown>} answers
 */
function fakeSfn(answers) {
  /** @type {string[]} */
  const calls = [];
  return {
    calls,
    async send(/** @type {any} */ command) {
      const name = command.constructor.name.replace(/Command$/, '');
      calls.push(name);
      const answer = answers[name];
      if (answer === undefined) throw new Error(`${name} is not answered here`);
      return answer(command.input);
    },
  };
}

const notSeen = () => {
  throw Object.assign(new Error(`Execution Does Not Exist: '${ARN}'`), { name: 'ExecutionDoesNotExist' });
};

describe("a job's execution as the command line reads it", () => {
  const execution = { executionArn: ARN, name: '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c', status: 'RUNNING', startDate: new Date(0) };

  it('reads the execution again, briefly, when it is not seen right after its own start (eventual consistency)', async () => {
    let describes = 0;
    const sfn = fakeSfn({
      DescribeExecution: () => (++describes <= 2 ? notSeen() : execution),
      GetExecutionHistory: () => ({ events: [] }),
      ListMapRuns: () => ({ mapRuns: [] }),
    });
    /** @type {number[]} */
    const waited = [];
    const status = await readExecutionStatus({ sfn: /** @type {any} */ (sfn), s3: /** @type {any} */ ({}) }, ARN, { justStarted: true, sleep: async (ms) => void waited.push(ms) });
    expect(status).toMatchObject({ status: 'RUNNING', failed: false });
    expect(waited).toEqual([250, 500]);
    // Not after its own start: not seen is no such job, at once.
    const other = fakeSfn({ DescribeExecution: notSeen });
    await expect(readExecutionStatus({ sfn: /** @type {any} */ (other), s3: /** @type {any} */ ({}) }, ARN)).rejects.toThrow(/no such job execution/);
    expect(other.calls).toEqual(['DescribeExecution']);
  });

  it('shows the map run started last, whatever order ListMapRuns gives, with its pending-redrive and not-redrivable counts', async () => {
    /** @type {string[]} */
    const described = [];
    const sfn = fakeSfn({
      DescribeExecution: () => ({ ...execution, redriveCount: 1 }),
      GetExecutionHistory: () => ({ events: [] }),
      ListMapRuns: () => ({ mapRuns: [{ mapRunArn: MAP_RUN('new'), startDate: new Date(2_000) }, { mapRunArn: MAP_RUN('old'), startDate: new Date(1_000) }].reverse() }),
      DescribeMapRun: ({ mapRunArn }) => {
        described.push(mapRunArn);
        return { itemCounts: { total: 4, pending: 0, running: 1, succeeded: 1, failed: 2, timedOut: 0, aborted: 0, pendingRedrive: 1, failuresNotRedrivable: 1 } };
      },
      ListExecutions: () => ({ executions: [] }),
    });
    const status = await readExecutionStatus({ sfn: /** @type {any} */ (sfn), s3: /** @type {any} */ ({}) }, ARN);
    expect(described).toEqual([MAP_RUN('new')]);
    expect(status.shards).toMatchObject({ failed: 2, pendingRedrive: 1, failuresNotRedrivable: 1 });
  });

  it("counts a redriven job's rate over the time it ran, not the time it stood failed before its redrive", () => {
    // Ran 100 s, stood failed 1,000 s, ran 100 s more after its redrive: 20,000 rows in 200 s.
    expect(activeRate(20_000, new Date(0), new Date(1_200_000), 1_000_000)).toEqual({ seconds: 200, rowsPerSecond: 100 });
  });

  it('finds the idle time between a failure and its redrive in the history', async () => {
    const sfn = fakeSfn({
      DescribeExecution: () => ({ ...execution, status: 'SUCCEEDED', redriveCount: 1, stopDate: new Date(1_200_000), output: JSON.stringify({ state: 'done' }) }),
      GetExecutionHistory: () => ({
        events: [
          { type: 'ExecutionStarted', timestamp: new Date(0) },
          { type: 'TaskStateExited', timestamp: new Date(1_000), stateExitedEventDetails: { name: 'Plan', output: JSON.stringify({ jobId: 'j', job: { bucket: 'b', key: 'k.csv' }, shardList: { bucket: 'out', key: '_imports/j/shards.jsonl' } }) } },
          { type: 'ExecutionFailed', timestamp: new Date(100_000) },
          { type: 'ExecutionRedriven', timestamp: new Date(1_100_000) },
          { type: 'ExecutionSucceeded', timestamp: new Date(1_200_000) },
        ],
      }),
      ListMapRuns: () => ({ mapRuns: [] }),
    });
    // The shards' status objects: 20,000 rows read.
    const shard = { jobId: 'j', shard: 0, shards: 1, state: 'done', updatedAt: new Date(1_200_000).toISOString(), startedAt: new Date(0).toISOString(), rowsRead: 20_000, written: 20_000, rejected: 0 };
    const s3 = { send: async (/** @type {any} */ command) => (command.input.Key.endsWith('shard-0001.json') ? { Body: { transformToString: async () => JSON.stringify(shard) } } : Promise.reject(Object.assign(new Error('no such key'), { name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } }))) };
    const status = await readExecutionStatus({ sfn: /** @type {any} */ (sfn), s3: /** @type {any} */ (s3) }, ARN);
    expect(status.rows).toMatchObject({ rowsRead: 20_000, seconds: 200, rowsPerSecond: 100 });
    expect(status.source).toBe('s3://b/k.csv');
  });
});

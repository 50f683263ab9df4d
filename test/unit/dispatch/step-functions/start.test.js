import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { consoleLinkOf, dashboardLinkOf, executionArnOf, stateMachineArnOf } from '../../../../src/dispatch/step-functions/start.js';

describe('naming a job\'s execution', () => {
  it('finds the state machine from the function\'s own ARN, in its partition, region and account, qualified or not', () => {
    expect(stateMachineArnOf('arn:aws:lambda:eu-west-1:111122223333:function:csv-import-dev-import', 'csv-import-dev-job')).toBe('arn:aws:states:eu-west-1:111122223333:stateMachine:csv-import-dev-job');
    expect(stateMachineArnOf('arn:aws-cn:lambda:cn-north-1:111122223333:function:f:live', 'm')).toBe('arn:aws-cn:states:cn-north-1:111122223333:stateMachine:m');
    expect(() => stateMachineArnOf('csv-import-dev-import', 'm')).toThrow(ConfigError);
  });

  it('names an execution by the job id under its machine, and links the console and the dashboard in its region', () => {
    const machine = 'arn:aws:states:eu-west-1:111122223333:stateMachine:csv-import-dev-job';
    const execution = executionArnOf(machine, '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c');
    expect(execution).toBe('arn:aws:states:eu-west-1:111122223333:execution:csv-import-dev-job:3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c');
    expect(consoleLinkOf(execution)).toBe(`https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${execution}`);
    expect(dashboardLinkOf('eu-west-1', 'csv-import-dev-jobs')).toBe('https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/csv-import-dev-jobs');
  });

  it('uses job ids that are valid execution names (at most 80 of letters, digits, "-" and "_")', async () => {
    const { jobIdFor } = await import('../../../../src/state/checkpoint.js');
    const id = jobIdFor('bucket/key with spaces & more.csv', '"etag"', 'Orders', /** @type {any} */ ({ mode: 'put' }), 'run 1');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/**
 * The least-privilege IAM policy a person needs to run `ddbload import --on-aws`, `status --on-aws` and
 * `redrive` on a deployed stack: the calls those commands make, each on the stack's own resources.
 * docs/on-aws.md prints it; the tests' IAM gate (test/support/iam/) judges the command line's calls by
 * this same policy, so a call it does not grant fails a test before it fails on AWS.
 * Two statements cannot name a resource: states:ListStateMachines (finding the stack's machine) has no
 * resource type in IAM, so its Resource is "*", as AWS requires for a list action.
 */

/**
 * @param {{ stack: string, region: string, account: string, outputBucket: string, statusPrefix?: string, partition?: string }} stack
 *   stack: <service>-<stage>; outputBucket: the stack's OUTPUT_BUCKET, where job status is
 * @returns {{ Version: string, Statement: Array<Record<string, unknown>> }}
 */
export function commandLinePolicy({ stack, region, account, outputBucket, statusPrefix = '_imports/', partition = 'aws' }) {
  const states = (/** @type {string} */ resource) => `arn:${partition}:states:${region}:${account}:${resource}`;
  const machine = `${stack}-job`;
  return {
    Version: '2012-10-17',
    Statement: [
      // import --on-aws: the stack's import function starts the job (it checks the options against the stack's).
      { Sid: 'StartJobs', Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: [`arn:${partition}:lambda:${region}:${account}:function:${stack}-import`] },
      // --stack: the machine is found by name; a list action has no resource type.
      { Sid: 'FindTheStateMachine', Effect: 'Allow', Action: ['states:ListStateMachines'], Resource: ['*'] },
      // status and redrive: the job's execution, its Plan output (history), its map run and its failed shards (child executions).
      {
        Sid: 'WatchAndRedriveJobs',
        Effect: 'Allow',
        Action: ['states:DescribeExecution', 'states:GetExecutionHistory', 'states:ListMapRuns', 'states:RedriveExecution'],
        Resource: [states(`execution:${machine}:*`)],
      },
      { Sid: 'ReadMapRuns', Effect: 'Allow', Action: ['states:DescribeMapRun', 'states:ListExecutions'], Resource: [states(`mapRun:${machine}/*`)] },
      { Sid: 'ReadShards', Effect: 'Allow', Action: ['states:DescribeExecution'], Resource: [states(`execution:${machine}/*`)] },
      // Rows so far and the summary: the status objects under the output bucket's status prefix.
      { Sid: 'ReadJobStatus', Effect: 'Allow', Action: ['s3:GetObject'], Resource: [`arn:${partition}:s3:::${outputBucket}/${statusPrefix}*`] },
      // Without s3:ListBucket, S3 answers a status object not written yet with 403 instead of 404, and
      // status would fail where it should say "not yet".
      { Sid: 'TellMissingStatus', Effect: 'Allow', Action: ['s3:ListBucket'], Resource: [`arn:${partition}:s3:::${outputBucket}`] },
    ],
  };
}

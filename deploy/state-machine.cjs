/**
 * The job's state machine (Amazon States Language, JSONPath): Plan (again while it says it is planning)
 * -> a Distributed Map over the shard list Plan wrote (one Standard child execution per shard, looping ImportSegment until the shard is
 * done) -> Summarize. The tests run this same definition on aws-local-stepfunctions
 * (test/support/local-state-machine.js says what it changes for the emulator, and why).
 *
 * Standard children, not Express: a segment runs up to 15 minutes (Express stops at 5), and a redriven
 * Standard child goes on from its failed step with its last checkpoint. No Catch in the child: a Catch
 * would end the child in a Fail state, which a redrive cannot go past; a failed shard's error and cause
 * are in the Map's results (FAILED_n.json) all the same.
 */

/**
 * Lambda's errors that mean the invocation did not run, worth retrying. Not Lambda.SdkClientException:
 * the function may have run, and a segment run twice at once could leave an older row of a key last.
 */
const LAMBDA_TRANSIENT = ['Lambda.ServiceException', 'Lambda.AWSLambdaException'];

/**
 * Throttling (the account's or the function's reserved concurrency is taken) is waited out for up to an
 * hour: before, a shard's asynchronous invocation waited in Lambda's queue; a job must not fail because
 * more shards than the concurrency allows were started.
 */
const RETRY = [
  { ErrorEquals: ['Lambda.TooManyRequestsException'], IntervalSeconds: 5, MaxAttempts: 20, BackoffRate: 2, MaxDelaySeconds: 300, JitterStrategy: 'FULL' },
  { ErrorEquals: LAMBDA_TRANSIENT, IntervalSeconds: 2, MaxAttempts: 6, BackoffRate: 2, MaxDelaySeconds: 60, JitterStrategy: 'FULL' },
];

/** Longer than the function's 900 s, so that a hung invocation fails as Lambda's time-out, which says so. */
const TASK_TIMEOUT_SECONDS = 960;

/**
 * @param {{ plan: unknown, segment: unknown, summarize: unknown, bucket: string }} targets
 *   the three functions' ARNs (strings or CloudFormation intrinsics) and the output bucket's name
 */
function stateMachineDefinition({ plan, segment, summarize, bucket }) {
  /** @param {unknown} functionName @param {Record<string, string>} payload */
  const invoke = (functionName, payload) => ({
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    TimeoutSeconds: TASK_TIMEOUT_SECONDS,
    Parameters: { FunctionName: functionName, Payload: payload },
    Retry: RETRY,
  });
  return {
    Comment: 'An import job: Plan, one child execution per shard (ImportSegment until done), Summarize',
    StartAt: 'Plan',
    States: {
      Plan: { ...invoke(plan, { 'job.$': '$' }), ResultSelector: { 'plan.$': '$.Payload' }, OutputPath: '$.plan', Next: 'Planned?' },
      // Plan stops reading a big object before its invocation's time runs out, keeps how far it got in the
      // output bucket and answers `planning`: it runs again with the job and goes on from there.
      'Planned?': { Type: 'Choice', Choices: [{ Variable: '$.planning', IsPresent: true, Next: 'PlanOn' }], Default: 'Shards' },
      PlanOn: { Type: 'Pass', OutputPath: '$.job', Next: 'Plan' },
      Shards: {
        Type: 'Map',
        Label: 'Shards',
        ItemReader: { Resource: 'arn:aws:states:::s3:getObject', ReaderConfig: { InputType: 'JSONL' }, Parameters: { Bucket: bucket, 'Key.$': '$.shardList.key' } },
        ItemSelector: { 'shard.$': '$$.Map.Item.Value', segment: { done: false } },
        MaxConcurrencyPath: '$.maxConcurrency',
        ToleratedFailurePercentagePath: '$.toleratedFailurePercentage',
        ResultWriter: { Resource: 'arn:aws:states:::s3:putObject', Parameters: { Bucket: bucket, 'Prefix.$': '$.results.prefix' } },
        ResultPath: '$.results',
        ItemProcessor: {
          ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
          StartAt: 'ImportSegment',
          States: {
            ImportSegment: { ...invoke(segment, { 'shard.$': '$.shard', 'segment.$': '$.segment' }), ResultSelector: { 'value.$': '$.Payload' }, ResultPath: '$.next', OutputPath: '$', Next: 'CarryOn' },
            // The segment's answer becomes the loop's state: the next segment starts from its checkpoint.
            CarryOn: { Type: 'Pass', Parameters: { 'shard.$': '$.shard', 'segment.$': '$.next.value' }, Next: 'ShardDone?' },
            'ShardDone?': { Type: 'Choice', Choices: [{ Variable: '$.segment.done', BooleanEquals: true, Next: 'ShardDone' }], Default: 'ImportSegment' },
            ShardDone: { Type: 'Pass', OutputPath: '$.segment.result', End: true },
          },
        },
        Next: 'Summarize',
      },
      Summarize: { ...invoke(summarize, { 'jobId.$': '$.jobId', 'job.$': '$.job', 'shards.$': '$.shards', 'results.$': '$.results', 'startedAt.$': '$$.Execution.StartTime' }), ResultSelector: { 'summary.$': '$.Payload' }, OutputPath: '$.summary', End: true },
    },
  };
}

module.exports = { stateMachineDefinition, LAMBDA_TRANSIENT, TASK_TIMEOUT_SECONDS };

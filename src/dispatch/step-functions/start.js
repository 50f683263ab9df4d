/**
 * Starting a job on AWS: one execution of the job's state machine, named by the job id, so that a second
 * start of the same job (a duplicated S3 event, an invocation retried) finds the first instead of
 * running the job twice. Step Functions answers a start with the name and input of a running execution
 * with that execution; with a closed one's, ExecutionAlreadyExists, and the answer then says how it
 * ended and how to run the job again.
 */
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { AwsCallError, ConfigError } from '../../errors.js';

/** A start answered with a start date this much before it was asked is an earlier start's (clocks differ). */
const EARLIER_START_MS = 5_000;

/** @type {Map<string, SFNClient>} */
const clients = new Map();

/** @param {string} region @param {string | undefined} endpoint */
export function sfnClient(region, endpoint) {
  // The SDK reads AWS_ENDPOINT_URL_SFN when a client is made: a client made for another is not this one.
  const id = `${region} ${endpoint ?? process.env.AWS_ENDPOINT_URL_SFN ?? ''}`;
  let client = clients.get(id);
  if (client === undefined) {
    client = new SFNClient({ region, ...(endpoint === undefined ? {} : { endpoint }) });
    clients.set(id, client);
  }
  return client;
}

/**
 * The state machine's ARN, from the function's own (which names the region, account and partition) and
 * the machine's name (the environment holds plain strings only: `sls package` works offline).
 * @param {string} functionArn  arn:PARTITION:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]
 * @param {string} name
 */
export function stateMachineArnOf(functionArn, name) {
  const [, partition, , region, account] = functionArn.split(':');
  if (region === undefined || account === undefined) throw new ConfigError('invokedFunctionArn', functionArn, 'the Lambda context names the function by its ARN');
  return `arn:${partition}:states:${region}:${account}:stateMachine:${name}`;
}

/** An execution's ARN from its machine's and its name. @param {string} stateMachineArn @param {string} name */
export const executionArnOf = (stateMachineArn, name) => stateMachineArn.replace(':stateMachine:', ':execution:') + `:${name}`;

/** Where a person watches an execution. @param {string} executionArn */
export function consoleLinkOf(executionArn) {
  const region = executionArn.split(':')[3];
  return `https://${region}.console.aws.amazon.com/states/home?region=${region}#/v2/executions/details/${executionArn}`;
}

/** Where a person opens the stack's dashboard of its jobs. @param {string} region @param {string} name */
export const dashboardLinkOf = (region, name) => `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards/dashboard/${name}`;

/**
 * @param {{ sfn: SFNClient, stateMachineArn: string, jobId: string, input: Record<string, unknown> }} job
 * @returns {Promise<{ jobId: string, executionArn: string, started: boolean, status: string, console: string, note?: string }>}
 */
export async function startJobExecution({ sfn, stateMachineArn, jobId, input }) {
  const executionArn = executionArnOf(stateMachineArn, jobId);
  // Looked up first: a start answered with a running execution cannot be told from a new one by its
  // answer alone when the two come within the clocks' skew (a duplicated event a second later).
  const earlier = await describe(sfn, executionArn);
  if (earlier !== undefined) return startedBefore(jobId, executionArn, earlier, input);
  const asked = Date.now();
  try {
    const { startDate } = await sfn.send(new StartExecutionCommand({ stateMachineArn, name: jobId, input: JSON.stringify(input) }));
    // Started between the look-up and this start by another caller, with the same input.
    const before = startDate !== undefined && startDate.getTime() < asked - EARLIER_START_MS;
    return { jobId, executionArn, started: !before, status: 'RUNNING', console: consoleLinkOf(executionArn), ...(before ? { note: `job ${jobId} was started before, at ${startDate.toISOString()}, and is running` } : {}) };
  } catch (error) {
    if (/** @type {Error} */ (error)?.name !== 'ExecutionAlreadyExists') throw new AwsCallError(`start the job's execution ${jobId} of ${stateMachineArn}`, error, 'states:StartExecution on it');
  }
  return startedBefore(jobId, executionArn, (await describe(sfn, executionArn)) ?? {}, input);
}

/**
 * The answer to a start of a job whose execution exists: how it is or how it ended, and how to run it again.
 * @param {string} jobId @param {string} executionArn @param {{ status?: string, startDate?: Date, input?: string }} execution
 * @param {Record<string, unknown>} input  this start's
 */
function startedBefore(jobId, executionArn, { status, startDate, input: earlierInput }, input) {
  const when = startDate === undefined ? '' : `, at ${startDate.toISOString()}`;
  // Options that change only speed or order (shards, concurrency, maxWcu) are not part of the job id.
  const other = earlierInput !== undefined && earlierInput !== JSON.stringify(input) ? ' with other options than this start\'s (its own hold)' : '';
  const how = status === 'RUNNING' ? `it is running${other}` : `it ended ${status ?? 'UNKNOWN'}${other}`;
  const rerun = status === 'FAILED' || status === 'TIMED_OUT' || status === 'ABORTED' ? `; \`ddbload redrive ${executionArn}\` re-runs its failed shards` : '';
  return { jobId, executionArn, started: false, status: status ?? 'UNKNOWN', console: consoleLinkOf(executionArn), note: `job ${jobId} was started before${when}: ${how}${rerun}; to import the object again, pass another runId` };
}

/** The execution, or undefined when there is none. @param {SFNClient} sfn @param {string} executionArn */
async function describe(sfn, executionArn) {
  try {
    return await sfn.send(new DescribeExecutionCommand({ executionArn }));
  } catch (error) {
    if (/** @type {Error} */ (error)?.name === 'ExecutionDoesNotExist') return undefined;
    throw new AwsCallError(`describe the job's execution ${executionArn}`, error, 'states:DescribeExecution on it');
  }
}

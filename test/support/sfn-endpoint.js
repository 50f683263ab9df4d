/**
 * The Step Functions API of one deployed stack, offline: an HTTP server that speaks the service's JSON
 * protocol (what the SDK's SFNClient sends, pointed here by AWS_ENDPOINT_URL_SFN) for the calls the
 * command line makes, StartExecution, DescribeExecution, ListStateMachines, GetExecutionHistory,
 * ListMapRuns, DescribeMapRun, ListExecutions and RedriveExecution, and runs each execution on
 * test/support/local-state-machine.js (the job's definition on aws-local-stepfunctions, its tasks bound
 * to the project's steps against the local servers). What it answers comes from those runs: the map run's
 * counts from the children as they start and end, a child's error from its failed segment, Plan's
 * output in the history. Fields the command line does not read are left out. Listens on 127.0.0.1,
 * behind an IAM gate (iam/gate.js) that judges the function's and the command line's calls.
 */
import http from 'node:http';
import { createLocalStateMachine } from './local-state-machine.js';
import { startGate } from './local.js';

const REGION = 'us-east-1';
const ACCOUNT = '000000000000';

/**
 * @typedef {object} Execution
 * @property {string} arn
 * @property {string} name
 * @property {string} input
 * @property {string} status
 * @property {Date} startDate
 * @property {Date} [stopDate]
 * @property {string} [output]
 * @property {string} [error]
 * @property {string} [cause]
 * @property {number} redriveCount
 * @property {Array<{ type: string, timestamp: Date }>} history  its failures and redrives, as GetExecutionHistory lists them
 * @property {string} [planOutput]
 * @property {number} shards  planned, once Plan has ended
 * @property {ReturnType<typeof createLocalStateMachine>} machine
 * @property {Promise<void>} done
 */

/**
 * @param {{ s3: import('@aws-sdk/client-s3').S3Client, bucket: string, stack: string, steps: import('./local-state-machine.js').Steps }} options
 *   stack: <service>-<stage>; the state machine is <stack>-job, as serverless.yml names it
 */
export async function startSfnEndpoint({ s3, bucket, stack, steps }) {
  const stateMachineArn = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${stack}-job`;
  /** @type {Map<string, Execution>} */
  const executions = new Map();

  /** The steps, watched: Plan's output (the children are the local machine's). @param {Execution} execution */
  function watched(execution) {
    return {
      async plan(/** @type {any} */ event) {
        const output = await steps.plan(event);
        execution.planOutput = JSON.stringify(output);
        execution.shards = /** @type {any} */ (output).shards;
        return output;
      },
      segment: steps.segment,
      summarize: steps.summarize,
    };
  }

  /** Runs (or redrives) an execution to its end. @param {Execution} execution @param {() => Promise<unknown>} run */
  function track(execution, run) {
    execution.status = 'RUNNING';
    delete execution.stopDate;
    execution.done = run().then(
      (output) => void Object.assign(execution, { status: 'SUCCEEDED', output: JSON.stringify(output), stopDate: new Date(), error: undefined, cause: undefined }),
      (/** @type {Error} */ error) => {
        const stopDate = new Date();
        Object.assign(execution, { status: 'FAILED', error: error.name, cause: error.message, stopDate });
        execution.history.push({ type: 'ExecutionFailed', timestamp: stopDate });
      },
    );
  }

  /** @type {Record<string, (request: any) => unknown>} */
  const operations = {
    ListStateMachines: () => ({ stateMachines: [{ stateMachineArn, name: `${stack}-job`, type: 'STANDARD', creationDate: 0 }] }),
    StartExecution({ stateMachineArn: arn, name, input }) {
      if (arn !== stateMachineArn) throw fault('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
      const executionArn = `${arn.replace(':stateMachine:', ':execution:')}:${name}`;
      const existing = executions.get(executionArn);
      if (existing !== undefined) {
        // As AWS: the same name and input while it runs is that execution; anything else is refused.
        if (existing.status === 'RUNNING' && existing.input === input) return { executionArn, startDate: seconds(existing.startDate) };
        throw fault('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
      }
      /** @type {Execution} */
      const execution = { arn: executionArn, name, input, status: 'RUNNING', startDate: new Date(), redriveCount: 0, history: [], shards: 0, machine: /** @type {any} */ (undefined), done: Promise.resolve() };
      execution.machine = createLocalStateMachine({ s3, bucket, steps: watched(execution) });
      executions.set(executionArn, execution);
      track(execution, () => execution.machine.run(JSON.parse(input)));
      return { executionArn, startDate: seconds(execution.startDate) };
    },
    DescribeExecution({ executionArn }) {
      const child = childOf(executionArn);
      if (child !== undefined) return { executionArn, status: child.status, input: child.input, ...(child.error === undefined ? {} : { error: child.error, cause: child.cause }) };
      const execution = executionOf(executionArn);
      return {
        executionArn,
        stateMachineArn,
        name: execution.name,
        status: execution.status,
        startDate: seconds(execution.startDate),
        ...(execution.stopDate === undefined ? {} : { stopDate: seconds(execution.stopDate) }),
        input: execution.input,
        ...(execution.output === undefined ? {} : { output: execution.output }),
        ...(execution.error === undefined ? {} : { error: execution.error, cause: execution.cause }),
        redriveCount: execution.redriveCount,
      };
    },
    GetExecutionHistory({ executionArn }) {
      const execution = executionOf(executionArn);
      const events = [{ id: 1, timestamp: seconds(execution.startDate), type: 'ExecutionStarted' }];
      if (execution.planOutput !== undefined) events.push(/** @type {any} */ ({ id: 2, timestamp: seconds(execution.startDate), type: 'TaskStateExited', stateExitedEventDetails: { name: 'Plan', output: execution.planOutput } }));
      for (const { type, timestamp } of execution.history) events.push({ id: events.length + 1, timestamp: seconds(timestamp), type });
      return { events };
    },
    ListMapRuns({ executionArn }) {
      const execution = executionOf(executionArn);
      return { mapRuns: execution.planOutput === undefined ? [] : [{ executionArn, mapRunArn: mapRunArnOf(execution), stateMachineArn, startDate: seconds(execution.startDate) }] };
    },
    DescribeMapRun({ mapRunArn }) {
      const execution = [...executions.values()].find((one) => mapRunArnOf(one) === mapRunArn);
      if (execution === undefined) throw fault('ResourceNotFound', `Map Run Does Not Exist: '${mapRunArn}'`);
      const children = [...execution.machine.children().values()];
      const count = (/** @type {string} */ status) => children.filter((one) => one.status === status).length;
      const unsuccessful = children.filter((one) => one.status !== 'SUCCEEDED' && one.status !== 'RUNNING');
      // While a redrive runs, its failed children wait for it to start them again; those past their history's limit never will.
      const pendingRedrive = execution.status === 'RUNNING' && execution.redriveCount > 0 ? unsuccessful.filter((one) => one.redrivable).length : 0;
      const failuresNotRedrivable = unsuccessful.filter((one) => !one.redrivable).length;
      const itemCounts = { pending: execution.shards - children.length, running: count('RUNNING'), succeeded: count('SUCCEEDED'), failed: count('FAILED'), timedOut: count('TIMED_OUT'), aborted: 0, total: execution.shards, resultsWritten: 0, pendingRedrive, failuresNotRedrivable };
      return { mapRunArn, executionArn: execution.arn, status: execution.status === 'RUNNING' ? 'RUNNING' : execution.status, itemCounts, executionCounts: itemCounts, maxConcurrency: 0, toleratedFailurePercentage: 0, toleratedFailureCount: 0, startDate: seconds(execution.startDate) };
    },
    ListExecutions({ mapRunArn, statusFilter }) {
      const execution = [...executions.values()].find((one) => mapRunArnOf(one) === mapRunArn);
      if (execution === undefined) throw fault('ResourceNotFound', `Map Run Does Not Exist: '${mapRunArn}'`);
      const children = [...execution.machine.children().entries()].filter(([, child]) => statusFilter === undefined || child.status === statusFilter);
      return { executions: children.map(([index, child]) => ({ executionArn: `${mapRunArnOf(execution).replace(':mapRun:', ':execution:')}:${index}`, stateMachineArn, name: String(index), status: child.status, startDate: seconds(execution.startDate) })) };
    },
    RedriveExecution({ executionArn }) {
      const execution = executionOf(executionArn);
      if (execution.status !== 'FAILED') throw fault('ExecutionNotRedrivable', `Execution is ${execution.status}: only a failed execution can be redriven`);
      execution.redriveCount++;
      execution.history.push({ type: 'ExecutionRedriven', timestamp: new Date() });
      track(execution, () => execution.machine.redrive());
      return { redriveDate: seconds(new Date()) };
    },
  };

  /** @param {string} arn */
  function executionOf(arn) {
    const execution = executions.get(arn);
    if (execution === undefined) throw fault('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return execution;
  }

  /** A child execution's record, by its ARN (<map run's, as an execution>:<item index>). @param {string} arn */
  function childOf(arn) {
    for (const execution of executions.values()) {
      const prefix = `${mapRunArnOf(execution).replace(':mapRun:', ':execution:')}:`;
      if (!arn.startsWith(prefix)) continue;
      const child = execution.machine.children().get(Number(arn.slice(prefix.length)));
      return child;
    }
    return undefined;
  }

  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target'] ?? '').replace('AWSStepFunctions.', '');
      const reply = (/** @type {number} */ status, /** @type {unknown} */ value) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify(value));
      };
      try {
        const run = operations[operation];
        if (run === undefined) return reply(400, { __type: 'UnknownOperationException', message: `${operation} is not served here` });
        reply(200, run(JSON.parse(body || '{}')));
      } catch (error) {
        const { name, message } = /** @type {Error} */ (error);
        reply(400, { __type: name, message });
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const gate = await startGate('states', `http://127.0.0.1:${port}`);
  return {
    endpoint: gate.endpoint,
    gate,
    stateMachineArn,
    /** How many executions were started. */
    executions: () => executions.size,
    /** Waits for every execution started or redriven so far to end. */
    settled: () => Promise.all([...executions.values()].map((execution) => execution.done)),
    async stop() {
      await gate.stop();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * As AWS names a Distributed Map's run, `mapRun:<machine>/<label>:<id>` (the id here the execution's
 * name), and its children `execution:<machine>/<label>:<id>`: what the command line's IAM policy names.
 * @param {Execution} execution
 */
const mapRunArnOf = (execution) => execution.arn.replace(/:execution:([^:]+):(.+)$/, ':mapRun:$1/Shards:$2');

/** The JSON protocol's timestamps: seconds since the epoch. @param {Date} date */
const seconds = (date) => date.getTime() / 1000;

/** @param {string} name @param {string} message */
const fault = (name, message) => Object.assign(new Error(message), { name });

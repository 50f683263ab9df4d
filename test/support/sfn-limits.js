/**
 * AWS Step Functions' own limits, enforced on one execution run on aws-local-stepfunctions (which
 * enforces none of them, and a Task's TimeoutSeconds only in real seconds):
 * - 256 KiB (262,144 bytes of UTF-8) per state's input and output, a Task's input after Parameters and
 *   its result: past it the state fails with States.DataLimitExceeded, which no Retry or Catch of
 *   States.ALL matches (AWS: "a terminal error that can't be caught by the States.ALL error type");
 * - 25,000 events in an execution's history (AWS's quotas: "Maximum execution history size: 25,000
 *   events in a single state machine execution history"; past it the execution fails and is not
 *   redrivable: DescribeExecution's redriveStatusReason "Execution history event limit exceeded");
 * - a Task's TimeoutSeconds: past it the state fails with States.Timeout, and the Lambda invocation it
 *   waited on runs on (Step Functions does not stop it).
 *
 * Events are counted as Step Functions writes them in GetExecutionHistory for the state types the job's
 * machine uses (docs: HistoryEvent's types in the API reference; the console's event view of a Lambda
 * task): the execution's start (ExecutionStarted, or ExecutionRedriven) and end (ExecutionSucceeded /
 * ExecutionFailed) one each; a Pass or Choice state 2 (…StateEntered, …StateExited); a Task with
 * lambda:invoke 5 when it succeeds at once (TaskStateEntered, TaskScheduled, TaskStarted, TaskSucceeded,
 * TaskStateExited), each failed attempt 3 more (TaskScheduled, TaskStarted, TaskFailed; or
 * TaskTimedOut). A state the local harness adds in place of an AWS-only part (localStates) is not
 * counted: on AWS it is no state of the execution.
 */

/** A state's input or output, at most (bytes of UTF-8). */
export const STATE_DATA_BYTES = 262_144;

/** An execution's history, at most (events). */
export const HISTORY_EVENTS = 25_000;

/** The bytes Step Functions counts for a state's data: its JSON text in UTF-8. @param {unknown} value */
export const dataBytes = (value) => Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');

/** @param {string} name @param {string} message */
const statesError = (name, message) => Object.assign(new Error(message), { name });

/**
 * @typedef {object} LimitedRun
 * @property {Promise<unknown>} result  the execution's output; rejects with the error it failed with (its own, not the emulator's wrapper)
 * @property {() => number} events  history events so far (the history it went on from included)
 * @property {() => { name: string, input: unknown } | undefined} failedIn  the state it failed in, with that state's input: a redrive starts there
 * @property {() => boolean} redrivable  false once it failed past the history limit
 * @property {() => number} largest  the most bytes of any state's input or output so far
 */

/**
 * Runs one execution of the definition on the emulator, with AWS's limits.
 * @param {typeof import('aws-local-stepfunctions').StateMachine} StateMachine
 * @param {any} definition
 * @param {unknown} input
 * @param {{ handlers: Record<string, (input: any) => Promise<any>>, retryIntervalOverrides?: Record<string, number>, context?: unknown,
 *   history?: number, secondMs?: number, localStates?: Set<string> }} options
 *   history: events of the execution before this run (a redrive goes on with them, plus its ExecutionRedriven);
 *   secondMs: milliseconds a second of TimeoutSeconds lasts here (tests shrink it)
 * @returns {LimitedRun}
 */
export function runLimited(StateMachine, definition, input, { handlers, retryIntervalOverrides = {}, context, history, secondMs = 1_000, localStates = new Set() }) {
  let events = history ?? 0;
  /** @type {Error | undefined} */
  let failure;
  /** @type {{ name: string, input: unknown } | undefined} */
  let failedIn;
  /** @type {{ name: string, input: unknown } | undefined} */
  let current;
  let redrivable = true;
  let largest = 0;
  /** @type {(error: Error) => void} */
  let rejectLimited = () => {};
  const limited = new Promise((_, reject) => (rejectLimited = reject));
  limited.catch(() => {});
  /** @type {ReturnType<InstanceType<typeof StateMachine>['run']> | undefined} */
  let execution;

  /** @param {Error} error @param {{ name: string, input: unknown } | undefined} state */
  const fail = (error, state) => {
    if (failure !== undefined) return;
    failure = error;
    failedIn = state;
    rejectLimited(error);
    execution?.abort();
  };
  /** @param {string} what @param {unknown} value */
  const tooBig = (what, value) => {
    const bytes = dataBytes(value);
    largest = Math.max(largest, bytes);
    return bytes > STATE_DATA_BYTES ? statesError('States.DataLimitExceeded', `${what} is ${bytes} bytes, past Step Functions' ${STATE_DATA_BYTES} (256 KiB) per state's input or output`) : undefined;
  };
  /** @param {number} n @param {{ name: string, input: unknown } | undefined} state */
  const count = (n, state) => {
    events += n;
    if (events <= HISTORY_EVENTS) return;
    redrivable = false;
    fail(statesError('States.Runtime', `the execution's history passed Step Functions' ${HISTORY_EVENTS} events (event ${events}, in ${state?.name ?? 'the execution'})`), state);
  };

  const overridden = Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [
      name,
      /** @param {any} taskInput */
      async (taskInput) => {
        // The events of the states before are counted first (the event logs are read a tick behind).
        await new Promise((resolve) => setImmediate(resolve));
        if (failure !== undefined) throw failure;
        const bigInput = tooBig(`the input of ${name} after its Parameters`, taskInput);
        if (bigInput !== undefined) throw bigInput;
        const timeoutSeconds = definition.States[name]?.TimeoutSeconds;
        const result = await (timeoutSeconds === undefined ? handler(taskInput) : withTimeout(handler(taskInput), timeoutSeconds * secondMs));
        const bigResult = tooBig(`the result of ${name}`, result);
        if (bigResult !== undefined) throw bigResult;
        return result;
      },
    ]),
  );

  /** @param {any} event */
  const onEvent = (event) => {
    // Events of an inline Map's iterations are the local stand-in's (each child is an execution of its own).
    if (event.index !== undefined || event.type.startsWith('MapIteration')) return;
    const state = event.state === undefined ? undefined : { name: event.state.name, input: event.state.input };
    const local = state !== undefined && localStates.has(state.name);
    const task = event.state?.type === 'Task';
    switch (event.type) {
      case 'ExecutionStarted': {
        count(1, undefined);
        const big = tooBig('the execution\'s input', event.input);
        if (big !== undefined) fail(big, undefined);
        break;
      }
      case 'StateEntered':
        current = state;
        if (!local) count(task ? 3 : 1, state);
        if (!local) {
          const big = tooBig(`the input of ${event.state.name}`, event.state.input);
          if (big !== undefined) fail(big, state);
        }
        break;
      case 'StateRetried':
        // The failed attempt's TaskFailed is its StateFailed; the next attempt is scheduled and started.
        if (!local) count(2, state);
        break;
      case 'StateFailed':
        if (!local) count(1, state);
        break;
      case 'StateExited':
        if (!local) {
          count(task ? 2 : 1, state);
          const big = tooBig(`the output of ${event.state.name}`, event.state.output);
          if (big !== undefined) fail(big, state);
        }
        break;
      case 'ExecutionSucceeded':
      case 'ExecutionFailed':
        count(1, undefined);
        break;
      default:
    }
  };

  // A redrive starts at the state that failed: the states before it are not reachable from there.
  const validationOptions = history === undefined ? { checkArn: false } : { noValidate: true };
  execution = new StateMachine(definition, { validationOptions }).run(/** @type {any} */ (input), {
    overrides: { taskResourceLocalHandlers: overridden, retryIntervalOverrides },
    ...(context === undefined ? {} : { context: /** @type {any} */ (context) }),
  });
  const logs = execution.eventLogs;
  (async () => {
    for await (const event of logs) onEvent(event);
  })();
  const result = Promise.race([
    execution.result.catch((/** @type {any} */ error) => {
      if (failure !== undefined) throw failure;
      failedIn ??= current;
      // The emulator wraps the state's error: the execution fails with the state's own.
      throw error?.name === 'ExecutionError' && error.cause instanceof Error ? error.cause : error;
    }),
    limited,
  ]);
  return { result, events: () => events, failedIn: () => failedIn, redrivable: () => redrivable, largest: () => largest };
}

/**
 * The task's answer, or States.Timeout once `ms` have passed (the invocation runs on, as on AWS).
 * @template T @param {Promise<T>} task @param {number} ms @returns {Promise<T>}
 */
function withTimeout(task, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(statesError('States.Timeout', `the task ran past its TimeoutSeconds (${ms} ms here)`)), ms);
  });
  task.catch(() => {});
  return /** @type {Promise<T>} */ (Promise.race([task, timeout]).finally(() => clearTimeout(timer)));
}

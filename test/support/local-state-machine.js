/**
 * The job's state machine (deploy/state-machine.cjs) run on aws-local-stepfunctions, an emulator of the
 * States language, with its Task states bound to the project's own step functions against the local
 * servers. The emulator runs a Distributed Map as an inline one: it has no ItemReader, ResultWriter or
 * failure tolerance, its iterations are no executions of their own, and one failed iteration fails the
 * whole Map. localDefinition() stands in for those parts, and only those, with states of this file's making:
 * - ReadShardList, before the Map: reads the JSON Lines shard list from the S3 emulator, as ItemReader
 *   (InputType JSONL) would, and hands the Map the items' indexes (the items stay out of the state, as
 *   AWS's ItemReader keeps them out);
 * - RunChild, the Map's only state: runs the item's child (the definition's ItemProcessor, the Map's
 *   ItemSelector applied to the item) as an execution of its own, with its own history and limits; a
 *   failed child is recorded as failed, and the Map goes on with the others, as a Distributed Map does;
 * - WriteResults, after the Map: writes the Map's results where and as AWS's ResultWriter writes them
 *   (result-writer.js, from AWS's documentation), then fails the Map past ToleratedFailurePercentage
 *   (States.ExceedToleratedFailureThreshold).
 * Every execution, the job's and each child, runs with Step Functions' limits (sfn-limits.js: 256 KiB
 * per state's data, 25,000 history events, a Task's TimeoutSeconds).
 * Redrive is run as AWS documents it for Standard children: only the failed children that can be
 * redriven (not past the history limit), each from the state it failed in with that state's input, its
 * history going on; then the steps after the Map.
 */
import { randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { StateMachine } from 'aws-local-stepfunctions';
import stateMachine from '../../deploy/state-machine.cjs';
import { planStep, segmentStep, summarizeStep } from '../../src/dispatch/step-functions/steps.js';
import { logger } from '../../src/observe/logger.js';
import { writeResultsAsAws } from './result-writer.js';
import { TOKENS } from './iam/principals.js';
import { s3As } from './local.js';
import { runLimited } from './sfn-limits.js';

/** The map run's id in the results' keys (AWS names each map run by an id of its own). */
export const LOCAL_MAP_RUN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

/** The states localDefinition() adds: no states of the execution on AWS, so not in its history. */
const LOCAL_STATES = new Set(['ReadShardList', 'RunChild', 'WriteResults']);

/** A Lambda function's Task state as lambda:invoke answers it. @param {(payload: any) => Promise<unknown>} step */
const asLambdaInvoke = (step) => async (/** @type {any} */ input) => /** @type {any} */ ({ StatusCode: 200, ExecutedVersion: '$LATEST', Payload: await step(input.Payload) });

/**
 * The definition with the Distributed Map's AWS-only parts replaced (see above), and the Map's child.
 * @param {any} definition @param {string} [mapName]
 * @returns {{ local: any, child: any, itemSelector: Record<string, unknown> }}
 */
export function localDefinition(definition, mapName = 'Shards') {
  const local = structuredClone(definition);
  const map = local.States[mapName];
  const { ItemReader, ResultWriter, ToleratedFailurePercentagePath, ResultPath, Next, ItemSelector, ItemProcessor } = map;
  const child = { StartAt: ItemProcessor.StartAt, States: ItemProcessor.States };
  for (const field of ['ItemReader', 'ResultWriter', 'ToleratedFailurePercentagePath', 'ToleratedFailurePercentage', 'Label']) delete map[field];
  Object.assign(map, {
    ItemsPath: '$.localItems',
    ItemSelector: { 'localIndex.$': '$$.Map.Item.Value' },
    ItemProcessor: { StartAt: 'RunChild', States: { RunChild: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:run-child', End: true } } },
    ResultPath: null,
    Next: 'WriteResults',
  });
  local.States.ReadShardList = { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:read-shard-list', Parameters: { reader: ItemReader, 'input.$': '$' }, ResultPath: '$.localItems', Next: mapName };
  local.States.WriteResults = { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:write-results', Parameters: { writer: ResultWriter, toleratedPath: ToleratedFailurePercentagePath, 'state.$': '$' }, ResultPath, Next };
  for (const state of Object.values(local.States)) {
    if (/** @type {any} */ (state).Next === mapName && state !== local.States.ReadShardList) /** @type {any} */ (state).Next = 'ReadShardList';
    // A Choice's way to the Map (Plan's "Planned?") goes through ReadShardList too.
    if (/** @type {any} */ (state).Default === mapName) /** @type {any} */ (state).Default = 'ReadShardList';
  }
  return { local, child, itemSelector: ItemSelector };
}

/**
 * A child's input: the Map's ItemSelector applied to its item (the selectors this definition uses).
 * @param {Record<string, unknown>} selector @param {unknown} item @param {number} index
 * @returns {Record<string, unknown>}
 */
function selectItem(selector, item, index) {
  return Object.fromEntries(
    Object.entries(selector).map(([key, value]) => {
      if (!key.endsWith('.$')) return [key, value];
      if (value === '$$.Map.Item.Value') return [key.slice(0, -2), item];
      if (value === '$$.Map.Item.Index') return [key.slice(0, -2), index];
      throw new Error(`the local Map applies $$.Map.Item.Value and $$.Map.Item.Index only, not ${String(value)}`);
    }),
  );
}

/**
 * The project's own steps as the functions run them, against the servers process.env names, with a hook
 * before each segment (a fault to inject: it throws).
 * @param {(shard: number) => void | Promise<void>} [beforeSegment]
 * @returns {Steps}
 */
export function projectSteps(beforeSegment = () => {}) {
  const env = process.env;
  return {
    // As the deployed functions run them (src/handler.js): the header by reference.
    plan: (event) => planStep(event.job, { env, headerByRef: true }),
    async segment(event) {
      await beforeSegment(event.shard.shard?.index ?? 0);
      return segmentStep(event, { logger, env, context: undefined, headerByRef: true });
    },
    summarize: (event) => summarizeStep(event, { logger, env }),
  };
}

/**
 * @typedef {object} Steps  the project's Lambda steps, as the functions would run them
 * @property {(event: any) => Promise<any>} plan
 * @property {(event: any) => Promise<any>} segment
 * @property {(event: any) => Promise<any>} summarize
 */

/**
 * One child execution of the Map, as the harness knows it.
 * @typedef {object} Child
 * @property {number} index  its item's
 * @property {string} name  its execution's name (AWS names children by an id of its own, not the index)
 * @property {string} input  its input as JSON text
 * @property {'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT'} status
 * @property {unknown} [output]
 * @property {string} [error]
 * @property {string} [cause]
 * @property {Date} startDate
 * @property {Date} [stopDate]
 * @property {number} redriveCount
 * @property {number} events  its history's
 * @property {number} largest  the most bytes of any of its states' input or output
 * @property {boolean} redrivable
 * @property {{ name: string, input: unknown }} [failedIn]
 */

/**
 * @param {{ s3: import('@aws-sdk/client-s3').S3Client, bucket: string, steps: Steps, secondMs?: number, recordsPerFile?: number }} options
 *   bucket: the output bucket; secondMs: how long a second of a Task's TimeoutSeconds lasts here (default
 *   1,000); recordsPerFile: the results split over files of this many children (AWS splits large ones)
 */
export function createLocalStateMachine({ s3: given, bucket, steps, secondMs, recordsPerFile }) {
  // The Map's own calls (ItemReader's GetObject, ResultWriter's PutObject) are the state machine role's,
  // judged by the IAM gate as such; `s3` is used only where no such client can be made (no gate).
  const s3 = process.env.AWS_SESSION_TOKEN === undefined ? given : s3As(TOKENS.stateMachine);
  const definition = stateMachine.stateMachineDefinition({ plan: 'arn:aws:lambda:us-east-1:000000000000:function:plan', segment: 'arn:aws:lambda:us-east-1:000000000000:function:segment', summarize: 'arn:aws:lambda:us-east-1:000000000000:function:summarize', bucket });
  const { local, child, itemSelector } = localDefinition(definition);
  /** The children of the last run, by item index. @type {Map<number, Child>} */
  const children = new Map();
  /** @type {unknown[]} */
  let items = [];
  /** What Plan answered: a redrive runs the Map again from it. @type {any} */
  let planned;
  let parentEvents = 0;

  const getText = async (/** @type {string} */ key) => (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body?.transformToString() ?? '';
  const retryIntervalOverrides = { Plan: 0, ImportSegment: 0, Summarize: 0 };
  const childHandlers = { ImportSegment: asLambdaInvoke(steps.segment) };

  /** @param {any} args */
  async function readShardList({ reader, input }) {
    if (reader.ReaderConfig.InputType !== 'JSONL') throw new Error(`the local ItemReader reads JSONL, not ${reader.ReaderConfig.InputType}`);
    planned = input;
    items = (await getText(input.shardList.key)).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
    return items.map((_, index) => index);
  }

  /** Runs (or, once it failed, redrives) one child to its end; never fails the Map. @param {{ localIndex: number }} args */
  async function runChild({ localIndex: index }) {
    const earlier = children.get(index);
    if (earlier?.status === 'SUCCEEDED' || (earlier !== undefined && !earlier.redrivable)) return null;
    const redrive = earlier?.failedIn !== undefined ? earlier : undefined;
    const input = selectItem(itemSelector, items[index], index);
    /** @type {Child} */
    const record = redrive === undefined
      ? { index, name: randomUUID(), input: JSON.stringify(input), status: 'RUNNING', startDate: new Date(), redriveCount: 0, events: 0, largest: 0, redrivable: true }
      : { ...redrive, status: 'RUNNING', redriveCount: redrive.redriveCount + 1, error: undefined, cause: undefined, stopDate: undefined };
    children.set(index, record);
    const from = redrive?.failedIn;
    const run = runLimited(StateMachine, from === undefined ? child : { ...child, StartAt: from.name }, from === undefined ? input : from.input, {
      handlers: childHandlers,
      retryIntervalOverrides,
      // A redriven execution's history goes on, with an ExecutionRedriven event.
      ...(redrive === undefined ? {} : { history: redrive.events }),
      ...(secondMs === undefined ? {} : { secondMs }),
    });
    try {
      record.output = await run.result;
      record.status = 'SUCCEEDED';
    } catch (error) {
      const { name, message } = /** @type {Error} */ (error);
      // A Lambda function's error reaches Step Functions as its type, and the error as JSON for cause.
      Object.assign(record, { status: name === 'States.Timeout' ? 'TIMED_OUT' : 'FAILED', error: name, cause: name.startsWith('States.') ? message : JSON.stringify({ errorType: name, errorMessage: message, trace: [] }), failedIn: run.failedIn(), redrivable: run.redrivable() });
    }
    // The execution's last event is read a tick behind its end.
    await new Promise((resolve) => setImmediate(resolve));
    record.events = run.events();
    record.largest = Math.max(record.largest, run.largest());
    record.stopDate = new Date();
    return null;
  }

  /** The results in the ResultWriter's layout, then the tolerance. @param {any} args */
  async function writeResults({ toleratedPath, state }) {
    const all = [...children.values()];
    const details = await writeResultsAsAws(s3, { bucket, prefix: state.results.prefix, mapRunArn: `arn:aws:states:us-east-1:000000000000:mapRun:job/Shards:${LOCAL_MAP_RUN}`, ...(recordsPerFile === undefined ? {} : { recordsPerFile }) }, all);
    const failed = all.filter((one) => one.status !== 'SUCCEEDED');
    const tolerated = Number(toleratedPath === undefined ? 0 : state[toleratedPath.slice(2)]);
    if (failed.length * 100 > tolerated * all.length) {
      throw Object.assign(new Error(`${failed.length} of ${all.length} shards failed: ${failed.map((one) => one.error).join(', ')}`), { name: 'States.ExceedToleratedFailureThreshold' });
    }
    return details;
  }

  const handlers = {
    Plan: asLambdaInvoke(steps.plan),
    Summarize: asLambdaInvoke(steps.summarize),
    ReadShardList: readShardList,
    RunChild: runChild,
    WriteResults: writeResults,
  };

  /** @param {any} definitionToRun @param {unknown} input @param {number | undefined} history */
  async function runParent(definitionToRun, input, history) {
    const context = { Execution: { Id: 'local', Name: 'local', RoleArn: 'local', StartTime: new Date().toISOString(), Input: input } };
    const run = runLimited(StateMachine, definitionToRun, input, { handlers, retryIntervalOverrides, context, localStates: LOCAL_STATES, ...(history === undefined ? {} : { history }), ...(secondMs === undefined ? {} : { secondMs }) });
    try {
      return await run.result;
    } finally {
      parentEvents = run.events();
    }
  }

  return {
    definition,
    /** Runs an execution with this input; rejects as the execution fails. @param {Record<string, unknown>} input */
    run(input) {
      children.clear();
      return runParent(local, input, undefined);
    },
    /** The failed children's indexes (shards), as the last run left them. */
    failed: () => [...children.values()].filter((one) => one.status !== 'SUCCEEDED').map((one) => one.index),
    /** The children of the last run (status, error, history events), by item index. */
    children: () => children,
    /**
     * Redrives the last execution: the Map again from Plan's answer, where each failed child that can be
     * redriven goes on from the state it failed in, then Summarize on the map run's results.
     */
    redrive() {
      if (planned === undefined) throw new Error('nothing to redrive: the execution failed before its Map');
      return runParent({ ...local, StartAt: 'ReadShardList' }, planned, parentEvents);
    },
  };
}

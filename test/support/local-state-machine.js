/**
 * The job's state machine (deploy/state-machine.cjs) run on aws-local-stepfunctions, an emulator of the
 * States language, with its Task states bound to the project's own step functions against the local
 * servers. The emulator runs a Distributed Map as an inline one: it has no ItemReader, ResultWriter or
 * failure tolerance, and one failed child fails the whole Map at once. localDefinition() stands in for
 * those three, and only those, with Task states of this file's making:
 * - ReadShardList, before the Map: reads the JSON Lines shard list from the S3 emulator, as ItemReader
 *   (InputType JSONL) would;
 * - a Catch on each child Task that marks the child failed (with the state it failed in) instead of
 *   ending the Map, as a Distributed Map lets its other children run;
 * - WriteResults, after the Map: writes manifest.json, SUCCEEDED_0.json and FAILED_0.json where and as
 *   the ResultWriter documents them, then fails the Map past ToleratedFailurePercentage.
 * Redrive is run as AWS documents it for Standard children: only the failed children, each from the
 * state it failed in (its last checkpoint), then the steps after the Map.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { StateMachine } from 'aws-local-stepfunctions';
import stateMachine from '../../deploy/state-machine.cjs';
import { writeMapResults } from '../../src/dispatch/map-results.js';
import { planStep, segmentStep, summarizeStep } from '../../src/dispatch/step-functions/steps.js';
import { logger } from '../../src/observe/logger.js';
import { bucketStore } from '../../src/state/output-store.js';
import { TOKENS } from './iam/principals.js';
import { s3As } from './local.js';

/** The map run's id in the results' keys (AWS uses the map run's own). */
export const LOCAL_MAP_RUN = 'local-map-run';

/** A Lambda function's Task state as lambda:invoke answers it. @param {(payload: any) => Promise<unknown>} step */
const asLambdaInvoke = (step) => async (/** @type {any} */ input) => /** @type {any} */ ({ StatusCode: 200, ExecutedVersion: '$LATEST', Payload: await step(input.Payload) });

/**
 * The definition with the Distributed Map's AWS-only parts replaced (see above).
 * @param {any} definition @param {string} [mapName]
 */
export function localDefinition(definition, mapName = 'Shards') {
  const local = structuredClone(definition);
  const map = local.States[mapName];
  const { ItemReader, ResultWriter, ToleratedFailurePercentagePath, ResultPath, Next } = map;
  for (const field of ['ItemReader', 'ResultWriter', 'ToleratedFailurePercentagePath', 'ToleratedFailurePercentage', 'Label']) delete map[field];
  delete map.ItemProcessor.ProcessorConfig;
  Object.assign(map, { ItemsPath: '$.localItems', ResultPath: '$.localResults', Next: 'WriteResults' });
  for (const state of Object.values(map.ItemProcessor.States)) {
    if (/** @type {any} */ (state).Type === 'Task') /** @type {any} */ (state).Catch = [{ ErrorEquals: ['States.ALL'], ResultPath: '$.localError', Next: 'LocalChildFailed' }];
  }
  map.ItemProcessor.States.LocalChildFailed = { Type: 'Pass', Parameters: { localFailed: true, 'state.$': '$', 'Error.$': '$.localError.Error', 'Cause.$': '$.localError.Cause' }, End: true };
  local.States.ReadShardList = { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:read-shard-list', Parameters: { reader: ItemReader, 'input.$': '$' }, ResultPath: '$.localItems', Next: mapName };
  local.States.WriteResults = { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:write-results', Parameters: { writer: ResultWriter, toleratedPath: ToleratedFailurePercentagePath, 'state.$': '$' }, ResultPath, Next };
  for (const state of Object.values(local.States)) {
    if (/** @type {any} */ (state).Next === mapName && state !== local.States.ReadShardList) /** @type {any} */ (state).Next = 'ReadShardList';
    if (/** @type {any} */ (state).Default === mapName) /** @type {any} */ (state).Default = 'ReadShardList';
  }
  return local;
}

/**
 * The project's own steps as the functions run them, against the servers process.env names, with a hook
 * before each segment (a fault to inject: it throws).
 * @param {(shard: number) => void} [beforeSegment]
 * @returns {Steps}
 */
export function projectSteps(beforeSegment = () => {}) {
  const env = process.env;
  return {
    plan: (event) => planStep(event.job, { env }),
    segment(event) {
      beforeSegment(event.shard.shard?.index ?? 0);
      return segmentStep(event, { logger, env, context: undefined });
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
 * The Map's own calls (ItemReader's GetObject, ResultWriter's PutObject) are the state machine role's,
 * judged by the IAM gate as such; `s3` is used only where no such client can be made (no gate).
 * @param {{ s3: import('@aws-sdk/client-s3').S3Client, bucket: string, steps: Steps }} options  bucket: the output bucket
 */
export function createLocalStateMachine({ s3: given, bucket, steps }) {
  const s3 = process.env.AWS_SESSION_TOKEN === undefined ? given : s3As(TOKENS.stateMachine);
  const definition = stateMachine.stateMachineDefinition({ plan: 'arn:aws:lambda:us-east-1:000000000000:function:plan', segment: 'arn:aws:lambda:us-east-1:000000000000:function:segment', summarize: 'arn:aws:lambda:us-east-1:000000000000:function:summarize', bucket });
  const local = localDefinition(definition);
  /** What each failed child was doing when it failed, by its item index: a redrive goes on from there. */
  /** @type {Map<number, { item: unknown, state: unknown }>} */
  const failedChildren = new Map();
  /** @type {any[]} */
  let lastResults = [];
  /** @type {any} */
  let plannedState;

  const getText = async (/** @type {string} */ key) => (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body?.transformToString() ?? '';

  /** @param {any} input */
  async function readShardList({ reader, input }) {
    if (reader.ReaderConfig.InputType !== 'JSONL') throw new Error(`the local ItemReader reads JSONL, not ${reader.ReaderConfig.InputType}`);
    const text = await getText(input.shardList.key);
    return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
  }

  /** The results in the ResultWriter's layout, then the tolerance. @param {any} input */
  async function writeResults({ toleratedPath, state }) {
    plannedState = state;
    lastResults = state.localResults.map((/** @type {any} */ result, /** @type {number} */ index) => childRecord(result, state.localItems[index], index));
    for (const [index, result] of state.localResults.entries()) if (result?.localFailed) failedChildren.set(index, { item: state.localItems[index], state: result.state });
    const details = await writeLayout(state.results.prefix, lastResults);
    const failed = lastResults.filter((record) => record.Status !== 'SUCCEEDED');
    const tolerated = Number(toleratedPath === undefined ? 0 : state[toleratedPath.slice(2)]);
    if (failed.length * 100 > tolerated * lastResults.length) {
      throw Object.assign(new Error(`${failed.length} of ${lastResults.length} shards failed: ${failed.map((record) => record.Error).join(', ')}`), { name: 'States.ExceedToleratedFailureThreshold' });
    }
    return details;
  }

  /** @param {string} prefix @param {any[]} records */
  const writeLayout = (prefix, records) => writeMapResults(bucketStore(s3, bucket), { bucket, prefix, mapRunArn: `arn:aws:states:us-east-1:000000000000:mapRun:job/Shards:${LOCAL_MAP_RUN}` }, records);

  const handlers = {
    Plan: asLambdaInvoke(steps.plan),
    ImportSegment: asLambdaInvoke(steps.segment),
    Summarize: asLambdaInvoke(steps.summarize),
    ReadShardList: readShardList,
    WriteResults: writeResults,
  };
  const overrides = { taskResourceLocalHandlers: handlers, retryIntervalOverrides: { Plan: 0, ImportSegment: 0, Summarize: 0 } };

  return {
    definition,
    /** Runs an execution with this input; rejects as the execution fails. @param {Record<string, unknown>} input */
    run(input) {
      failedChildren.clear();
      const context = { Execution: { Id: 'local', Name: 'local', RoleArn: 'local', StartTime: new Date().toISOString(), Input: input } };
      return new StateMachine(local, { validationOptions: { checkArn: false } }).run(/** @type {any} */ (input), { overrides, context: /** @type {any} */ (context) }).result;
    },
    /** The failed children's indexes (shards), as the last run left them. */
    failed: () => [...failedChildren.keys()],
    /**
     * Redrives the last execution: each failed child from the state it failed in, then Summarize on the
     * map run's results, now of every child.
     */
    async redrive() {
      const child = new StateMachine({ StartAt: 'ImportSegment', States: local.States.Shards.ItemProcessor.States }, { validationOptions: { checkArn: false } });
      for (const [index, { item, state }] of [...failedChildren]) {
        const result = await child.run(/** @type {any} */ (state), { overrides }).result;
        lastResults[index] = childRecord(result, item, index);
        if (!(/** @type {any} */ (result)?.localFailed)) failedChildren.delete(index);
      }
      const details = await writeLayout(plannedState.results.prefix, lastResults);
      if (failedChildren.size > 0) throw Object.assign(new Error(`${failedChildren.size} shards failed again`), { name: 'States.ExceedToleratedFailureThreshold' });
      return steps.summarize({ jobId: plannedState.jobId, job: plannedState.job, shards: plannedState.shards, results: details });
    },
  };
}

/**
 * One child as the ResultWriter writes it (Transformation NONE).
 * @param {any} result @param {unknown} item @param {number} index
 */
function childRecord(result, item, index) {
  const common = { ExecutionArn: `arn:aws:states:us-east-1:000000000000:execution:job/Shards:${index}`, Name: String(index), Input: JSON.stringify({ shard: item, segment: { done: false } }), StateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:job/Shards', StartDate: new Date().toISOString(), StopDate: new Date().toISOString() };
  if (result?.localFailed) return { ...common, Status: 'FAILED', Error: result.Error, Cause: result.Cause };
  return { ...common, Status: 'SUCCEEDED', Output: JSON.stringify(result) };
}

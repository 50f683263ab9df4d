/**
 * Lambda entry: event -> jobs -> an execution of the job's state machine each, or an import here.
 *
 * The event is an S3 ObjectCreated notification (each record is one import) or a direct payload
 * `{ "bucket": ..., "key": ..., ...options }`. Every job's options are validated before any I/O.
 * Deployed (STATE_MACHINE_NAME set), a job is an execution of the state machine, named by its job id, and
 * this answers at once; its Plan, ImportSegment and Summarize tasks are this file's other handlers. Off
 * AWS (the command line, `sls invoke local`), the job runs here: its segments one after the other, and a
 * sharded job's shards in local worker processes through the same three steps (dispatch/local-map.js).
 */
import { clientsFor } from './clients.js';
import { resolveConfig, runningInLambda } from './config/index.js';
import { ConfigError } from './errors.js';
import { runLocalJob } from './dispatch/local-map.js';
import { jobIdOfJob, wantsShards } from './plan/job-plan.js';
import { planStep, segmentStep, summarizeStep } from './dispatch/step-functions/steps.js';
import { dashboardLinkOf, sfnClient, startJobExecution, stateMachineArnOf } from './dispatch/step-functions/start.js';
import { bytesToCheck, checkFitsOnAws } from './dispatch/step-functions/limits.js';
import { runSegment } from './segment/run-segment.js';
import { runDryRun } from './dry-run/dry-run.js';
import { logger } from './observe/logger.js';

/** @typedef {import('./segment/run-segment.js').InvocationContext} InvocationContext */

/**
 * @param {unknown} event
 * @param {import('aws-lambda').Context | undefined} [context]
 */
export async function handler(event, context) {
  if (context !== undefined) logger.addContext(context);
  const jobs = jobsFromEvent(event).map((payload) => ({ payload, config: resolveConfig(payload, process.env) }));
  const results = [];
  const stateMachine = process.env.STATE_MACHINE_NAME;
  for (const { payload, config } of jobs) {
    // On AWS a job is an execution of the job's state machine (a dry run stays in this invocation).
    if (stateMachine !== undefined && stateMachine !== '' && !config.dryRun && context !== undefined && runningInLambda()) {
      results.push(await startJob(payload, config, stateMachineArnOf(context.invokedFunctionArn, stateMachine)));
      continue;
    }
    results.push(await runJob(payload, config, context));
  }
  return results.length === 1 ? results[0] : { imports: results };
}

/**
 * Starts the job's execution, named by its id, and answers at once with where to watch it.
 * @param {Record<string, unknown>} payload @param {import('./config/index.js').ImportConfig} config @param {string} stateMachineArn
 */
async function startJob(payload, config, stateMachineArn) {
  const { s3 } = clientsFor(config);
  checkFitsOnAws(payload, config, await bytesToCheck(config, s3));
  const jobId = await jobIdOfJob(config, s3);
  const started = await startJobExecution({ sfn: sfnClient(config.region, undefined), stateMachineArn, jobId, input: payload });
  const dashboard = process.env.JOBS_DASHBOARD;
  const answer = dashboard === undefined || dashboard === '' ? started : { ...started, dashboard: dashboardLinkOf(config.region, dashboard) };
  logger.info(started.started ? 'job started' : 'job already started', answer);
  return answer;
}

/** Step Functions' Plan task: the job's shard list. @param {{ job: Record<string, unknown> }} event @param {import('aws-lambda').Context} [context] */
export async function plan(event, context) {
  if (context !== undefined) logger.addContext(context);
  // In a Step Functions state (at most 256 KiB) the header goes by reference.
  return planStep(event.job, { env: process.env, context, headerByRef: true });
}

/**
 * Step Functions' ImportSegment task: one segment of one shard.
 * @param {Parameters<typeof segmentStep>[0]} event @param {import('aws-lambda').Context} [context]
 */
export async function segment(event, context) {
  if (context !== undefined) logger.addContext(context);
  return segmentStep(event, { logger, env: process.env, context, headerByRef: true });
}

/** Step Functions' Summarize task: the job's summary from its shards' results. @param {Parameters<typeof summarizeStep>[0]} event @param {import('aws-lambda').Context} [context] */
export async function summarize(event, context) {
  if (context !== undefined) logger.addContext(context);
  return summarizeStep(event, { logger, env: process.env });
}

/**
 * How a job is run off Lambda (the command line): where its lines go, and signals that stop it.
 * @typedef {object} RunOptions
 * @property {import('./types.js').Logger} [log]  default: the JSON logger
 * @property {AbortSignal} [stop]  stop reading at the next record boundary, let the writes end, return the checkpoint
 * @property {AbortSignal} [abandon]  give the writes going on up too; their rows are handed on with the checkpoint
 */

/**
 * Runs a job's segments until it is done, or (asked to stop, or out of a Lambda invocation's time)
 * returns where it stopped.
 * @param {Record<string, unknown>} payload  the job as it was asked for
 * @param {import('./config/index.js').ImportConfig} config
 * @param {InvocationContext | undefined} context
 * @param {RunOptions} [options]
 */
export async function runJob(payload, config, context, { log = logger, stop, abandon } = {}) {
  const clients = clientsFor(config);
  if (config.dryRun) return runDryRun(config, { clients, logger: log, stop });
  if (wantsShards(config)) {
    // Worker processes in a Lambda would outlive no deadline: its shards are the state machine's.
    if (context !== undefined && runningInLambda()) throw new ConfigError('shards', config.shards, 'a sharded job on AWS runs as an execution of the stack\'s state machine (STATE_MACHINE_NAME, which `sls deploy` sets): deploy the stack, or run the job with ddbload');
    const job = await runLocalJob(payload, config, { clients, logger: log, env: process.env, stop });
    if (job !== undefined) return job;
  }
  let current = config;
  for (;;) {
    const outcome = await runSegment(current, { clients, logger: log, context, stop, abandon });
    if (outcome.done) return outcome.summary;
    if (stop?.aborted) return { stopped: true, checkpoint: outcome.checkpoint };
    // A Lambda invocation without the state machine (which would run the next segment) has no time left.
    if (context !== undefined && runningInLambda()) {
      const note = `the invocation's time ran out: invoke the function again with this checkpoint in the payload to go on, or deploy the stack, whose state machine runs every segment`;
      log.warn('job stopped at the end of the invocation', { jobId: outcome.checkpoint.jobId, note });
      return { stopped: true, checkpoint: outcome.checkpoint, note };
    }
    current = resolveConfig({ ...payload, checkpoint: outcome.checkpoint }, process.env);
  }
}

/**
 * @param {unknown} event
 * @returns {Array<Record<string, unknown>>}
 */
export function jobsFromEvent(event) {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw new ConfigError('event', event, 'invoke with an S3 notification or a JSON object like {"bucket":"my-bucket","key":"imports/people.csv"}');
  }
  const records = /** @type {{ Records?: unknown }} */ (event).Records;
  if (records === undefined) return [/** @type {Record<string, unknown>} */ (event)];
  if (!Array.isArray(records) || records.length === 0) {
    throw new ConfigError('Records', records, 'an S3 notification carries a non-empty Records array');
  }
  return records.map((record, i) => {
    const s3 = record?.s3;
    if (typeof s3?.bucket?.name !== 'string' || typeof s3?.object?.key !== 'string') {
      throw new ConfigError(`Records[${i}]`, record?.eventSource ?? record, 'each record must be an S3 event with s3.bucket.name and s3.object.key');
    }
    // S3 notifications URL-encode keys, with "+" for spaces. The version the event announces is the one
    // imported: a quicker second upload has its own event, and must not be imported twice under this one.
    const { versionId, eTag } = s3.object;
    return {
      bucket: s3.bucket.name,
      key: decodeURIComponent(s3.object.key.replace(/\+/g, ' ')),
      ...(typeof versionId === 'string' && versionId !== '' && versionId !== 'null' ? { versionId } : {}),
      ...(typeof eTag === 'string' && eTag !== '' ? { etag: eTag } : {}),
    };
  });
}

/**
 * A worker process off AWS, standing in for a Step Functions child execution (local-map.js) or for one
 * invocation of a local burst (tools/burst.js). The payload comes in the SHARD_PAYLOAD environment
 * variable. A shard's payload loops ImportSegment (steps.js) until the shard is done, as the state
 * machine's child does, and tells the map its result over the IPC channel; a whole job runs as the
 * handler would run it. The shard's status object says how it went, its error included, even one thrown
 * before the shard's first status (a table that refuses the import); the exit code says whether.
 */
import { clientsFor } from './clients.js';
import { resolveConfig } from './config/index.js';
import { runJob } from './handler.js';
import { markShardFailed } from './state/job-status.js';
import { outputStoreFor } from './state/output-store.js';
import { logger } from './observe/logger.js';
import { JobRunningError } from './errors.js';
import { WORKER_REFUSED } from './dispatch/local-map.js';
import { segmentStep } from './dispatch/step-functions/steps.js';

const payload = JSON.parse(process.env.SHARD_PAYLOAD ?? 'null');
// Started by a command that is gone (killed): stop, rather than write on for no one. The shard's status
// names this process, so a reader sees at once that it is lost, and a re-run runs it again.
if (process.channel !== undefined) {
  process.channel.unref();
  process.once('disconnect', () => {
    logger.warn('worker stopped: the command that started it is gone', { shard: payload?.shard?.index, key: payload?.key });
    process.exit(1);
  });
}
try {
  if (payload?.shard === undefined) {
    await runJob(payload, resolveConfig(payload, process.env), undefined);
  } else {
    /** @type {import('./dispatch/step-functions/steps.js').SegmentState} */
    let segment = { done: false };
    while (!segment.done) segment = await segmentStep({ shard: payload, segment }, { logger, env: process.env, context: undefined });
    await tell({ output: segment.result });
  }
} catch (error) {
  logger.error('worker failed', { shard: payload?.shard?.index, key: payload?.key, error: String(error) });
  if (error instanceof JobRunningError) {
    // The shard's status is another run's, alive: it is not this worker's to mark failed.
    process.exitCode = WORKER_REFUSED;
  } else {
    await recordFailure(error).catch((statusError) => logger.error('job status not written', { shard: payload?.shard?.index, error: String(statusError) }));
    // The message as the job's error shows it: the error's class, then what it says.
    await tell({ error: { name: /** @type {Error} */ (error)?.name ?? 'Error', message: String(error) } });
    process.exitCode = 1;
  }
}

/** Tells the map that started this worker (if one did) how its shard went. @param {import('./dispatch/local-map.js').WorkerAnswer} answer */
function tell(answer) {
  const send = process.send?.bind(process);
  if (send === undefined || !process.connected) return Promise.resolve();
  return new Promise((resolve) => send(answer, undefined, {}, () => resolve(undefined)));
}

/** The shard's status says why it failed, so that the job's error names the reason. @param {unknown} error */
async function recordFailure(error) {
  if (payload?.shard === undefined) return;
  const config = resolveConfig(payload, process.env);
  await markShardFailed(outputStoreFor(config, clientsFor(config).s3), config.statusPrefix, payload.shard.jobId, payload.shard.index, String(error));
}

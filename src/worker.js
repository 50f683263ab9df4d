/**
 * A worker process off AWS, standing in for one Lambda invocation: a shard of a sharded job, or a
 * whole job of a local burst. The payload comes in the SHARD_PAYLOAD environment variable and runs as
 * the handler would run it (with its continuations in this process). Its status object says how it
 * went, its error included, even one thrown before the shard's first status (a table that refuses the
 * import); the exit code says whether.
 */
import { clientsFor } from './clients.js';
import { resolveConfig } from './config/index.js';
import { runJob } from './handler.js';
import { markShardFailed } from './state/job-status.js';
import { outputStoreFor } from './state/output-store.js';
import { logger } from './observe/logger.js';
import { JobRunningError } from './errors.js';
import { WORKER_REFUSED } from './dispatch/fan-out.js';

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
  await runJob(payload, resolveConfig(payload, process.env), undefined);
} catch (error) {
  logger.error('worker failed', { shard: payload?.shard?.index, key: payload?.key, error: String(error) });
  if (error instanceof JobRunningError) {
    // The shard's status is another run's, alive: it is not this worker's to mark failed.
    process.exitCode = WORKER_REFUSED;
  } else {
    await recordFailure(error).catch((statusError) => logger.error('job status not written', { shard: payload?.shard?.index, error: String(statusError) }));
    process.exitCode = 1;
  }
}

/** The shard's status says why it failed, so that the job's error names the reason. @param {unknown} error */
async function recordFailure(error) {
  if (payload?.shard === undefined) return;
  const config = resolveConfig(payload, process.env);
  await markShardFailed(outputStoreFor(config, clientsFor(config).s3), config.statusPrefix, payload.shard.jobId, payload.shard.index, String(error));
}

/**
 * A worker process off AWS, standing in for one Lambda invocation: a shard of a sharded job, or a
 * whole job of a local burst. The payload comes in the SHARD_PAYLOAD environment variable and runs as
 * the handler would run it (with its continuations in this process). Its status object says how it
 * went; the exit code says whether.
 */
import { resolveConfig } from './config.js';
import { runJob } from './handler.js';
import { logger } from './observe/logger.js';

const payload = JSON.parse(process.env.SHARD_PAYLOAD ?? 'null');
try {
  await runJob(payload, resolveConfig(payload, process.env), undefined);
} catch (error) {
  logger.error('worker failed', { shard: payload?.shard?.index, key: payload?.key, error: String(error) });
  process.exitCode = 1;
}

/**
 * A worker process for one shard of a sharded job run off AWS: the shard's payload comes in the
 * SHARD_PAYLOAD environment variable, and the shard runs as the Lambda handler would run it (with its
 * continuations in this process). Its status object says how it went; the exit code says whether.
 */
import { resolveConfig } from './config.js';
import { runJob } from './handler.js';
import { logger } from './logger.js';

const payload = JSON.parse(process.env.SHARD_PAYLOAD ?? 'null');
try {
  await runJob(payload, resolveConfig(payload, process.env), undefined);
} catch (error) {
  logger.error('shard failed', { shard: payload?.shard?.index, error: String(error) });
  process.exitCode = 1;
}

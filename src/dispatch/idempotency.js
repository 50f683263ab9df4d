/**
 * A duplicated event or invocation of a job is a no-op, as Powertools for AWS Lambda's idempotency
 * utility makes it, with its DynamoDB persistence table (IDEMPOTENCY_TABLE): asynchronous invocations
 * and S3 notifications are delivered at least once, and a second chain of one job would write its rows
 * again beside the first, out of order, into rejects files of the same names. The key is the job's
 * payload (an S3 event's bucket, key, ETag and version; a continuation's checkpoint; a shard's range):
 * - the same payload while it runs: this invocation returns at once, saying so;
 * - the same payload completed within `expiresAfterSeconds`: its result is returned again;
 * - a failed run leaves no record, so Lambda's retries run it again.
 * `runId` (any new value) in a payload runs an identical job again on purpose.
 */
import { IdempotencyAlreadyInProgressError, IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';

/** How long a completed job's result answers a duplicate of its payload. */
export const IDEMPOTENCY_SECONDS = 3_600;

/**
 * Runs `run(payload)` at most once at a time per payload, and once per payload within the expiry.
 * @template {Record<string, unknown>} R
 * @param {object} options
 * @param {string | undefined} options.table  the persistence table; undefined: every payload runs
 * @param {import('@aws-sdk/client-dynamodb').DynamoDBClient} options.dynamodb
 * @param {import('aws-lambda').Context | undefined} options.context  for the time an in-progress claim lasts
 * @param {import('../types.js').Logger} options.logger
 * @param {(payload: Record<string, unknown>) => Promise<R>} run
 * @returns {(payload: Record<string, unknown>) => Promise<R | { duplicate: true, note: string }>}
 */
export function runOncePerPayload({ table, dynamodb, context, logger }, run) {
  if (table === undefined) return run;
  const config = new IdempotencyConfig({ expiresAfterSeconds: IDEMPOTENCY_SECONDS });
  if (context !== undefined) config.registerLambdaContext(context);
  const once = makeIdempotent(run, { persistenceStore: new DynamoDBPersistenceLayer({ tableName: table, awsSdkV3Client: dynamodb }), config });
  return async (payload) => {
    try {
      return await once(payload);
    } catch (error) {
      if (!(error instanceof IdempotencyAlreadyInProgressError)) throw error;
      const note = 'another invocation is running this same job payload (a duplicated event or invocation): this one does nothing';
      logger.warn('duplicate job payload', { bucket: payload.bucket, key: payload.key, note });
      return { duplicate: true, note };
    }
  };
}

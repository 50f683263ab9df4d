/**
 * Lambda entry: event -> jobs -> imports -> summary.
 *
 * The event is an S3 ObjectCreated notification (each record is one import) or a direct payload
 * `{ "bucket": ..., "key": ..., ...options }`. Every job's options are validated before any I/O.
 */
import { clientsFor } from './clients.js';
import { ConfigError, resolveConfig } from './config.js';
import { runImport } from './import.js';
import { logger } from './logger.js';

/**
 * @param {unknown} event
 * @param {import('aws-lambda').Context | undefined} [context]
 */
export async function handler(event, context) {
  if (context !== undefined) logger.addContext(context);
  const configs = jobsFromEvent(event).map((job) => resolveConfig(job, process.env));
  const summaries = [];
  for (const config of configs) {
    summaries.push(await runImport(config, { clients: clientsFor(config), logger }));
  }
  return summaries.length === 1 ? summaries[0] : { imports: summaries };
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
    // S3 notifications URL-encode keys, with "+" for spaces.
    return { bucket: s3.bucket.name, key: decodeURIComponent(s3.object.key.replace(/\+/g, ' ')) };
  });
}

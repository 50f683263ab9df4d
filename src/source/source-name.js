/**
 * How an import's source is named: an S3 object (bucket and key) or a local file.
 */
import path from 'node:path';

/** @typedef {Pick<import('../config/index.js').ImportConfig, 'bucket' | 'key' | 'file'> & { prefix?: string }} SourceConfig */

/**
 * The source as a job id and generated keys name it: `bucket/key`, `bucket/prefix*` (every object under a
 * prefix), or `file://` and the absolute path.
 * @param {SourceConfig} config
 */
export const sourceId = (config) => (config.file !== undefined ? `file://${config.file}` : config.prefix !== undefined ? `${config.bucket}/${config.prefix}*` : `${config.bucket}/${config.key}`);

/** Where a person finds the source: s3://bucket/key, s3://bucket/prefix, or the file's path. @param {SourceConfig} config */
export const sourceWhere = (config) => config.file ?? `s3://${config.bucket}/${config.prefix ?? config.key}`;

/**
 * The source as a summary or a log line names it: bucket and key, or file (no field left undefined: a
 * summary is a Step Functions task's output, JSON, where an undefined field would vanish).
 * @param {SourceConfig} config
 */
export const sourceFields = (config) =>
  config.file !== undefined ? { file: config.file } : config.prefix !== undefined ? { bucket: /** @type {string} */ (config.bucket), prefix: config.prefix } : { bucket: /** @type {string} */ (config.bucket), key: /** @type {string} */ (config.key) };

/** The source's name in its rejects files' keys: the object key, or the file's name. @param {SourceConfig} config */
export const sourceName = (config) => (config.file !== undefined ? path.basename(config.file) : /** @type {string} */ (config.key));

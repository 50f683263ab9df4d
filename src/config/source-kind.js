/**
 * What kind of import a config names, and where it runs: facts the options' checks and the job's
 * planning both need.
 */

/**
 * A job over many objects: every object under a prefix, or every data file of a DynamoDB export (its
 * manifest-summary.json named as the key).
 * @param {{ prefix?: string, key?: string }} config
 */
export const isCollection = (config) => config.prefix !== undefined || (config.key !== undefined && isManifestSummary(config.key));

/** @param {string} key */
export const isManifestSummary = (key) => key === MANIFEST_SUMMARY || key.endsWith(`/${MANIFEST_SUMMARY}`);

/** The file a DynamoDB export to S3 writes beside its data, naming them. */
export const MANIFEST_SUMMARY = 'manifest-summary.json';


/** In Lambda, not under `sls invoke local`. */
export function runningInLambda() {
  return process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined && process.env.IS_LOCAL !== 'true';
}

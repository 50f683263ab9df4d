/**
 * A Distributed Map's results as its ResultWriter leaves them (Transformation NONE): under the prefix, a
 * folder per map run holding manifest.json and the files it lists, SUCCEEDED_n.json and FAILED_n.json,
 * each an array of child executions' records. Summarize reads this layout; the local map writes it.
 */

/**
 * One child execution's record: its input and, when it succeeded, its output, as JSON text (absent when
 * OutputDetails.Included is false); when it failed, its error and cause. AWS's records hold more
 * (ExecutionArn, RedriveStatus, dates...): these are the fields Summarize reads.
 * @typedef {{ Name?: string, Status: string, Input?: string, Output?: string, OutputDetails?: { Included?: boolean }, Error?: string, Cause?: string }} ChildResult
 */

/**
 * The shard a child ran, from its input ({ shard: <the shard's payload>, segment }): undefined for an
 * item that is a whole job (not cut), or an input that is not JSON.
 * @param {string | undefined} input
 * @returns {number | undefined}
 */
export function shardOfChild(input) {
  try {
    return JSON.parse(input ?? '{}')?.shard?.shard?.index;
  } catch {
    return undefined;
  }
}

/**
 * A failed Lambda task's cause is the function's error as JSON ({ errorType, errorMessage, trace }):
 * its message is what a person reads. Any other cause is shown as it is.
 * @param {string | undefined} cause
 */
export function causeOf(cause) {
  try {
    const error = JSON.parse(cause ?? '');
    return typeof error?.errorMessage === 'string' ? error.errorMessage : cause;
  } catch {
    return cause;
  }
}

/**
 * Writes the records in the layout, and answers what the Map's ResultPath receives.
 * @param {import('../state/output-store.js').OutputStore} store
 * @param {{ bucket: string, prefix: string, mapRunArn: string }} where  bucket: named in the manifest and the answer
 * @param {ChildResult[]} records
 * @returns {Promise<{ MapRunArn: string, ResultWriterDetails: { Bucket: string, Key: string } }>}
 */
export async function writeMapResults(store, { bucket, prefix, mapRunArn }, records) {
  const folder = `${prefix}/${mapRunArn.split(':').at(-1)}`;
  /** @type {Record<string, Array<{ Key: string, Size: number }>>} */
  const files = { SUCCEEDED: [], FAILED: [], PENDING: [] };
  for (const status of ['SUCCEEDED', 'FAILED']) {
    const these = records.filter((record) => (status === 'SUCCEEDED') === (record.Status === 'SUCCEEDED'));
    if (these.length === 0) continue;
    const key = `${folder}/${status}_0.json`;
    await store.putJson(key, these);
    files[status].push({ Key: key, Size: JSON.stringify(these).length });
  }
  const manifestKey = `${folder}/manifest.json`;
  await store.putJson(manifestKey, { DestinationBucket: bucket, MapRunArn: mapRunArn, ResultFiles: files });
  return { MapRunArn: mapRunArn, ResultWriterDetails: { Bucket: bucket, Key: manifestKey } };
}

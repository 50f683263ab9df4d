/**
 * A Distributed Map's results as AWS's ResultWriter writes them (Transformation NONE, OutputType JSON),
 * from its documentation (Step Functions developer guide, "ResultWriter (Map)": "Step Functions
 * consolidates all child workflow execution data, such as execution input and output, ARN, and
 * execution status. It then exports executions with the same status to their respective files"), not
 * from the project's own writer (src/dispatch/map-results.js), so that Summarize is tested against AWS's
 * format rather than its own round trip:
 * - under the ResultWriter's Prefix, a folder named by the map run's id (the last part of its ARN);
 * - manifest.json: { DestinationBucket, MapRunArn, ResultFiles: { FAILED, PENDING, SUCCEEDED } }, each a
 *   list of { Key, Size } (bytes), every status listed, empty when it has no file;
 * - SUCCEEDED_<n>.json, FAILED_<n>.json (failed, timed out and aborted children), PENDING_<n>.json: each a
 *   JSON array of child executions' records, in no order of the items: ExecutionArn, Input (the child's
 *   input as JSON text), InputDetails { Included }, Name (an id of AWS's, not the item's index), Output
 *   and OutputDetails (succeeded only), Error and Cause (failed only), RedriveCount, RedriveStatus,
 *   RedriveStatusReason, StartDate, StateMachineArn, Status, StopDate;
 * - the Map state's output: { MapRunArn, ResultWriterDetails: { Bucket, Key: <the manifest's key> } }.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';

/**
 * A child execution as the harness knows it.
 * @typedef {{ name: string, input: string, status: string, output?: unknown, error?: string, cause?: string, startDate: Date, stopDate?: Date, redriveCount: number, redrivable: boolean, outputIncluded?: boolean }} ChildRun
 */

/**
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {{ bucket: string, prefix: string, mapRunArn: string, recordsPerFile?: number }} where  recordsPerFile: split files (AWS splits large results)
 * @param {ChildRun[]} children
 */
export async function writeResultsAsAws(s3, { bucket, prefix, mapRunArn, recordsPerFile = Infinity }, children) {
  const folder = `${prefix}/${mapRunArn.split(':').at(-1)}`;
  const childArn = (/** @type {string} */ name) => `${mapRunArn.replace(':mapRun:', ':execution:')}:${name}`;
  const stateMachineArn = mapRunArn.replace(':mapRun:', ':stateMachine:');
  // In the order the children ended: the files keep no order of the items.
  const ended = [...children].sort((a, b) => (a.stopDate?.getTime() ?? 0) - (b.stopDate?.getTime() ?? 0));
  /** @type {Record<string, Array<{ Key: string, Size: number }>>} */
  const ResultFiles = { FAILED: [], PENDING: [], SUCCEEDED: [] };
  for (const status of /** @type {const} */ (['SUCCEEDED', 'FAILED', 'PENDING'])) {
    const records = ended.filter((child) => fileOf(child.status) === status).map((child) => record(child, childArn(child.name), stateMachineArn));
    for (let n = 0, from = 0; from < records.length; n++, from += recordsPerFile) {
      const key = `${folder}/${status}_${n}.json`;
      const body = JSON.stringify(records.slice(from, from + recordsPerFile));
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/json' }));
      ResultFiles[status].push({ Key: key, Size: Buffer.byteLength(body, 'utf8') });
    }
  }
  const manifestKey = `${folder}/manifest.json`;
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: manifestKey, Body: JSON.stringify({ DestinationBucket: bucket, MapRunArn: mapRunArn, ResultFiles }), ContentType: 'application/json' }));
  return { MapRunArn: mapRunArn, ResultWriterDetails: { Bucket: bucket, Key: manifestKey } };
}

/** The file a child's status goes to. @param {string} status */
const fileOf = (status) => (status === 'SUCCEEDED' ? 'SUCCEEDED' : status === 'PENDING' ? 'PENDING' : 'FAILED');

/** @param {ChildRun} child @param {string} executionArn @param {string} stateMachineArn */
function record(child, executionArn, stateMachineArn) {
  const succeeded = child.status === 'SUCCEEDED';
  const redrive = succeeded
    ? { RedriveStatus: 'NOT_REDRIVABLE', RedriveStatusReason: 'Execution is SUCCEEDED and cannot be redriven' }
    : child.redrivable ? { RedriveStatus: 'REDRIVABLE' } : { RedriveStatus: 'NOT_REDRIVABLE', RedriveStatusReason: 'Execution history event limit exceeded' };
  const included = child.outputIncluded !== false;
  return {
    ExecutionArn: executionArn,
    Input: child.input,
    InputDetails: { Included: true },
    Name: child.name,
    ...(succeeded ? { ...(included ? { Output: JSON.stringify(child.output) } : {}), OutputDetails: { Included: included } } : { Error: child.error, Cause: child.cause }),
    RedriveCount: child.redriveCount,
    ...redrive,
    StartDate: child.startDate.toISOString(),
    StateMachineArn: stateMachineArn,
    Status: child.status,
    ...(child.stopDate === undefined ? {} : { StopDate: child.stopDate.toISOString() }),
  };
}

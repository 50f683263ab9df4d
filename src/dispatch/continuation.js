/**
 * Hands a job on to a new asynchronous invocation of this same function, with its checkpoint (or a
 * shard, with its range), after checking that the payload fits.
 */
import { AwsCallError, JobError } from '../errors.js';

/**
 * Largest payload sent: Lambda takes up to 1 MB in an asynchronous invocation; this leaves room for the
 * envelope of the on-failure record that carries the payload to the queue.
 */
export const MAX_ASYNC_PAYLOAD_BYTES = 1_000_000;

/** @typedef {import('@aws-sdk/client-lambda').LambdaClient} LambdaClient */

/** @type {Map<string, LambdaClient>} */
const clients = new Map();

/**
 * @param {Pick<import('../config/index.js').ImportConfig, 'region' | 'lambdaEndpoint'>} config
 * @param {string} functionArn  this invocation's own ARN (with its qualifier, if any)
 * @param {Record<string, unknown>} payload
 */
export async function invokeSelf(config, functionArn, payload) {
  const body = JSON.stringify(payload);
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_ASYNC_PAYLOAD_BYTES) {
    const headerBytes = Buffer.byteLength(JSON.stringify(/** @type {any} */ (payload).checkpoint?.header ?? /** @type {any} */ (payload).shard?.header ?? []));
    throw new JobError(
      `the payload to continue the job is ${bytes} bytes, over the ${MAX_ASYNC_PAYLOAD_BYTES} an asynchronous invocation may carry (the header takes ${headerBytes}); ` +
        'shorten the column names, or import the file in one invocation (no shards, and a segmentMs long enough) or from a machine with the command line',
    );
  }
  // Loaded when first needed: most imports never hand over, and the client costs memory.
  const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
  const cacheKey = `${config.region} ${config.lambdaEndpoint}`;
  let lambda = clients.get(cacheKey);
  if (lambda === undefined) {
    lambda = new LambdaClient({ region: config.region, endpoint: config.lambdaEndpoint });
    clients.set(cacheKey, lambda);
  }
  try {
    await lambda.send(new InvokeCommand({ FunctionName: functionArn, InvocationType: 'Event', Payload: body }));
  } catch (error) {
    throw new AwsCallError(`invoke ${functionArn} to continue the job`, error, 'lambda:InvokeFunction on itself', `. To resume by hand, invoke it with this payload: ${body}`);
  }
}

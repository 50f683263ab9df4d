/**
 * Hands a job on to a new asynchronous invocation of this same function, with its checkpoint.
 */
import { AwsCallError } from '../errors.js';

/** @typedef {import('@aws-sdk/client-lambda').LambdaClient} LambdaClient */

/** @type {Map<string, LambdaClient>} */
const clients = new Map();

/**
 * @param {Pick<import('../config.js').ImportConfig, 'region' | 'lambdaEndpoint'>} config
 * @param {string} functionArn  this invocation's own ARN (with its qualifier, if any)
 * @param {Record<string, unknown>} payload
 */
export async function invokeSelf(config, functionArn, payload) {
  // Loaded when first needed: most imports never hand over, and the client costs memory.
  const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
  const cacheKey = `${config.region} ${config.lambdaEndpoint}`;
  let lambda = clients.get(cacheKey);
  if (lambda === undefined) {
    lambda = new LambdaClient({ region: config.region, endpoint: config.lambdaEndpoint });
    clients.set(cacheKey, lambda);
  }
  try {
    await lambda.send(new InvokeCommand({ FunctionName: functionArn, InvocationType: 'Event', Payload: JSON.stringify(payload) }));
  } catch (error) {
    throw new AwsCallError(`invoke ${functionArn} to continue the job`, error, 'lambda:InvokeFunction on itself', `. To resume by hand, invoke it with this payload: ${JSON.stringify(payload)}`);
  }
}

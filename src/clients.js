/**
 * SDK clients for one import: keep-alive sockets sized to the write window, endpoint overrides for
 * local mode. Clients are cached per settings so a warm Lambda reuses its open connections.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import http from 'node:http';
import https from 'node:https';

/** @typedef {{ dynamodb: DynamoDBClient, s3: S3Client }} Clients */

/** @type {Map<string, Clients>} */
const cache = new Map();

/**
 * @param {Pick<import('./config.js').ImportConfig, 'region' | 'concurrency' | 'requestTimeoutMs' | 'dynamodbEndpoint' | 's3Endpoint'>} config
 * @returns {Clients}
 */
export function clientsFor(config) {
  const cacheKey = JSON.stringify([config.region, config.concurrency, config.requestTimeoutMs, config.dynamodbEndpoint, config.s3Endpoint]);
  let clients = cache.get(cacheKey);
  if (clients === undefined) {
    clients = createClients(config);
    cache.set(cacheKey, clients);
  }
  return clients;
}

/**
 * @param {Pick<import('./config.js').ImportConfig, 'region' | 'concurrency' | 'requestTimeoutMs' | 'dynamodbEndpoint' | 's3Endpoint'>} config
 * @returns {Clients}
 */
export function createClients(config) {
  // One socket per call in flight, plus a few for retries that overlap a closing socket.
  const agentOptions = { keepAlive: true, maxSockets: config.concurrency + 8 };
  const dynamodb = new DynamoDBClient({
    region: config.region,
    endpoint: config.dynamodbEndpoint,
    // The batch writer owns retries: it must see throttles and UnprocessedItems to count them and
    // back off once, not under a second, hidden retry loop.
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent(agentOptions),
      httpsAgent: new https.Agent(agentOptions),
      connectionTimeout: 3_000,
      // A call with no answer in time is abandoned and retried like a 5xx (a put is idempotent).
      // Without throwOnRequestTimeout the SDK only logs a warning and waits on.
      requestTimeout: config.requestTimeoutMs,
      throwOnRequestTimeout: true,
    }),
  });
  // The SDK's logger middleware builds a redacted copy of every request (all 25 items, walked through
  // the schema) for a logger that by default discards it: 12% of the import's CPU. Nothing here reads it.
  dynamodb.middlewareStack.remove('loggerMiddleware');
  serializeBatchWritesAsJson(dynamodb);
  const s3 = new S3Client({
    region: config.region,
    endpoint: config.s3Endpoint,
    forcePathStyle: config.s3Endpoint !== undefined,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ keepAlive: true }),
      httpsAgent: new https.Agent({ keepAlive: true }),
      connectionTimeout: 3_000,
      // No time limit on a request as a whole: an upload part may take long. A GetObject that stalls
      // is handled by s3-source.js, which times the wait for its headers and for each chunk.
    }),
  });
  return { dynamodb, s3 };
}

/**
 * The SDK serializes each request by walking the operation's schema member by member, a tenth of the
 * import's CPU. A BatchWriteItem built here holds only plain JSON values (S, N and BOOL strings and
 * booleans, no binary, no dates), whose wire form is exactly JSON.stringify's. So the SDK builds the
 * request (endpoint, path, headers) from an empty input, and the body is the input as JSON.
 * test/clients.test.js checks the body against the SDK's own serialization.
 * @param {DynamoDBClient} dynamodb
 */
export function serializeBatchWritesAsJson(dynamodb) {
  const protocol = /** @type {any} */ (dynamodb.config).protocol;
  const serializeRequest = protocol.serializeRequest.bind(protocol);
  protocol.serializeRequest = async (/** @type {any} */ operation, /** @type {any} */ input, /** @type {any} */ context) => {
    if (operation.name !== 'BatchWriteItem') return serializeRequest(operation, input, context);
    const request = await serializeRequest(operation, {}, context);
    request.body = JSON.stringify(input);
    return request;
  };
}


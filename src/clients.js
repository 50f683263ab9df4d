/**
 * Clients for one import: the SDK's for S3 and DynamoDB's other calls, and the lean BatchWriteItem
 * client (batch-write-client.js) with keep-alive sockets sized to the write window; endpoint overrides
 * for local mode. Clients are cached per settings so a warm Lambda reuses its open connections.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import http from 'node:http';
import https from 'node:https';
import { createBatchWriteClient } from './write/batch-write-client.js';

/** @typedef {{ dynamodb: DynamoDBClient, s3: S3Client, batchWrite: import('./write/batch-write-client.js').BatchWriteClient }} Clients */

/** @type {Map<string, Clients>} */
const cache = new Map();

/**
 * @param {Pick<import('./config/index.js').ImportConfig, 'region' | 'tableRegion' | 'concurrency' | 'requestTimeoutMs' | 'dynamodbEndpoint' | 's3Endpoint'>} config
 * @returns {Clients}
 */
export function clientsFor(config) {
  const cacheKey = JSON.stringify([config.region, config.tableRegion, config.concurrency, config.requestTimeoutMs, config.dynamodbEndpoint, config.s3Endpoint]);
  let clients = cache.get(cacheKey);
  if (clients === undefined) {
    clients = createClients(config);
    cache.set(cacheKey, clients);
  }
  return clients;
}

/**
 * @param {Pick<import('./config/index.js').ImportConfig, 'region' | 'tableRegion' | 'concurrency' | 'requestTimeoutMs' | 'dynamodbEndpoint' | 's3Endpoint'>} config
 * @returns {Clients}
 */
export function createClients(config) {
  // The table may live in another region than the function (TABLE_REGION).
  const dynamodb = new DynamoDBClient({
    region: config.tableRegion,
    endpoint: config.dynamodbEndpoint,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 3_000, requestTimeout: config.requestTimeoutMs, throwOnRequestTimeout: true }),
  });
  const batchWrite = createBatchWriteClient({
    endpoint: () => sdkEndpoint(dynamodb, config),
    region: config.tableRegion,
    credentials: dynamodb.config.credentials,
    // A call with no answer in time is abandoned and retried like a 5xx (a put is idempotent).
    requestTimeoutMs: config.requestTimeoutMs,
    // One socket per call in flight, plus a few for retries that overlap a closing socket.
    maxSockets: config.concurrency + 8,
    clock: dynamodb.config,
  });
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
  return { dynamodb, s3, batchWrite };
}

/**
 * Where the SDK's DynamoDB client sends its calls, so that BatchWriteItem goes to the same place as
 * DescribeTable: the override, else an endpoint configured for the SDK (AWS_ENDPOINT_URL_DYNAMODB,
 * AWS_ENDPOINT_URL or endpoint_url in the shared config file, unless AWS_IGNORE_CONFIGURED_ENDPOINT_URLS),
 * else the SDK's endpoint rules with its FIPS and dual-stack settings (AWS_USE_FIPS_ENDPOINT, ...).
 * @param {DynamoDBClient} dynamodb
 * @param {Pick<import('./config/index.js').ImportConfig, 'tableRegion' | 'dynamodbEndpoint'>} config
 */
async function sdkEndpoint(dynamodb, config) {
  if (config.dynamodbEndpoint !== undefined) return new URL(config.dynamodbEndpoint);
  const configured = dynamodb.config.ignoreConfiguredEndpointUrls ? undefined : await dynamodb.config.serviceConfiguredEndpoint?.();
  if (configured !== undefined) return new URL(configured);
  return dynamodb.config.endpointProvider({ Region: config.tableRegion, UseFIPS: await dynamodb.config.useFipsEndpoint(), UseDualStack: await dynamodb.config.useDualstackEndpoint() }).url;
}

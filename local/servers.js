/**
 * The local stand-in for AWS: dynalite (DynamoDB, in a process of its own) and the S3 emulator on
 * loopback, with the target table and the source bucket created. Used by `npm start`, `--local`, the
 * burst tool, the bench and the test setup. Everything started here is stopped by stop(), and also on
 * process exit, errors and Ctrl-C; if one server fails to start, the other is stopped before the error
 * (which names the server, the cause and the fix) is thrown.
 */
import { CreateTableCommand, DynamoDBClient, ScanCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { startDynalite } from './dynalite.js';
import { S3RVER_CREDENTIALS, startS3Emulator } from './s3-emulator.js';
import { writeLocalSession } from './session.js';

export const LOCAL_REGION = 'us-east-1';

/**
 * @typedef {object} LocalServers
 * @property {string} dynamodbEndpoint
 * @property {string} s3Endpoint
 * @property {Record<string, string>} env   what the handler needs to talk to these servers
 * @property {DynamoDBClient} dynamodb
 * @property {S3Client} s3
 * @property {(table: string, keys?: TableKeys) => Promise<void>} createTable
 * @property {() => Promise<void>} stop
 * @property {() => string} dynamodbOutput  the tail of the local DynamoDB's output
 */

/** @typedef {{ partition: { name: string, type: 'S' | 'N' | 'B' }, sort?: { name: string, type: 'S' | 'N' | 'B' } }} TableKeys */

/** Sets the credentials both local servers accept; the SDK's default chain reads them. */
export function useLocalCredentials() {
  process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
}

/**
 * @typedef {object} ServerStarters  how each server starts (tests make one fail)
 * @property {() => ReturnType<typeof startDynalite>} [dynamodb]
 * @property {(buckets: string[]) => ReturnType<typeof startS3Emulator>} [s3]
 */

/**
 * @param {{ buckets: string[], tables?: string[], dynamodbPath?: string, starters?: ServerStarters }} options
 *   dynamodbPath: a directory that keeps the local tables between runs (default: in memory)
 * @returns {Promise<LocalServers>}
 */
export async function startLocalServers({ buckets, tables = [], dynamodbPath, starters = {} }) {
  useLocalCredentials();
  const startDynamoDB = starters.dynamodb ?? (() => startDynalite({ path: dynamodbPath }));
  const startS3 = starters.s3 ?? startS3Emulator;
  const [dynamoStarted, s3Started] = await Promise.allSettled([startDynamoDB(), startS3(buckets)]);
  if (dynamoStarted.status === 'rejected' || s3Started.status === 'rejected') {
    // Whatever did start is stopped: a failed start leaves nothing running, and the process can exit.
    await Promise.allSettled([dynamoStarted.status === 'fulfilled' ? dynamoStarted.value.stop() : undefined, s3Started.status === 'fulfilled' ? s3Started.value.stop() : undefined]);
    const reasons = [dynamoStarted, s3Started].flatMap((started) => (started.status === 'rejected' ? [/** @type {Error} */ (started.reason).message] : []));
    throw new Error(`the local servers could not start: ${reasons.join('; ')}`);
  }
  const dynamoLocal = dynamoStarted.value;
  const s3Emulator = s3Started.value;
  const credentials = S3RVER_CREDENTIALS;
  const dynamodb = new DynamoDBClient({ region: LOCAL_REGION, endpoint: dynamoLocal.endpoint, credentials });
  const s3 = new S3Client({ region: LOCAL_REGION, endpoint: s3Emulator.endpoint, forcePathStyle: true, credentials });

  let stopped = false;
  async function stop() {
    if (stopped) return;
    stopped = true;
    process.off('exit', stopNow);
    dynamodb.destroy();
    s3.destroy();
    await Promise.allSettled([dynamoLocal.stop(), s3Emulator.stop()]);
  }
  // On a plain exit only synchronous work runs: the server's IPC channel closes with this process anyway.
  function stopNow() {
    void stop();
  }
  process.on('exit', stopNow);

  /** @type {LocalServers['createTable']} */
  const createTableHere = (table, keys) => createTable(dynamodb, table, keys);

  try {
    for (const table of tables) await createTableHere(table);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    dynamodbEndpoint: dynamoLocal.endpoint,
    s3Endpoint: s3Emulator.endpoint,
    env: {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      DYNAMODB_ENDPOINT: dynamoLocal.endpoint,
      S3_ENDPOINT: s3Emulator.endpoint,
    },
    dynamodb,
    s3,
    createTable: createTableHere,
    stop,
    dynamodbOutput: dynamoLocal.recentOutput,
  };
}

/**
 * The keys of a table an import with these options writes to: its key columns, N when typed so, else S.
 * @param {Pick<import('../src/config/index.js').ImportConfig, 'keyColumn' | 'sortKeyColumn' | 'columnTypes'>} config
 * @returns {TableKeys}
 */
export function tableKeysOf(config) {
  const typeOf = (/** @type {string} */ column) => (config.columnTypes[column] === 'N' ? /** @type {const} */ ('N') : /** @type {const} */ ('S'));
  return {
    partition: { name: config.keyColumn, type: typeOf(config.keyColumn) },
    ...(config.sortKeyColumn === undefined ? {} : { sort: { name: config.sortKeyColumn, type: typeOf(config.sortKeyColumn) } }),
  };
}

/**
 * Creates an on-demand table and waits until it is active.
 * @param {DynamoDBClient} dynamodb
 * @param {string} table
 * @param {TableKeys} [keys]  default: partition key id, a string
 */
export async function createTable(dynamodb, table, keys = { partition: { name: 'id', type: 'S' } }) {
  const attributes = [keys.partition, ...(keys.sort ? [keys.sort] : [])];
  await dynamodb.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: attributes.map((key) => ({ AttributeName: key.name, AttributeType: key.type })),
      KeySchema: [
        { AttributeName: keys.partition.name, KeyType: 'HASH' },
        ...(keys.sort ? [{ AttributeName: keys.sort.name, KeyType: /** @type {const} */ ('RANGE') }] : []),
      ],
    }),
  );
  // dynalite makes a table ACTIVE just after it answers CREATING: look again soon, not after the waiter's default 20 s.
  await waitUntilTableExists({ client: dynamodb, maxWaitTime: 30, minDelay: 0.05, maxDelay: 1 }, { TableName: table });
}

/**
 * Stops the servers on Ctrl-C and termination, then exits with the conventional code.
 * @param {LocalServers} servers
 */
export function stopOnSignals(servers) {
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the local servers...\n`);
      servers.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
}

/**
 * The servers for a command a person runs (`npm start`, `npm run burst`): started, stopped on Ctrl-C, and
 * announced to `npm run status` in another terminal (session.js) until `close()`.
 * @param {string} bucket
 * @param {(message: string) => void} log
 * @returns {Promise<LocalServers & { close: () => Promise<void> }>}
 */
export async function startLocalSession(bucket, log) {
  log('Starting the local DynamoDB (dynalite) and the S3 emulator on 127.0.0.1...');
  const servers = await startLocalServers({ buckets: [bucket] });
  stopOnSignals(servers);
  const removeSession = writeLocalSession({ s3Endpoint: servers.s3Endpoint, region: LOCAL_REGION, bucket, credentials: S3RVER_CREDENTIALS });
  return {
    ...servers,
    async close() {
      removeSession();
      await servers.stop();
    },
  };
}

/**
 * Items in a table, counted by a Scan: dynalite's DescribeTable says ItemCount 0 whatever the table holds
 * (DynamoDB's is refreshed about every six hours).
 * @param {DynamoDBClient} dynamodb @param {string} table
 */
export async function countItems(dynamodb, table) {
  let count = 0;
  /** @type {Record<string, any> | undefined} */
  let startKey;
  do {
    const page = await dynamodb.send(new ScanCommand({ TableName: table, Select: 'COUNT', ExclusiveStartKey: startKey }));
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return count;
}

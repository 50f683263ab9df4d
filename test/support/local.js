/**
 * Test access to the local servers started by global-setup.js: clients, fresh tables, uploads.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';
import { startDynalite } from '../../local/dynalite.js';
import { createTable as createLocalTable } from '../../local/servers.js';
import { TEST_BUCKET } from './global-setup.js';
import { startIamGate } from './iam/gate.js';
import { TEST_STACK } from './iam/packaged-template.js';
import { TOKENS } from './iam/principals.js';

export { TEST_BUCKET };

/** The stack's table name: every table a test makes (createTable) stands for it before the IAM gate. */
export const STACK_TABLE = `${TEST_STACK.service}-${TEST_STACK.stage}-items`;
const TEST_TABLE = /^t-[0-9a-f-]{36}$/;


/** @returns {Record<string, string>} */
export function localEnv() {
  return /** @type {any} */ (inject)('localEnv');
}

/** The IAM gate's principals, by session token (global-setup.js). @returns {Record<string, import('./iam/gate.js').Principal>} */
export function iamPrincipals() {
  return /** @type {any} */ (inject)('iamPrincipals');
}

/**
 * An IAM gate (iam/gate.js) in front of a local server, judging calls by the stack's policies, in the
 * account and region the tests stand for; a test's own tables stand for the stack's table.
 * @param {import('./iam/aws-requests.js').Service} service @param {string} target
 * @param {{ kmsKeys?: Record<string, string>, principals?: Record<string, import('./iam/gate.js').Principal> }} [options]
 */
export function startGate(service, target, { kmsKeys, principals = iamPrincipals() } = {}) {
  const tableOf = (/** @type {string} */ name) => (TEST_TABLE.test(name) ? STACK_TABLE : name);
  return startIamGate({ service, target, principals, place: { account: TEST_STACK.account, region: TEST_STACK.region, tableOf }, kmsKeys });
}

/**
 * An S3 client of the process's local servers with the credentials of a principal the IAM gate knows
 * (principals.js TOKENS): the state machine's own calls (ItemReader, ResultWriter) are made with it.
 * @param {string} token
 */
export function s3As(token) {
  const env = process.env;
  const credentials = { accessKeyId: String(env.AWS_ACCESS_KEY_ID), secretAccessKey: String(env.AWS_SECRET_ACCESS_KEY), sessionToken: token };
  return new S3Client({ region: env.AWS_REGION, endpoint: env.S3_ENDPOINT, forcePathStyle: true, credentials });
}

/**
 * Points this process's SDK at the local servers and returns clients for the test's own checks. The S3
 * emulator is the run's (global-setup.js); the local DynamoDB is this test file's own, started before its
 * first test and stopped after its last: one shared by the whole run held every table of every file, and
 * its calls grew slower as it filled. `env.DYNAMODB_ENDPOINT` is set once it has started.
 *
 * Both are reached through an IAM gate (iam/gate.js), on unless `iamGate: false`: the process's
 * credentials carry the function role's session token (AWS_SESSION_TOKEN), so that every call the
 * handlers make here is judged by the function's policies from the packaged template, as on Lambda. The
 * clients returned (and `env` without the token) are the test's own, as the account's administrator.
 * `gates` holds the two gates once started: a test reads what they judged and denied.
 * @param {{ iamGate?: boolean }} [options]
 */
export function useLocalServers({ iamGate = true } = {}) {
  // Its servers start in a beforeAll, which a call inside a running test would never reach.
  if (expect.getState().currentTestName !== undefined) throw new Error('call useLocalServers() at the top of the test file or of a describe block, not inside a test');
  const env = { ...localEnv() };
  const credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY };
  /** @type {import('../../local/dynalite.js').LocalDynamoDB | undefined} */
  let server;
  /** @type {{ s3?: Awaited<ReturnType<typeof startGate>>, dynamodb?: Awaited<ReturnType<typeof startGate>> }} */
  const gates = {};
  beforeAll(async () => {
    server = await startDynalite();
    env.DYNAMODB_ENDPOINT = server.endpoint;
    if (iamGate) {
      gates.s3 = await startGate('s3', env.S3_ENDPOINT);
      gates.dynamodb = await startGate('dynamodb', server.endpoint);
      env.S3_ENDPOINT = gates.s3.endpoint;
      env.DYNAMODB_ENDPOINT = gates.dynamodb.endpoint;
      // As a Lambda function's credentials: its role's session. useCleanups restores it after each test.
      env.AWS_SESSION_TOKEN = TOKENS.function;
    }
    Object.assign(process.env, env);
  });
  afterEach(() => {
    gates.s3?.reset();
    gates.dynamodb?.reset();
  });
  afterAll(async () => {
    dynamodb.destroy();
    s3.destroy();
    await Promise.all([gates.s3?.stop(), gates.dynamodb?.stop()]);
    await server?.stop();
  });
  const endpoint = async () => ({ url: new URL(env.DYNAMODB_ENDPOINT) });
  const dynamodb = new DynamoDBClient({ region: env.AWS_REGION, endpoint, credentials });
  const s3Endpoint = async () => ({ url: new URL(env.S3_ENDPOINT) });
  const s3 = new S3Client({ region: env.AWS_REGION, endpoint: s3Endpoint, forcePathStyle: true, credentials });
  return { env, dynamodb, s3, gates };
}

/**
 * What a test starts (servers, clients, spies) is stopped after it, newest first, also when it fails;
 * then the process environment is the local servers' again.
 * @param {Record<string, string>} env  from useLocalServers
 * @returns {(cleanup: () => Promise<void> | void) => void}  registers one for the running test
 */
export function useCleanups(env) {
  /** @type {Array<() => Promise<void> | void>} */
  let cleanups = [];
  afterEach(async () => {
    const pending = cleanups.reverse();
    cleanups = [];
    for (const cleanup of pending) await cleanup();
    Object.assign(process.env, env);
  });
  return (cleanup) => {
    cleanups.push(cleanup);
  };
}

/**
 * A new table with a unique name.
 * @param {DynamoDBClient} dynamodb
 * @param {import('../../local/servers.js').TableKeys} [keys]
 */
export async function createTable(dynamodb, keys) {
  const table = `t-${randomUUID()}`;
  await createLocalTable(dynamodb, table, keys);
  return table;
}

/** @param {S3Client} s3 @param {string} key @param {string | Buffer} body */
export async function upload(s3, key, body) {
  await s3.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: body }));
}

/**
 * Every item of a table, as DynamoDB returns them, in no particular order. A parallel scan: DynamoDB
 * Local takes longer for each page the further a scan has gone, so 200,000 items take about 45 s in
 * one segment and 6 s in 16.
 * @param {DynamoDBClient} dynamodb @param {string} table
 */
export async function scanAll(dynamodb, table) {
  const TotalSegments = 16;
  const segments = await Promise.all(
    Array.from({ length: TotalSegments }, async (_, Segment) => {
      /** @type {Array<Record<string, import('@aws-sdk/client-dynamodb').AttributeValue>>} */
      const items = [];
      /** @type {Record<string, any> | undefined} */
      let startKey;
      do {
        const page = await dynamodb.send(new ScanCommand({ TableName: table, Segment, TotalSegments, ExclusiveStartKey: startKey }));
        for (const item of page.Items ?? []) items.push(item);
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      return items;
    }),
  );
  return segments.flat();
}

/** @param {S3Client} s3 @param {string} key */
export async function readObject(s3, key) {
  const output = await s3.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: key }));
  return /** @type {NonNullable<typeof output.Body>} */ (output.Body).transformToString('utf8');
}

/** @param {S3Client} s3 @param {string} prefix */
export async function listKeys(s3, prefix) {
  const output = await s3.send(new ListObjectsV2Command({ Bucket: TEST_BUCKET, Prefix: prefix }));
  return (output.Contents ?? []).map((object) => /** @type {string} */ (object.Key));
}

/**
 * The rows of a rejects file, parsed.
 * @param {S3Client} s3 @param {string} key
 * @returns {Promise<string[][]>}
 */
export async function readRejects(s3, key) {
  return parse(await readObject(s3, key), { relax_column_count: true });
}

/**
 * Checks that the table holds exactly these ids (its `id` attribute), each once.
 * @param {DynamoDBClient} dynamodb @param {string} table @param {string[]} ids
 */
export async function expectTableHoldsExactly(dynamodb, table, ids) {
  const items = await scanAll(dynamodb, table);
  const found = new Set(items.map((item) => item.id.S));
  expect(items.length).toBe(ids.length);
  expect(found.size).toBe(ids.length);
  expect(ids.filter((id) => !found.has(id))).toEqual([]);
}

/**
 * The lines of rejects files by reason, each list sorted.
 * @param {S3Client} s3 @param {string[]} keys
 */
export async function rejectedLinesIn(s3, keys) {
  /** @type {Record<string, number[]>} */
  const found = {};
  for (const key of keys) {
    const [, ...rows] = await readRejects(s3, key);
    for (const [line, reason] of rows) (found[reason] ??= []).push(Number(line));
  }
  for (const lines of Object.values(found)) lines.sort((a, b) => a - b);
  return found;
}

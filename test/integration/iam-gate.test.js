/**
 * The IAM gate (test/support/iam/gate.js) with the stack's own policies, from the template `sls package`
 * builds: what it refuses and how AWS would answer, and the imports that must pass it (an S3 event on
 * the versioned demo bucket, each write mode and its deletes, output beside an SSE-KMS source).
 */
import { CreateTableCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandLinePolicy } from '../../src/cli/iam-policy.js';
import { handler } from '../../src/handler.js';
import { summaryOf } from '../support/imports.js';
import { packagedTemplate, TEST_STACK } from '../support/iam/packaged-template.js';
import { principalsOf, TOKENS } from '../support/iam/principals.js';
import { createTable, iamPrincipals, localEnv, scanAll, STACK_TABLE, startGate, TEST_BUCKET, upload, useCleanups, useLocalServers } from '../support/local.js';

const { env, dynamodb, s3, gates } = useLocalServers();
const cleanup = useCleanups(env);
const KMS_KEY = `arn:aws:kms:us-east-1:${TEST_STACK.account}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;

/**
 * The principals with one action taken out of every statement of one of them: the role as it would be
 * without that grant.
 * @param {string} token @param {string} action
 */
function without(token, action) {
  const principals = structuredClone(iamPrincipals());
  for (const { policy } of principals[token].policies) {
    for (const statement of policy.Statement) statement.Action = [statement.Action].flat().filter((/** @type {string} */ one) => one !== action);
    policy.Statement = policy.Statement.filter((/** @type {any} */ statement) => statement.Action.length > 0);
  }
  return principals;
}

/**
 * An S3 gate of this test's own in front of the run's S3 emulator, the function's calls sent to it.
 * @param {Parameters<typeof startGate>[2]} options
 */
async function s3GateWith(options) {
  const gate = await startGate('s3', localEnv().S3_ENDPOINT, options);
  cleanup(() => gate.stop());
  process.env.S3_ENDPOINT = gate.endpoint;
  return gate;
}

/** An S3 client with a principal's credentials, to this endpoint. @param {string} endpoint @param {string} token */
function s3Client(endpoint, token) {
  const client = new S3Client({ region: env.AWS_REGION, endpoint, forcePathStyle: true, credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: token } });
  cleanup(() => client.destroy());
  return client;
}

/** An S3 notification of one upload, as a versioned bucket sends it. @param {string} key @param {string} versionId @param {string} eTag */
const s3Event = (key, versionId, eTag) => ({ Records: [{ eventSource: 'aws:s3', eventName: 'ObjectCreated:Put', s3: { bucket: { name: TEST_BUCKET }, object: { key, versionId, eTag: eTag.replaceAll('"', ''), size: 1 } } }] });

describe('the IAM gate', () => {
  it('refuses what the template does not grant, as AWS answers it, and the error names the permission', async () => {
    // A versioned read by a role without s3:GetObjectVersion (the stack's role before issue 47): 403 AccessDenied.
    const gate = await s3GateWith({ principals: without(TOKENS.function, 's3:GetObjectVersion') });
    await upload(s3, 'imports/versioned.csv', 'id,v\na,1\n');
    const { ETag } = await s3.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: 'imports/versioned.csv' }));
    const table = await createTable(dynamodb);
    process.env.TABLE_NAME = table;
    cleanup(() => void delete process.env.TABLE_NAME);
    await expect(handler(s3Event('imports/versioned.csv', 'v-3HL4kqtJlcpXroDTDmjVBH40Nrjfkd', String(ETag)))).rejects.toThrow(
      /access denied to s3:\/\/test-imports\/imports\/versioned.csv \(version v-3HL4kqtJlcpXroDTDmjVBH40Nrjfkd\); the function needs s3:GetObjectVersion on it/,
    );
    expect(gate.denied()).toEqual([expect.objectContaining({ principal: 'function', action: 's3:GetObjectVersion', resource: 'arn:aws:s3:::test-imports/imports/versioned.csv', context: { 's3:versionid': 'v-3HL4kqtJlcpXroDTDmjVBH40Nrjfkd' } })]);
    expect(await scanAll(dynamodb, table)).toEqual([]);

    // A table the stack does not name (a payload's, where no TABLE_NAME refuses it first): DynamoDB's
    // AccessDeniedException, with the action and the table.
    delete process.env.TABLE_NAME;
    const other = 'OtherTable';
    await dynamodb.send(new CreateTableCommand({ TableName: other, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] }));
    await waitUntilTableExists({ client: dynamodb, maxWaitTime: 30, minDelay: 0.05, maxDelay: 1 }, { TableName: other });
    const refused = await handler({ bucket: TEST_BUCKET, key: 'imports/versioned.csv', table: other }).catch((error) => error);
    expect(String(refused)).toMatch(/is not authorized to perform: dynamodb:DescribeTable on resource: arn:aws:dynamodb:us-east-1:000000000000:table\/OtherTable because no identity-based policy allows the dynamodb:DescribeTable action/);
    expect(gates.dynamodb?.denied()).toEqual([expect.objectContaining({ principal: 'function', action: 'dynamodb:DescribeTable' })]);
  });

  it('answers a missing key 404 to a principal that may list the bucket, and 403 AccessDenied to one that may not', async () => {
    const open = s3Client(/** @type {string} */ (gates.s3?.endpoint), TOKENS.function);
    const missing = { Bucket: TEST_BUCKET, Key: '_imports/no-such-job/summary.json' };
    expect(await open.send(new GetObjectCommand(missing)).catch((error) => [error.name, error.$metadata.httpStatusCode])).toEqual(['NoSuchKey', 404]);
    const gate = await s3GateWith({ principals: without(TOKENS.function, 's3:ListBucket') });
    const closed = s3Client(gate.endpoint, TOKENS.function);
    expect(await closed.send(new GetObjectCommand(missing)).catch((error) => [error.name, error.$metadata.httpStatusCode])).toEqual(['AccessDenied', 403]);
    expect(await closed.send(new HeadObjectCommand(missing)).catch((error) => error.$metadata.httpStatusCode)).toBe(403);
    expect(gate.denied()).toEqual([expect.objectContaining({ operation: 'GetObject of a missing key', action: 's3:ListBucket', resource: 'arn:aws:s3:::test-imports' })]);
  });

  it("documents the command line's policy as the gate enforces it (docs/on-aws.md)", () => {
    const documented = /The person running them needs the policy below[\s\S]*?```json\n([\s\S]*?)```/.exec(readFileSync('docs/on-aws.md', 'utf8'))?.[1];
    expect(JSON.parse(String(documented))).toEqual(commandLinePolicy({ stack: 'csv-import-dev', region: 'us-east-1', account: '111122223333', outputBucket: 'csv-import-dev-us-east-1-source' }));
  });

  it("passes an import triggered by an S3 event on the versioned demo bucket with the stack's own policies", async () => {
    await upload(s3, 'imports/event.csv', 'id,v\na,1\nb,2\n');
    const { ETag } = await s3.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: 'imports/event.csv' }));
    const table = await createTable(dynamodb);
    process.env.TABLE_NAME = table;
    cleanup(() => void delete process.env.TABLE_NAME);
    const summary = summaryOf(await handler(s3Event('imports/event.csv', 'v-3HL4kqtJlcpXroDTDmjVBH40Nrjfkd', String(ETag))));
    expect(summary).toMatchObject({ rowsRead: 2, written: 2, balanced: true });
    const judged = [...(gates.s3?.judged ?? []), ...(gates.dynamodb?.judged ?? [])];
    expect(judged).toContainEqual(expect.objectContaining({ principal: 'function', action: 's3:GetObjectVersion', resource: 'arn:aws:s3:::test-imports/imports/event.csv', allowed: true }));
    expect(judged).toContainEqual(expect.objectContaining({ principal: 'function', action: 'dynamodb:BatchWriteItem', resource: `arn:aws:dynamodb:us-east-1:000000000000:table/${STACK_TABLE}`, allowed: true }));
    expect(judged.filter((call) => !call.allowed)).toEqual([]);
  });

  it("passes an import in each write mode, and its deletes, with the stack's own policies", async () => {
    const table = await createTable(dynamodb);
    await upload(s3, 'modes/gate.csv', 'id,v\na,1\nb,2\n');
    for (const writeMode of ['if-absent', 'newer', 'update']) {
      const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/gate.csv', table, writeMode, columnTypes: 'v:N', ...(writeMode === 'newer' ? { versionColumn: 'v' } : {}) }));
      expect({ writeMode, balanced: summary.balanced }).toEqual({ writeMode, balanced: true });
    }
    // An incremental export's delete (its Keys alone) under a conditional mode is a DeleteItem.
    await upload(s3, 'modes/changes.json', '{"Keys": {"id": {"S": "a"}}}\n{"Item": {"id": {"S": "c"}, "v": {"N": "3"}}}\n');
    const changes = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'modes/changes.json', table, writeMode: 'update' }));
    expect(changes).toMatchObject({ deleted: 1, balanced: true });
    expect((await scanAll(dynamodb, table)).map((item) => item.id.S).sort()).toEqual(['b', 'c']);
    const allowed = (gates.dynamodb?.judged ?? []).filter((call) => call.allowed).map((call) => call.action);
    expect(allowed).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']));
    expect(gates.dynamodb?.denied()).toEqual([]);
  });

  it('passes an import whose rejects go beside an SSE-KMS source (outputInSourceBucket), with that stack\'s own policies', async () => {
    const template = await packagedTemplate({ table: STACK_TABLE, sourceBucket: TEST_BUCKET, outputInSourceBucket: 'true', sourceKmsKey: KMS_KEY });
    const principals = principalsOf(template, { account: TEST_STACK.account, region: TEST_STACK.region, stack: `${TEST_STACK.service}-${TEST_STACK.stage}`, outputBucket: TEST_BUCKET });
    const gate = await s3GateWith({ principals, kmsKeys: { [TEST_BUCKET]: KMS_KEY } });
    const table = await createTable(dynamodb);
    await upload(s3, 'kms/rows.csv', 'id,n\na,1\nb,not-a-number\n');
    const summary = summaryOf(await handler({ bucket: TEST_BUCKET, key: 'kms/rows.csv', table, columnTypes: 'n:N' }));
    expect(summary).toMatchObject({ written: 1, rejected: 1, balanced: true });
    expect(gate.judged).toContainEqual(expect.objectContaining({ action: 'kms:Decrypt', resource: KMS_KEY, allowed: true }));
    expect(gate.judged).toContainEqual(expect.objectContaining({ action: 'kms:GenerateDataKey', resource: KMS_KEY, allowed: true }));
    expect(gate.denied()).toEqual([]);
  }, 180_000);
});

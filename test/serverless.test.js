/**
 * The deployment: `sls package` offline, the template's shape and IAM scope, and `sls invoke local`
 * running the real handler against the local servers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanAll, TEST_BUCKET, upload, useLocalServers } from './support/local.js';
import { createTable as createLocalTable } from '../local/servers.js';

const run = promisify(execFile);
const sls = path.resolve('node_modules/.bin/sls');
const offline = { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off', AWS_ACCESS_KEY_ID: 'dummy', AWS_SECRET_ACCESS_KEY: 'dummy' };

describe('sls package', () => {
  /** @type {any} */
  let template;
  const out = mkdtempSync(path.join(os.tmpdir(), 'sls-package-'));
  beforeAll(async () => {
    await run(sls, ['package', '--package', out], { env: offline, timeout: 120_000 });
    template = JSON.parse(readFileSync(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  const fnEnvironment = () => template.Resources.ImportLambdaFunction.Properties.Environment.Variables;

  /** @param {string} type */
  const resourcesOf = (type) => Object.values(template.Resources).filter((/** @type {any} */ r) => r.Type === type);

  it('declares the import function with its runtime, handler and plain-string environment', () => {
    const fn = template.Resources.ImportLambdaFunction.Properties;
    expect(fn).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'src/handler.handler', Architectures: ['arm64'], MemorySize: 1769, Timeout: 900 });
    expect(fn.Environment.Variables.TABLE_NAME).toBe('csv-import-dev-items');
    for (const value of Object.values(fn.Environment.Variables)) expect(typeof value).toBe('string');
  });

  it('reserves the concurrency the reservedConcurrency parameter asks for, and none by default', async () => {
    expect(template.Resources.ImportLambdaFunction.Properties.ReservedConcurrentExecutions).toBeUndefined();
    const reserved = mkdtempSync(path.join(os.tmpdir(), 'sls-package-'));
    try {
      await run(sls, ['package', '--package', reserved, '--param=reservedConcurrency=50'], { env: offline, timeout: 120_000 });
      const withParam = JSON.parse(readFileSync(path.join(reserved, 'cloudformation-template-update-stack.json'), 'utf8'));
      expect(withParam.Resources.ImportLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(50);
    } finally {
      rmSync(reserved, { recursive: true, force: true });
    }
  });

  it('scopes every IAM statement: no wildcard action, no "*" resource', () => {
    const statements = template.Resources.IamRoleLambdaExecution.Properties.Policies.flatMap((/** @type {any} */ p) => p.PolicyDocument.Statement);
    expect(statements.length).toBeGreaterThanOrEqual(4);
    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      for (const action of [statement.Action].flat()) expect(action).not.toContain('*');
      for (const resource of [statement.Resource].flat()) expect(resource).not.toBe('*');
    }
    const actions = statements.flatMap((/** @type {any} */ s) => [s.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['s3:GetObject', 'dynamodb:BatchWriteItem', 'dynamodb:DescribeTable']));
    const dynamo = statements.find((/** @type {any} */ s) => [s.Action].flat().includes('dynamodb:BatchWriteItem'));
    expect(dynamo.Resource).toEqual({ 'Fn::GetAtt': ['ImportTable', 'Arn'] });
    const s3 = statements.find((/** @type {any} */ s) => [s.Action].flat().includes('s3:GetObject'));
    expect(s3.Resource).toBe('arn:aws:s3:::csv-import-dev-us-east-1-source/*');
    const writes = statements.find((/** @type {any} */ s) => [s.Action].flat().includes('s3:PutObject'));
    expect(writes.Resource).toEqual(['arn:aws:s3:::csv-import-dev-us-east-1-source/rejects/*', 'arn:aws:s3:::csv-import-dev-us-east-1-source/_imports/*']);
    expect(fnEnvironment().REJECTS_PREFIX).toBe('rejects/');
    expect(fnEnvironment().STATUS_PREFIX).toBe('_imports/');
    const list = statements.find((/** @type {any} */ s) => [s.Action].flat().includes('s3:ListBucket'));
    expect(list.Resource).toBe('arn:aws:s3:::csv-import-dev-us-east-1-source');
  });

  it('lets the function invoke itself, and nothing else, to continue a long import', () => {
    const statements = template.Resources.IamRoleLambdaExecution.Properties.Policies.flatMap((/** @type {any} */ p) => p.PolicyDocument.Statement);
    const invoke = statements.filter((/** @type {any} */ s) => [s.Action].flat().some((action) => action.startsWith('lambda:')));
    expect(invoke).toHaveLength(1);
    expect(invoke[0].Action).toEqual(['lambda:InvokeFunction']);
    const functionName = template.Resources.ImportLambdaFunction.Properties.FunctionName;
    expect(functionName).toBe('csv-import-dev-import');
    const arns = invoke[0].Resource.map((/** @type {any} */ r) => r['Fn::Join'][1].map((/** @type {any} */ part) => (typeof part === 'string' ? part : `{${part.Ref}}`)).join(''));
    expect(arns).toEqual([`arn:aws:lambda:{AWS::Region}:{AWS::AccountId}:function:${functionName}`, `arn:aws:lambda:{AWS::Region}:{AWS::AccountId}:function:${functionName}:*`]);
    expect(fnEnvironment().ALLOWED_TABLES).toBe('');
  });

  it('sends an asynchronous invocation that failed three times to an encrypted queue, and may send only there', () => {
    const queue = template.Resources.FailedInvocationsQueue;
    expect(queue.Type).toBe('AWS::SQS::Queue');
    expect(queue.Properties).toMatchObject({ QueueName: 'csv-import-dev-failed-invocations', SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
    const [config] = resourcesOf('AWS::Lambda::EventInvokeConfig');
    expect(config.Properties).toMatchObject({
      FunctionName: { Ref: 'ImportLambdaFunction' },
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['FailedInvocationsQueue', 'Arn'] } } },
    });
    const statements = template.Resources.IamRoleLambdaExecution.Properties.Policies.flatMap((/** @type {any} */ p) => p.PolicyDocument.Statement);
    const send = statements.filter((/** @type {any} */ s) => [s.Action].flat().some((action) => action.startsWith('sqs:')));
    expect(send).toHaveLength(1);
    expect([send[0].Action].flat()).toEqual(['sqs:SendMessage']);
    expect([send[0].Resource].flat()).toEqual([{ 'Fn::GetAtt': ['FailedInvocationsQueue', 'Arn'] }]);
  });

  it('has an on-demand table with point-in-time recovery, keyed on id', () => {
    expect(template.Resources.ImportTable.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('makes a duplicated job payload a no-op with an idempotency table, which only the function may use', () => {
    expect(template.Resources.IdempotencyTable.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
    });
    expect(fnEnvironment().IDEMPOTENCY_TABLE).toBe('csv-import-dev-idempotency');
    const statements = template.Resources.IamRoleLambdaExecution.Properties.Policies.flatMap((/** @type {any} */ p) => p.PolicyDocument.Statement);
    const records = statements.filter((/** @type {any} */ s) => [s.Resource].flat().some((r) => JSON.stringify(r).includes('IdempotencyTable')));
    expect(records).toEqual([{ Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], Resource: { 'Fn::GetAtt': ['IdempotencyTable', 'Arn'] } }]);
  });

  it('has an encrypted, private, TLS-only source bucket that triggers the import on imports/*.csv', () => {
    const bucket = template.Resources.S3BucketSourceBucket.Properties;
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    const notification = bucket.NotificationConfiguration.LambdaConfigurations[0];
    expect(notification.Event).toBe('s3:ObjectCreated:*');
    expect(notification.Filter.S3Key.Rules).toEqual([{ Name: 'prefix', Value: 'imports/' }, { Name: 'suffix', Value: '.csv' }]);
    const policies = resourcesOf('AWS::S3::BucketPolicy').map((/** @type {any} */ p) => p.Properties);
    const tls = policies.find((/** @type {any} */ p) => p.Bucket.Ref === 'S3BucketSourceBucket');
    expect(tls.PolicyDocument.Statement[0]).toMatchObject({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
  });
});

describe('sls invoke local -f import', () => {
  it('runs the handler against the local servers', async () => {
    const { env, dynamodb, s3 } = useLocalServers();
    const table = 'csv-import-dev-items';
    // The tables serverless.yml gives the function (items, idempotency records); made once per DynamoDB Local.
    for (const name of [table, 'csv-import-dev-idempotency']) {
      await createLocalTable(dynamodb, name).catch((error) => {
        if (error.name !== 'ResourceInUseException') throw error;
      });
    }
    await upload(s3, 'invoke-local/people.csv', 'id,name,score\nx1,Ann,1.5\nx2,Bob,2\nx3,Cy,3\n');
    const { stdout } = await run(sls, ['invoke', 'local', '-f', 'import', '--data', JSON.stringify({ bucket: TEST_BUCKET, key: 'invoke-local/people.csv', columnTypes: 'score:N' })], {
      env: { ...process.env, ...env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
      timeout: 120_000,
    });
    const result = JSON.parse(stdout.slice(stdout.lastIndexOf('\n{')));
    expect(result).toMatchObject({ table, rowsRead: 3, written: 3, rejected: 0, balanced: true });
    const ids = (await scanAll(dynamodb, table)).map((item) => item.id.S);
    expect(ids).toEqual(expect.arrayContaining(['x1', 'x2', 'x3']));
    // The job's payload has its idempotency record.
    const records = await scanAll(dynamodb, 'csv-import-dev-idempotency');
    expect(records.some((record) => record.status?.S === 'COMPLETED')).toBe(true);
  });
});

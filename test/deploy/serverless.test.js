/**
 * The deployment: `sls package` offline, the template's shape and IAM scope, and `sls invoke local`
 * running the real handler against the local servers.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, scanAll, TEST_BUCKET, upload, useLocalServers } from '../support/local.js';
import { createTable as createLocalTable } from '../../local/servers.js';

const run = promisify(execFile);
const { env, dynamodb, s3 } = useLocalServers();
const sls = path.resolve('node_modules/.bin/sls');
const offline = { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off', AWS_ACCESS_KEY_ID: 'dummy', AWS_SECRET_ACCESS_KEY: 'dummy' };

/**
 * Packages the service offline with these parameters; the template, parsed, and where the package is.
 * @param {Record<string, string>} params
 */
async function packageWith(params) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'sls-package-'));
  const args = ['package', '--package', out, ...Object.entries(params).map(([name, value]) => `--param=${name}=${value}`)];
  await run(sls, args, { env: offline, timeout: 180_000 });
  return { out, template: JSON.parse(readFileSync(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8')) };
}

/** The deployments README's "On AWS" shows, by name: each is packaged once. */
const MODES = {
  demo: {},
  'existing table and bucket': {
    table: 'Orders',
    keyColumn: 'orderId',
    sortKeyColumn: 'createdAt',
    columnTypes: 'createdAt:N',
    sourceBucket: 'acme-exports',
    sourcePrefix: 'orders/',
    sourceKmsKey: 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  },
  'allowed tables': { table: 'Orders', keyColumn: 'orderId', sortKeyColumn: 'createdAt', allowedTables: 'OrderLines,Customers', reservedConcurrency: '50' },
  'another region, triggered, output beside the source': {
    table: 'Orders',
    tableRegion: 'eu-west-1',
    keyColumn: 'orderId',
    sourceBucket: 'acme-exports',
    sourcePrefix: 'incoming/',
    sourceTrigger: 'true',
    outputInSourceBucket: 'true',
  },
};

/** A figure the run prints whether the test passes or not (the suite shows console output only on failure). @param {object} figure */
const printFigure = (figure) => process.stdout.write(`${JSON.stringify(figure)}\n`);

/**
 * The stdout of a linter that exits 1 or more when it finds something; a run that printed nothing and
 * failed (the tool missing, its install failed) fails the test.
 * @param {Promise<{ stdout: string }>} running
 */
async function reportOf(running) {
  /** @type {{ stdout?: unknown }} */
  const result = await running.catch((/** @type {any} */ error) => error);
  if (typeof result.stdout !== 'string' || (result instanceof Error && result.stdout.trim() === '')) throw result;
  return result.stdout.trim();
}

/** @param {any} template */
const statementsOf = (template) => template.Resources.IamRoleLambdaExecution.Properties.Policies.flatMap((/** @type {any} */ p) => p.PolicyDocument.Statement);
/** An ARN as one string: Fn::Join's parts, with {Ref} for each reference. @param {any} value */
const arnText = (value) =>
  typeof value === 'string' ? value : value['Fn::Join'] ? value['Fn::Join'][1].map((/** @type {any} */ part) => (typeof part === 'string' ? part : `{${part.Ref}}`)).join('') : JSON.stringify(value);
/** @param {any} template @param {string} action */
const resourcesFor = (/** @type {any} */ template, /** @type {string} */ action) =>
  statementsOf(template)
    .filter((/** @type {any} */ s) => [s.Action].flat().includes(action))
    .flatMap((/** @type {any} */ s) => [s.Resource].flat().map(arnText));
/**
 * The state machine's definition as deployed: the plugin writes it as an Fn::Sub whose placeholders are
 * the functions' ARNs; here each becomes a plausible ARN.
 * @param {any} machine
 */
function definitionOf(machine) {
  const [text, values] = machine.DefinitionString['Fn::Sub'];
  return JSON.parse(text.replace(/\$\{(\w+)\}/g, (/** @type {string} */ _, /** @type {string} */ name) => `arn:aws:lambda:us-east-1:123456789012:function:${JSON.stringify(values[name]).replace(/\W/g, '')}`));
}

/** @param {any} template @param {string} type */
const resourcesOfType = (template, type) => Object.entries(template.Resources).filter(([, r]) => /** @type {any} */ (r).Type === type);

describe('sls package with a parameter it does not take', () => {
  it('fails, naming it, the nearest known one and the list, without a stack trace', async () => {
    const failure = /** @type {{ code: number, stderr: string, stdout: string }} */ (await run(sls, ['package', '--package', mkdtempSync(path.join(os.tmpdir(), 'sls-package-')), '--param=tabel=Orders'], { env: offline, timeout: 180_000 }).catch((error) => error));
    expect(failure.code).not.toBe(0);
    const output = `${failure.stdout}${failure.stderr}`;
    expect(output).toContain('Unknown parameter "tabel" (--param="tabel=..."). Did you mean "table"?');
    expect(output).not.toMatch(/\n\s+at .*stack\.cjs/);
  });
});

describe('sls package, in each mode', () => {
  /** @type {Record<string, { out: string, template: any }>} */
  const built = {};
  beforeAll(async () => {
    for (const [mode, params] of Object.entries(MODES)) built[mode] = await packageWith(params);
  }, 600_000);
  afterAll(() => {
    for (const { out } of Object.values(built)) rmSync(out, { recursive: true, force: true });
  });
  const template = (/** @type {keyof typeof MODES} */ mode) => built[mode].template;
  const environment = (/** @type {keyof typeof MODES} */ mode) => template(mode).Resources.ImportLambdaFunction.Properties.Environment.Variables;

  it('declares the import function with its runtime, handler and plain-string environment, in every mode', () => {
    for (const mode of /** @type {Array<keyof typeof MODES>} */ (Object.keys(MODES))) {
      const fn = template(mode).Resources.ImportLambdaFunction.Properties;
      expect(fn).toMatchObject({ Runtime: 'nodejs22.x', Handler: 'src/handler.handler', Architectures: ['arm64'], MemorySize: 1769, Timeout: 900 });
      for (const value of Object.values(fn.Environment.Variables)) expect(typeof value).toBe('string');
    }
  });

  it('scopes every IAM statement of every role in every mode: no wildcard action, no "*" resource', () => {
    for (const mode of /** @type {Array<keyof typeof MODES>} */ (Object.keys(MODES))) {
      const roles = resourcesOfType(template(mode), 'AWS::IAM::Role').map(([, role]) => /** @type {any} */ (role));
      // The functions' role, the state machine's, and with a trigger on an existing bucket the framework's custom resource's.
      expect(roles.length).toBe(mode.includes('triggered') ? 3 : 2);
      for (const statement of roles.flatMap((role) => role.Properties.Policies.flatMap((/** @type {any} */ p) => p.PolicyDocument.Statement))) {
        expect(statement.Effect).toBe('Allow');
        for (const action of [statement.Action].flat()) expect(action).not.toContain('*');
        for (const resource of [statement.Resource].flat()) expect(arnText(resource)).not.toMatch(/^\*$|:::\*$|:table\/\*$|:function:\*$/);
      }
    }
  });

  it('demo: creates its table and bucket, writes only to them, and imports imports/*.csv', () => {
    const demo = template('demo');
    expect(demo.Resources.ImportTable.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(environment('demo')).toMatchObject({ TABLE_NAME: 'csv-import-dev-items', OUTPUT_BUCKET: 'csv-import-dev-us-east-1-source', REJECTS_PREFIX: 'rejects/', STATUS_PREFIX: '_imports/', ALLOWED_TABLES: '', TABLE_REGION: '' });
    expect(resourcesFor(demo, 'dynamodb:BatchWriteItem')).toEqual([JSON.stringify({ 'Fn::GetAtt': ['ImportTable', 'Arn'] })]);
    expect(resourcesFor(demo, 's3:GetObject')).toEqual(['arn:{AWS::Partition}:s3:::csv-import-dev-us-east-1-source/*']);
    expect(resourcesFor(demo, 's3:PutObject')).toEqual(['arn:{AWS::Partition}:s3:::csv-import-dev-us-east-1-source/rejects/*', 'arn:{AWS::Partition}:s3:::csv-import-dev-us-east-1-source/_imports/*']);
    expect(resourcesFor(demo, 's3:ListBucket')).toEqual(['arn:{AWS::Partition}:s3:::csv-import-dev-us-east-1-source']);
    // An S3 event's import reads the version it names (s3:GetObjectVersion); the conditional write modes send PutItem, UpdateItem, DeleteItem.
    expect(resourcesFor(demo, 's3:GetObjectVersion')).toEqual(['arn:{AWS::Partition}:s3:::csv-import-dev-us-east-1-source/*']);
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']) expect(resourcesFor(demo, action)).toEqual([JSON.stringify({ 'Fn::GetAtt': ['ImportTable', 'Arn'] })]);
    expect(resourcesFor(demo, 'kms:Decrypt')).toEqual([]);
    const bucket = demo.Resources.S3BucketSourceBucket.Properties;
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.OwnershipControls.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    expect(bucket.LifecycleConfiguration.Rules).toContainEqual(expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } }));
    const notification = bucket.NotificationConfiguration.LambdaConfigurations[0];
    expect(notification.Event).toBe('s3:ObjectCreated:*');
    expect(notification.Filter.S3Key.Rules).toEqual([{ Name: 'prefix', Value: 'imports/' }, { Name: 'suffix', Value: '.csv' }]);
    const tls = resourcesOfType(demo, 'AWS::S3::BucketPolicy').map(([, p]) => /** @type {any} */ (p).Properties).find((p) => p.Bucket.Ref === 'S3BucketSourceBucket');
    expect(tls.PolicyDocument.Statement[0]).toMatchObject({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
  });

  it('existing table and bucket: creates neither, reads under the prefix only, decrypts with the named key only, and writes its output to a bucket of its own', () => {
    const existing = template('existing table and bucket');
    expect(resourcesOfType(existing, 'AWS::DynamoDB::Table')).toEqual([]);
    expect(existing.Resources.S3BucketSourceBucket).toBeUndefined();
    expect(environment('existing table and bucket')).toMatchObject({
      TABLE_NAME: 'Orders',
      KEY_COLUMN: 'orderId',
      SORT_KEY_COLUMN: 'createdAt',
      COLUMN_TYPES: 'createdAt:N',
      OUTPUT_BUCKET: 'csv-import-dev-us-east-1-output',
    });
    expect(resourcesFor(existing, 'dynamodb:BatchWriteItem')).toEqual(['arn:{AWS::Partition}:dynamodb:{AWS::Region}:{AWS::AccountId}:table/Orders']);
    expect(resourcesFor(existing, 'dynamodb:DescribeTable')).toEqual(['arn:{AWS::Partition}:dynamodb:{AWS::Region}:{AWS::AccountId}:table/Orders']);
    expect(resourcesFor(existing, 'dynamodb:DescribeContinuousBackups')).toEqual(['arn:{AWS::Partition}:dynamodb:{AWS::Region}:{AWS::AccountId}:table/Orders']);
    expect(resourcesFor(existing, 's3:GetObject')).toEqual(['arn:{AWS::Partition}:s3:::acme-exports/orders/*', 'arn:{AWS::Partition}:s3:::csv-import-dev-us-east-1-output/_imports/*']);
    // A job over a prefix lists the user's bucket, under the source prefix only.
    const listing = statementsOf(existing).find((/** @type {any} */ s) => [s.Action].flat().includes('s3:ListBucket') && arnText([s.Resource].flat()[0]).endsWith(':::acme-exports'));
    expect(listing.Condition).toEqual({ StringLike: { 's3:prefix': ['orders/*'] } });
    // Nothing of the user's bucket is written.
    expect(resourcesFor(existing, 's3:PutObject').every((/** @type {string} */ arn) => arn.includes(':::csv-import-dev-us-east-1-output/'))).toBe(true);
    expect(resourcesFor(existing, 'kms:Decrypt')).toEqual([MODES['existing table and bucket'].sourceKmsKey]);
    // No trigger unless asked: the user's bucket is left as it is.
    expect(resourcesOfType(existing, 'AWS::Lambda::Permission')).toEqual([]);
    expect(JSON.stringify(existing.Resources)).not.toContain('Custom::S3');
    const output = existing.Resources.OutputBucket.Properties;
    expect(output).toMatchObject({ BucketName: 'csv-import-dev-us-east-1-output', PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true } });
    expect(existing.Resources.OutputBucketTlsOnly.Properties.PolicyDocument.Statement[0]).toMatchObject({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
  });

  it('allowed tables: grants each of them the same three actions, and lists them for the function', () => {
    const allowed = template('allowed tables');
    const arns = ['Orders', 'OrderLines', 'Customers'].map((name) => `arn:{AWS::Partition}:dynamodb:{AWS::Region}:{AWS::AccountId}:table/${name}`);
    expect(resourcesFor(allowed, 'dynamodb:BatchWriteItem')).toEqual(arns);
    expect(resourcesFor(allowed, 'dynamodb:DescribeTable')).toEqual(arns);
    expect(resourcesFor(allowed, 'dynamodb:DescribeContinuousBackups')).toEqual(arns);
    expect(environment('allowed tables')).toMatchObject({ TABLE_NAME: 'Orders', ALLOWED_TABLES: 'OrderLines,Customers' });
    // The demo bucket stays the source when no sourceBucket is given.
    expect(allowed.Resources.S3BucketSourceBucket).toBeDefined();
    expect(allowed.Resources.ImportTable).toBeUndefined();
  });

  it('another region, with the trigger and the output beside the source: ARNs in that region, the trigger on the prefix', () => {
    const other = template('another region, triggered, output beside the source');
    expect(resourcesFor(other, 'dynamodb:BatchWriteItem')).toEqual(['arn:{AWS::Partition}:dynamodb:eu-west-1:{AWS::AccountId}:table/Orders']);
    expect(environment('another region, triggered, output beside the source')).toMatchObject({ TABLE_REGION: 'eu-west-1', OUTPUT_BUCKET: 'acme-exports' });
    expect(resourcesFor(other, 's3:PutObject')).toEqual(['arn:{AWS::Partition}:s3:::acme-exports/rejects/*', 'arn:{AWS::Partition}:s3:::acme-exports/_imports/*']);
    expect(other.Resources.OutputBucket).toBeUndefined();
    const [[, trigger]] = resourcesOfType(other, 'Custom::S3');
    const configuration = /** @type {any} */ (trigger).Properties.BucketConfigs[0];
    expect(configuration).toMatchObject({ Event: 's3:ObjectCreated:*', Rules: [{ Prefix: 'incoming/' }, { Suffix: '.csv' }] });
    expect(/** @type {any} */ (trigger).Properties.BucketName).toBe('acme-exports');
  });

  it('reserves the concurrency the reservedConcurrency parameter asks for on the segment function, and none by default', () => {
    expect(template('demo').Resources.SegmentLambdaFunction.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(template('allowed tables').Resources.SegmentLambdaFunction.Properties.ReservedConcurrentExecutions).toBe(50);
  });

  it('runs a job on a Standard state machine: Plan, a Distributed Map over the JSON Lines shard list with Standard children, Summarize', async () => {
    const machine = template('demo').Resources.JobStateMachine.Properties;
    expect(machine.StateMachineType).toBe('STANDARD');
    expect(machine.RoleArn).toEqual({ 'Fn::GetAtt': ['JobStateMachineRole', 'Arn'] });
    const definition = definitionOf(machine);
    expect(Object.keys(definition.States)).toEqual(['Plan', 'Planned?', 'PlanOn', 'Shards', 'Summarize']);
    const map = definition.States.Shards;
    expect(map.ItemReader).toMatchObject({ Resource: 'arn:aws:states:::s3:getObject', ReaderConfig: { InputType: 'JSONL' }, Parameters: { Bucket: 'csv-import-dev-us-east-1-source' } });
    expect(map.ResultWriter).toMatchObject({ Resource: 'arn:aws:states:::s3:putObject', Parameters: { Bucket: 'csv-import-dev-us-east-1-source' } });
    expect(map).toMatchObject({ MaxConcurrencyPath: '$.maxConcurrency', ToleratedFailurePercentagePath: '$.toleratedFailurePercentage' });
    expect(map.ItemProcessor.ProcessorConfig).toEqual({ Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' });
    for (const task of [definition.States.Plan, map.ItemProcessor.States.ImportSegment, definition.States.Summarize]) {
      // Throttling waited out at length (a job must not fail for more shards than the concurrency allows);
      // the service's errors retried; not SdkClientException, after which the function may have run.
      expect(task.Retry[0]).toMatchObject({ ErrorEquals: ['Lambda.TooManyRequestsException'], MaxAttempts: 20, MaxDelaySeconds: 300 });
      expect(task.Retry[1].ErrorEquals).toEqual(['Lambda.ServiceException', 'Lambda.AWSLambdaException']);
    }
    // asl-validator, on the definition as deployed.
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'asl-')), 'job.asl.json');
    writeFileSync(file, JSON.stringify(definition));
    const { stdout } = await run(path.resolve('node_modules/.bin/asl-validator'), ['--json-path', file]);
    expect(stdout).toMatch(/valid/);
    const broken = structuredClone(definition);
    broken.States.Shards.ItemProcessor.States['ShardDone?'].Choices[0].BoolEquals = true;
    delete broken.States.Shards.ItemProcessor.States['ShardDone?'].Choices[0].BooleanEquals;
    writeFileSync(file, JSON.stringify(broken));
    expect(await run(path.resolve('node_modules/.bin/asl-validator'), ['--json-path', file]).then(() => 'valid', () => 'invalid')).toBe('invalid');
  });

  it('lets the state machine invoke exactly its three steps and run its own children; no function invokes a function', () => {
    for (const mode of /** @type {Array<keyof typeof MODES>} */ (Object.keys(MODES))) {
      expect(statementsOf(template(mode)).filter((/** @type {any} */ s) => [s.Action].flat().some((action) => action.startsWith('lambda:')))).toEqual([]);
      const statements = template(mode).Resources.JobStateMachineRole.Properties.Policies[0].PolicyDocument.Statement;
      const by = (/** @type {string} */ action) => statements.filter((/** @type {any} */ s) => s.Action.includes(action)).flatMap((/** @type {any} */ s) => s.Resource.map(arnText));
      expect(by('lambda:InvokeFunction')).toEqual(['plan', 'segment', 'summarize'].map((name) => `arn:{AWS::Partition}:lambda:{AWS::Region}:{AWS::AccountId}:function:csv-import-dev-${name}`));
      expect(by('states:StartExecution')).toEqual(['arn:{AWS::Partition}:states:{AWS::Region}:{AWS::AccountId}:stateMachine:csv-import-dev-job']);
      expect(by('states:RedriveExecution')).toEqual(['arn:{AWS::Partition}:states:{AWS::Region}:{AWS::AccountId}:execution:csv-import-dev-job/Shards:*']);
      const output = mode === 'existing table and bucket' ? 'csv-import-dev-us-east-1-output' : mode.includes('beside') ? 'acme-exports' : 'csv-import-dev-us-east-1-source';
      expect(by('s3:GetObject')).toEqual([`arn:{AWS::Partition}:s3:::${output}/_imports/*`]);
      expect(by('s3:PutObject')).toEqual([`arn:{AWS::Partition}:s3:::${output}/_imports/*`]);
    }
    // The functions read the job's own objects (status, plan, results) in every mode.
    for (const mode of /** @type {Array<keyof typeof MODES>} */ (Object.keys(MODES))) {
      const output = mode === 'existing table and bucket' ? 'csv-import-dev-us-east-1-output' : mode.includes('beside') ? 'acme-exports' : 'csv-import-dev-us-east-1-source';
      expect(resourcesFor(template(mode), 's3:GetObject').some((/** @type {string} */ arn) => arn === `arn:{AWS::Partition}:s3:::${output}/_imports/*` || arn === `arn:{AWS::Partition}:s3:::${output}/*`), mode).toBe(true);
    }
    // The functions start and look up executions of that machine only.
    expect(resourcesFor(template('demo'), 'states:StartExecution')).toEqual(['arn:{AWS::Partition}:states:{AWS::Region}:{AWS::AccountId}:stateMachine:csv-import-dev-job']);
    expect(resourcesFor(template('demo'), 'states:DescribeExecution')).toEqual(['arn:{AWS::Partition}:states:{AWS::Region}:{AWS::AccountId}:execution:csv-import-dev-job:*']);
    expect(environment('demo').STATE_MACHINE_NAME).toBe('csv-import-dev-job');
  });

  it('has a dashboard of its jobs: rows and WCU per second, throttled items, the window, executions started and failed', () => {
    const dashboard = template('demo').Resources.JobsDashboard.Properties;
    expect(dashboard.DashboardName).toBe('csv-import-dev-jobs');
    expect(environment('demo').JOBS_DASHBOARD).toBe('csv-import-dev-jobs');
    const body = JSON.parse(dashboard.DashboardBody['Fn::Sub']);
    const text = JSON.stringify(body);
    for (const metric of ['RowsWrittenPerSecond', 'ConsumedWcuPerSecond', 'ThrottledItems', 'Window', 'ExecutionsFailed']) expect(text).toContain(metric);
    expect(text).toContain('table=\\"csv-import-dev-items\\"');
    expect(text).toContain('stateMachine:csv-import-dev-job');
  });

  it('has no failure queue and no idempotency table: a start of a started job finds its execution by name', () => {
    const demo = template('demo');
    expect(resourcesOfType(demo, 'AWS::SQS::Queue')).toEqual([]);
    expect(resourcesOfType(demo, 'AWS::DynamoDB::Table').map(([name]) => name)).toEqual(['ImportTable']);
    expect(environment('demo').IDEMPOTENCY_TABLE).toBeUndefined();
    const [[, config]] = resourcesOfType(demo, 'AWS::Lambda::EventInvokeConfig');
    expect(/** @type {any} */ (config).Properties).toMatchObject({ FunctionName: { Ref: 'ImportLambdaFunction' }, MaximumRetryAttempts: 2 });
  });

  it('is a package that imports on its own: unzipped alone, loaded on Node.js 22 with nothing else on the module path, within Lambda\'s size limits', async () => {
    const zip = path.join(built.demo.out, 'csv-import.zip');
    const unpacked = mkdtempSync(path.join(os.tmpdir(), 'sls-unpacked-'));
    try {
      await run('unzip', ['-q', zip, '-d', unpacked]);
      const zipped = statSync(zip).size;
      const { stdout: du } = await run('du', ['-sb', unpacked]);
      const unzipped = Number(du.split(/\s/)[0]);
      printFigure({ figures: 'package size', zippedMB: +(zipped / 1e6).toFixed(2), unzippedMB: +(unzipped / 1e6).toFixed(2), limitsMB: { zipped: 50, unzipped: 250 } });
      expect(zipped).toBeLessThan(50 * 1024 * 1024);
      expect(unzipped).toBeLessThan(250 * 1024 * 1024);
      // The command line's local servers are in the npm package, not in the function's.
      for (const name of ['dynalite', 's3rver', 'classic-level', 'koa']) expect(existsSync(path.join(unpacked, 'node_modules', name))).toBe(false);
      // Nor is the tests' IAM simulator (AGPL-3.0, a dev dependency): it is never shipped.
      expect(existsSync(path.join(unpacked, 'node_modules', '@cloud-copilot'))).toBe(false);
      // Nor are node_modules' dot entries, tools' own (a test run leaves vitest's cache there).
      expect(readdirSync(path.join(unpacked, 'node_modules')).filter((name) => name.startsWith('.'))).toEqual([]);

      const table = await createTable(dynamodb);
      await upload(s3, 'package/people.csv', 'id,name,score\np1,Ann,1.5\np2,"Bob, Jr.",2\nbad-row\n');
      // The handler of the unpacked copy, on Node.js 22, from a directory with no node_modules above it.
      const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(path.join(unpacked, 'src/handler.js')).href)});
        const result = await handler({ bucket: ${JSON.stringify(TEST_BUCKET)}, key: 'package/people.csv', columnTypes: 'score:N' }, undefined);
        process.stdout.write('\\n' + JSON.stringify({ node: process.version, result }) + '\\n');`;
      const { stdout } = await run(path.resolve('tools/node22.sh'), ['node', '--input-type=module', '-e', script], {
        cwd: unpacked,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, TABLE_NAME: table, OUTPUT_BUCKET: TEST_BUCKET, NODE_PATH: '' },
        timeout: 120_000,
      });
      const { node, result } = JSON.parse(stdout.slice(stdout.lastIndexOf('\n{')));
      expect(node).toMatch(/^v22\./);
      expect(result).toMatchObject({ rowsRead: 3, written: 2, rejected: 1, balanced: true });
      expect((await scanAll(dynamodb, table)).map((item) => item.name.S).sort()).toEqual(['Ann', 'Bob, Jr.']);
    } finally {
      rmSync(unpacked, { recursive: true, force: true });
    }
  }, 300_000);

  it('passes cfn-lint with no error on every generated template', async () => {
    for (const [mode, { out }] of Object.entries(built)) {
      // cfn-lint exits non-zero when it finds anything; its findings are then on stdout, as JSON.
      const stdout = await reportOf(run('tools/iac-tools.sh', ['cfn-lint', '--format', 'json', path.join(out, 'cloudformation-template-update-stack.json')], { timeout: 600_000 }));
      /** @type {Array<{ Level: string, Rule: { Id: string }, Message: string }>} */
      const findings = JSON.parse(stdout === '' ? '[]' : stdout);
      expect(Array.isArray(findings)).toBe(true);
      expect({ mode, errors: findings.filter((finding) => finding.Level === 'Error').map((f) => `${f.Rule.Id} ${f.Message}`) }).toEqual({ mode, errors: [] });
      printFigure({ figures: 'cfn-lint', mode, findings: findings.map((f) => `${f.Level} ${f.Rule.Id}`) });
    }
  }, 900_000);

  it('passes checkov on the demo template, each skipped check with its reason in deploy/checkov.yaml', async () => {
    const template = path.join(built.demo.out, 'cloudformation-template-update-stack.json');
    const report = JSON.parse(await reportOf(run('tools/iac-tools.sh', ['checkov', '--config-file', 'deploy/checkov.yaml', '-f', template, '--output', 'json', '--compact', '--quiet'], { timeout: 600_000, maxBuffer: 64 << 20 })));
    const summary = (Array.isArray(report) ? report[0] : report).summary;
    const failed = (Array.isArray(report) ? report[0] : report).results?.failed_checks ?? [];
    expect(failed.map((/** @type {any} */ check) => `${check.check_id} ${check.resource}: ${check.check_name}`)).toEqual([]);
    expect(summary.passed).toBeGreaterThan(10);
    printFigure({ figures: 'checkov', passed: summary.passed, failed: summary.failed, skipped: summary.skipped });
  }, 900_000);
});

describe('sls invoke local -f import', () => {
  it('runs as documented against `npm run servers`: the demo stack\'s bucket and table, their variables in a file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'servers-'));
    const envFile = path.join(dir, 'local.env');
    const { DYNAMODB_ENDPOINT: _, S3_ENDPOINT: __, ...withoutServers } = process.env;
    const servers = spawn(process.execPath, ['local/serve.js', '--write-env', envFile], { env: withoutServers, stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    servers.stderr.on('data', (chunk) => (said += chunk));
    const exited = new Promise((resolve) => servers.once('exit', (code) => resolve(code)));
    try {
      for (let waited = 0; !existsSync(envFile); waited += 100) {
        if (waited > 60_000) throw new Error(`npm run servers wrote no ${envFile}: ${said}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // `set -a; . .cache/local.env; set +a`, as the servers say.
      const served = Object.fromEntries(readFileSync(envFile, 'utf8').trim().split('\n').map((line) => /** @type {[string, string]} */ (line.split(/=(.*)/s, 2))));
      const shell = { ...withoutServers, ...served, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' };
      expect(said).toContain('with the table csv-import-dev-items');
      await run(process.execPath, ['data-generator/generate.js', '--rows', '1000', '--seed', '2', '--quiet', '--bucket', 'csv-import-dev-us-east-1-source', '--key', 'imports/people.csv'], { env: shell, timeout: 60_000 });
      const { stdout } = await run(sls, ['invoke', 'local', '-f', 'import', '--data', '{"bucket":"csv-import-dev-us-east-1-source","key":"imports/people.csv","columnTypes":"balance:N,active:BOOL"}'], { env: shell, timeout: 120_000 });
      expect(JSON.parse(stdout.slice(stdout.lastIndexOf('\n{')))).toMatchObject({ table: 'csv-import-dev-items', rowsRead: 1000, written: 1000, rejected: 0, balanced: true });
    } finally {
      servers.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
    expect(existsSync(envFile)).toBe(false);
  });

  it('runs the handler against the local servers', async () => {
    // Stage `test`: the stack the IAM gate judges the function's calls by (its table csv-import-test-items).
    const table = 'csv-import-test-items';
    // The table serverless.yml gives the function. Under `sls invoke local` the job runs in the process
    // (STATE_MACHINE_NAME is the deployed stack's, which a local run does not start).
    await createLocalTable(dynamodb, table).catch((error) => {
      if (error.name !== 'ResourceInUseException') throw error;
    });
    await upload(s3, 'invoke-local/people.csv', 'id,name,score\nx1,Ann,1.5\nx2,Bob,2\nx3,Cy,3\n');
    // The demo bucket's name is the test bucket's: rejects and status go beside the source, as deployed.
    const { stdout } = await run(sls, ['invoke', 'local', '-f', 'import', '--stage', 'test', `--param=bucket=${TEST_BUCKET}`, '--data', JSON.stringify({ bucket: TEST_BUCKET, key: 'invoke-local/people.csv', columnTypes: 'score:N' })], {
      env: { ...process.env, ...env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
      timeout: 120_000,
    });
    const result = JSON.parse(stdout.slice(stdout.lastIndexOf('\n{')));
    expect(result).toMatchObject({ table, rowsRead: 3, written: 3, rejected: 0, balanced: true });
    const ids = (await scanAll(dynamodb, table)).map((item) => item.id.S);
    expect(ids).toEqual(expect.arrayContaining(['x1', 'x2', 'x3']));
  });
});

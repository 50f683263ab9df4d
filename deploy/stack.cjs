'use strict';
/**
 * The parts of the deployment that depend on what the user already has, computed from the parameters
 * (`sls deploy --param="table=Orders" ...`, listed under custom.params in serverless.yml):
 *   - demo (no parameter): the stack creates its table (keyed on id) and its bucket, and imports every
 *     imports/*.csv dropped there;
 *   - `table`: an existing table (in `tableRegion`, default the stack's): no table is created, and the
 *     function may write to that table only (and to each of `allowedTables`);
 *   - `sourceBucket` (and `sourcePrefix`): an existing bucket the function may read, under the prefix only.
 *     Rejects and job status then go to a bucket the stack creates for them (`outputInSourceBucket=true`
 *     puts them under the source bucket's rejects/ and _imports/ instead), and the S3 trigger is attached
 *     only with `sourceTrigger=true` (it changes the bucket's notification configuration);
 *   - `sourceKmsKey`: the ARN of the KMS key the source objects are encrypted with (SSE-KMS): kms:Decrypt
 *     on that key only.
 * Every IAM statement names its resources: no "*" resource and no wildcard action.
 *
 * CommonJS, because the Serverless Framework loads a JS variable file with require(). `stackFor` is a
 * plain function of the parameters; test/deploy.test.js checks it and the templates `sls package` builds.
 */

const { stateMachineDefinition } = require('./state-machine.cjs');
const { dashboardResource } = require('./dashboard.cjs');

const REJECTS_PREFIX = 'rejects/';
const STATUS_PREFIX = '_imports/';

/**
 * @typedef {object} Params  as serverless.yml passes them: every value a string, '' when not given
 * @property {string} table @property {string} tableRegion @property {string} allowedTables
 * @property {string} keyColumn @property {string} sortKeyColumn @property {string} columnTypes
 * @property {string} sourceBucket @property {string} sourcePrefix @property {string} sourceTrigger
 * @property {string} outputInSourceBucket @property {string} sourceKmsKey @property {string} bucket
 * @property {string} recordsDays
 */

/**
 * @param {Params} params
 * @param {{ service: string, stage: string, region: string }} names
 */
function stackFor(params, { service, stage, region }) {
  const p = checked(params, region);
  const demoTable = p.table === '';
  const demoBucket = p.sourceBucket === '';
  const table = demoTable ? `${service}-${stage}-items` : p.table;
  const source = demoBucket ? p.bucket || `${service}-${stage}-${region}-source` : p.sourceBucket;
  const sourcePrefix = demoBucket ? '' : p.sourcePrefix;
  // The stack's own bucket holds the output in the demo; with the user's bucket, a bucket of its own,
  // so that the function needs no write access to the user's data (unless asked for).
  const ownOutput = !demoBucket && !p.outputInSourceBucket;
  const output = ownOutput ? `${service}-${stage}-${region}-output` : source;

  const functionName = `${service}-${stage}-import`;
  const stateMachineName = `${service}-${stage}-job`;
  const environment = {
    TABLE_NAME: table,
    TABLE_REGION: p.tableRegion,
    ALLOWED_TABLES: p.allowedTables.join(','),
    KEY_COLUMN: p.keyColumn,
    SORT_KEY_COLUMN: p.sortKeyColumn,
    COLUMN_TYPES: p.columnTypes,
    OUTPUT_BUCKET: output,
    REJECTS_PREFIX,
    STATUS_PREFIX,
    // A job is an execution of this state machine, named by the job id: a duplicated start finds the first.
    STATE_MACHINE_NAME: stateMachineName,
    JOBS_DASHBOARD: `${service}-${stage}-jobs`,
    POWERTOOLS_SERVICE_NAME: service,
    NODE_OPTIONS: '--enable-source-maps',
  };

  const tableArn = (/** @type {string} */ name) => arn('dynamodb', p.tableRegion || { Ref: 'AWS::Region' }, { Ref: 'AWS::AccountId' }, `table/${name}`);
  const s3Arn = (/** @type {string} */ path) => arn('s3', '', '', path);
  const lambdaArn = (/** @type {string} */ name) => arn('lambda', { Ref: 'AWS::Region' }, { Ref: 'AWS::AccountId' }, `function:${name}`);
  const statements = [
    {
      Effect: 'Allow',
      Action: ['s3:GetObject'],
      // The job's own objects (status, plan, shard list, results) too, unless the source's grant covers them.
      Resource: [s3Arn(`${source}/${sourcePrefix}*`), ...(ownOutput || sourcePrefix !== '' ? [s3Arn(`${output}/${STATUS_PREFIX}*`)] : [])],
    },
    // An S3 event names the object's version, and the reader pins it: a GetObject or HeadObject with a
    // VersionId is s3:GetObjectVersion, which s3:GetObject does not grant (S3's GetObject reference).
    { Effect: 'Allow', Action: ['s3:GetObjectVersion'], Resource: [s3Arn(`${source}/${sourcePrefix}*`)] },
    // Rejected rows, job status and hand-over rows, under their prefixes only.
    {
      Effect: 'Allow',
      Action: ['s3:PutObject', 's3:AbortMultipartUpload'],
      Resource: [s3Arn(`${output}/${REJECTS_PREFIX}*`), s3Arn(`${output}/${STATUS_PREFIX}*`)],
    },
    // Without ListBucket, S3 answers a status object not yet written with 403 instead of 404.
    {
      Effect: 'Allow',
      Action: ['s3:ListBucket'],
      Resource: [s3Arn(output)],
    },
    // A job over a prefix lists the objects under it: in the user's bucket, under sourcePrefix only.
    ...(source === output
      ? []
      : [{ Effect: 'Allow', Action: ['s3:ListBucket'], Resource: [s3Arn(source)], ...(sourcePrefix === '' ? {} : { Condition: { StringLike: { 's3:prefix': [`${sourcePrefix}*`] } } }) }]),
    // Reading an SSE-KMS object decrypts its data key; writing rejects and status beside it
    // (outputInSourceBucket) makes one: S3 asks KMS for both with the caller's permissions.
    ...(p.sourceKmsKey === '' ? [] : [{ Effect: 'Allow', Action: ['kms:Decrypt', ...(p.outputInSourceBucket ? ['kms:GenerateDataKey'] : [])], Resource: p.sourceKmsKey }]),
    {
      Effect: 'Allow',
      // BatchWriteItem for put and delete; the conditional write modes (if-absent, newer, update) send one
      // item a call, PutItem, UpdateItem and DeleteItem, each an action of its own in IAM.
      Action: ['dynamodb:BatchWriteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:DescribeTable', 'dynamodb:DescribeContinuousBackups'],
      Resource: [demoTable ? { 'Fn::GetAtt': ['ImportTable', 'Arn'] } : tableArn(table), ...p.allowedTables.map(tableArn)],
    },
    // A job is started as an execution of the stack's state machine, and only that one, and looked up by name.
    { Effect: 'Allow', Action: ['states:StartExecution'], Resource: [stateMachineArn(stateMachineName)] },
    { Effect: 'Allow', Action: ['states:DescribeExecution'], Resource: [executionArn(stateMachineName, '*')] },
  ];
  // The Map's own reads and writes are under the output bucket: beside an SSE-KMS source, with its key.
  const outputKmsKey = p.outputInSourceBucket && p.sourceKmsKey !== '' ? p.sourceKmsKey : undefined;
  const stepFunctions = stateMachineOf({ service, stage, stateMachineName, output, lambdaArn, outputKmsKey });

  /** @type {Record<string, unknown>} */
  const resources = {};
  resources.JobStateMachineRole = stepFunctions.role;
  resources.JobsDashboard = dashboardResource({ name: `${service}-${stage}-jobs`, table, stateMachineName });
  if (demoTable) resources.ImportTable = demoTableResource(table);
  if (demoBucket) resources.SourceBucketTlsOnly = tlsOnlyPolicy({ Ref: 'S3BucketSourceBucket' }, source);
  if (ownOutput) {
    resources.OutputBucket = { Type: 'AWS::S3::Bucket', Properties: { BucketName: output, ...privateBucket(p.recordsDays) } };
    resources.OutputBucketTlsOnly = tlsOnlyPolicy({ Ref: 'OutputBucket' }, output);
  }

  const csvRules = (/** @type {string} */ prefix) => [...(prefix === '' ? [] : [{ prefix }]), { suffix: '.csv' }];
  /** @type {unknown[]} */
  const events = [];
  if (demoBucket) events.push({ s3: { bucket: 'sourceBucket', event: 's3:ObjectCreated:*', rules: csvRules('imports/') } });
  else if (p.sourceTrigger) events.push({ s3: { bucket: source, existing: true, event: 's3:ObjectCreated:*', rules: csvRules(sourcePrefix) } });

  // The demo bucket is declared under provider.s3, where the framework creates it with its trigger
  // (as S3BucketSourceBucket), and given its settings through CloudFormation extensions.
  const buckets = demoBucket ? { sourceBucket: { name: source } } : {};
  /** @type {Record<string, unknown>} */
  const extensions = demoBucket ? { S3BucketSourceBucket: { Properties: privateBucket(p.recordsDays) } } : {};
  // The framework's custom resource that attaches the trigger to an existing bucket may add and remove
  // permissions on any function of the account (function:*): here, on this function only.
  if (p.sourceTrigger) {
    extensions.IamRoleCustomResourcesLambdaExecution = {
      Properties: {
        Policies: [
          {
            PolicyName: `${stage}-${service}-custom-resources-lambda`,
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                { Effect: 'Allow', Action: ['s3:PutBucketNotification', 's3:GetBucketNotification'], Resource: s3Arn(source) },
                { Effect: 'Allow', Action: ['lambda:AddPermission', 'lambda:RemovePermission'], Resource: lambdaArn(functionName) },
              ],
            },
          },
        ],
      },
    };
  }

  return { environment, statements, resources: { Resources: resources, extensions }, events, buckets, definition: stepFunctions.definition, summary: { table, source, sourcePrefix, output } };
}

const stateMachineArn = (/** @type {string} */ name) => arn('states', { Ref: 'AWS::Region' }, { Ref: 'AWS::AccountId' }, `stateMachine:${name}`);
/** A machine's executions; a Distributed Map's children are named `<machine>/<map label>:<id>`. @param {string} machine @param {string} name */
const executionArn = (machine, name) => arn('states', { Ref: 'AWS::Region' }, { Ref: 'AWS::AccountId' }, `execution:${machine}:${name}`);

/**
 * The job's state machine: its definition (state-machine.cjs) and its role, which may invoke exactly the
 * three step functions, run and redrive its own Map's children, read the shard lists and write the
 * results under the status prefix of the output bucket only.
 * @param {{ service: string, stage: string, stateMachineName: string, output: string, lambdaArn: (name: string) => unknown, outputKmsKey?: string }} names
 *   outputKmsKey: the KMS key the output bucket encrypts with (the source's, with outputInSourceBucket)
 */
function stateMachineOf({ service, stage, stateMachineName, output, lambdaArn, outputKmsKey }) {
  const step = (/** @type {string} */ name) => `${service}-${stage}-${name}`;
  const under = (/** @type {string} */ path) => arn('s3', '', '', `${output}/${path}`);
  const children = arn('states', { Ref: 'AWS::Region' }, { Ref: 'AWS::AccountId' }, `execution:${stateMachineName}/Shards:*`);
  const statements = [
    { Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: ['plan', 'segment', 'summarize'].map((name) => lambdaArn(step(name))) },
    // A Distributed Map starts its children as executions of this machine, and watches, stops and redrives them.
    { Effect: 'Allow', Action: ['states:StartExecution'], Resource: [stateMachineArn(stateMachineName)] },
    { Effect: 'Allow', Action: ['states:DescribeExecution', 'states:StopExecution'], Resource: [children, executionArn(stateMachineName, '*')] },
    { Effect: 'Allow', Action: ['states:RedriveExecution'], Resource: [children] },
    // The shard list (ItemReader) and the children's results (ResultWriter), under the status prefix only.
    { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'], Resource: [under(`${STATUS_PREFIX}*`)] },
    // In an SSE-KMS bucket, ItemReader's read decrypts and ResultWriter's write makes a data key.
    ...(outputKmsKey === undefined ? [] : [{ Effect: 'Allow', Action: ['kms:Decrypt', 'kms:GenerateDataKey'], Resource: [outputKmsKey] }]),
  ];
  const role = {
    Type: 'AWS::IAM::Role',
    Properties: {
      AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'states.amazonaws.com' }, Action: 'sts:AssumeRole' }] },
      Policies: [{ PolicyName: `${stateMachineName}-role`, PolicyDocument: { Version: '2012-10-17', Statement: statements } }],
    },
  };
  const definition = stateMachineDefinition({
    plan: { 'Fn::GetAtt': ['PlanLambdaFunction', 'Arn'] },
    segment: { 'Fn::GetAtt': ['SegmentLambdaFunction', 'Arn'] },
    summarize: { 'Fn::GetAtt': ['SummarizeLambdaFunction', 'Arn'] },
    bucket: output,
  });
  return { role, definition };
}

/**
 * An ARN in the stack's partition (aws, aws-cn, aws-us-gov).
 * @param {string} service @param {unknown} region @param {unknown} account @param {string} resource
 */
function arn(service, region, account, resource) {
  return { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:${service}:`, region, ':', account, `:${resource}`]] };
}

/**
 * The stack's own buckets: private, encrypted, TLS only (tlsOnlyPolicy). Rejected rows (rejects/) and a
 * job's records (_imports/: rows handed over between segments, shard lists, results) hold rows: they are
 * expired after `recordsDays` (deployment parameter, default 30), and so are their old versions.
 * @param {number} recordsDays
 */
function privateBucket(recordsDays) {
  return {
    BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    VersioningConfiguration: { Status: 'Enabled' },
    LifecycleConfiguration: {
      Rules: [
        // A rejects file is a multipart upload: one a killed run left unfinished is dropped after a week.
        { Id: 'abort-incomplete-uploads', Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } },
        { Id: 'expire-old-versions', Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: Math.min(30, recordsDays) } },
        ...[REJECTS_PREFIX, STATUS_PREFIX].map((prefix) => ({ Id: `expire-${prefix.replace('/', '').replace('_', '')}`, Status: 'Enabled', Prefix: prefix, ExpirationInDays: recordsDays, NoncurrentVersionExpiration: { NoncurrentDays: 1 } })),
      ],
    },
  };
}

/** @param {unknown} bucketRef @param {string} name */
function tlsOnlyPolicy(bucketRef, name) {
  return {
    Type: 'AWS::S3::BucketPolicy',
    Properties: {
      Bucket: bucketRef,
      PolicyDocument: {
        Statement: [
          {
            Sid: 'DenyNonTls',
            Effect: 'Deny',
            Principal: '*',
            Action: 's3:*',
            Resource: [arn('s3', '', '', name), arn('s3', '', '', `${name}/*`)],
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          },
        ],
      },
    },
  };
}

/** @param {string} name */
function demoTableResource(name) {
  return {
    Type: 'AWS::DynamoDB::Table',
    // The demo table holds only what was imported into it; it goes with the stack.
    DeletionPolicy: 'Delete',
    UpdateReplacePolicy: 'Delete',
    Properties: {
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    },
  };
}

/**
 * The parameters, checked: each bad value fails `sls package` with the parameter's name and the fix.
 * @param {Params} params @param {string} region
 */
function checked(params, region) {
  const fail = (/** @type {string} */ name, /** @type {string} */ fix) => {
    throw deployError(`Invalid parameter "${name}": got ${JSON.stringify(params[/** @type {keyof Params} */ (name)])}; ${fix}`);
  };
  const flag = (/** @type {keyof Params} */ name) => {
    const value = (params[name] ?? '').trim().toLowerCase();
    if (value !== '' && value !== 'true' && value !== 'false') fail(name, 'use true or false');
    return value === 'true';
  };
  const text = (/** @type {keyof Params} */ name) => String(params[name] ?? '').trim();
  const tableName = /^[A-Za-z0-9_.-]{3,255}$/;
  const bucketName = /^(?!xn--)(?!.*\.\.)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
  const p = {
    table: text('table'),
    tableRegion: text('tableRegion'),
    allowedTables: text('allowedTables') === '' ? [] : text('allowedTables').split(',').map((name) => name.trim()),
    keyColumn: text('keyColumn'),
    sortKeyColumn: text('sortKeyColumn'),
    columnTypes: text('columnTypes'),
    sourceBucket: text('sourceBucket'),
    sourcePrefix: text('sourcePrefix'),
    sourceTrigger: flag('sourceTrigger'),
    outputInSourceBucket: flag('outputInSourceBucket'),
    sourceKmsKey: text('sourceKmsKey'),
    bucket: text('bucket'),
    recordsDays: text('recordsDays') === '' ? 30 : Number(text('recordsDays')),
  };
  if (!Number.isInteger(p.recordsDays) || p.recordsDays < 1 || p.recordsDays > 3650) fail('recordsDays', 'use a whole number of days from 1 to 3650 that rejects files and job records are kept (default 30)');
  if (p.table !== '' && !tableName.test(p.table)) fail('table', 'use the name of an existing DynamoDB table (3 to 255 of A-Z a-z 0-9 _ . -)');
  for (const name of p.allowedTables) if (!tableName.test(name)) fail('allowedTables', 'use table names separated by commas, such as "Orders,OrderLines"');
  if (p.tableRegion !== '' && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(p.tableRegion)) fail('tableRegion', 'use a region name such as eu-west-1');
  if (p.tableRegion !== '' && p.table === '') fail('tableRegion', `set it only with "table": the demo table is created in the stack's region (${region})`);
  if (p.sortKeyColumn !== '' && p.keyColumn === '') fail('sortKeyColumn', 'set keyColumn too (the partition key column)');
  if (p.sourceBucket !== '' && !bucketName.test(p.sourceBucket)) fail('sourceBucket', 'use the name of an existing S3 bucket (3 to 63 of a-z 0-9 . -)');
  if (p.bucket !== '' && p.sourceBucket !== '') fail('bucket', 'it names the demo bucket the stack creates; with sourceBucket there is none: leave it out');
  if (p.bucket !== '' && !bucketName.test(p.bucket)) fail('bucket', 'use a globally unique S3 bucket name (3 to 63 of a-z 0-9 . -)');
  if (p.sourcePrefix !== '' && p.sourceBucket === '') fail('sourcePrefix', 'set it only with sourceBucket (the demo bucket imports imports/*.csv)');
  if (p.sourcePrefix.startsWith('/')) fail('sourcePrefix', 'S3 keys do not start with "/": use a prefix such as "exports/orders/"');
  if ((p.sourceTrigger || p.outputInSourceBucket) && p.sourceBucket === '') fail(p.sourceTrigger ? 'sourceTrigger' : 'outputInSourceBucket', 'set it only with sourceBucket');
  if (p.sourceTrigger && p.outputInSourceBucket && [REJECTS_PREFIX, STATUS_PREFIX].some((prefix) => prefix.startsWith(p.sourcePrefix) || p.sourcePrefix.startsWith(prefix))) {
    fail('sourcePrefix', `with sourceTrigger and outputInSourceBucket the trigger would import the rejects files written under ${REJECTS_PREFIX}; set sourcePrefix to where the CSV files arrive, such as "imports/"`);
  }
  if (p.sourceKmsKey !== '' && !/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(p.sourceKmsKey)) {
    fail('sourceKmsKey', 'use the key ARN, such as arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab (an alias is not enough for IAM)');
  }
  return p;
}

/**
 * An error the framework shows as its message alone: it prints a rejection's stack when there is one,
 * and a bad parameter is the user's to fix, not a place in this file.
 * @param {string} message
 */
function deployError(message) {
  const error = new Error(message);
  error.stack = message;
  return error;
}

/**
 * Refuses a --param this stack does not take (a misspelled one would otherwise deploy the demo
 * silently), with the nearest known name.
 * @param {unknown} given  the framework's options.param: "name=value", or a list of them
 * @param {string[]} known
 */
function checkParamNames(given, known) {
  for (const entry of /** @type {unknown[]} */ ([]).concat(given ?? [])) {
    // As the framework reads it: "table =Orders" is a parameter named "table ", which no ${param:table} takes.
    const name = String(entry).split('=')[0];
    if (known.includes(name)) continue;
    const nearest = known.map((candidate) => ({ candidate, distance: editDistance(name.toLowerCase(), candidate.toLowerCase()) })).sort((a, b) => a.distance - b.distance)[0];
    const hint = nearest !== undefined && nearest.distance <= Math.max(2, Math.floor(name.length / 4)) ? ` Did you mean "${nearest.candidate}"?` : '';
    throw deployError(`Unknown parameter "${name}" (--param="${name}=...").${hint} The parameters are: ${known.join(', ')} (docs/on-aws.md, "Parameters and what they grant").`);
  }
}

/** Levenshtein's distance. @param {string} a @param {string} b */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/** @type {Map<string, ReturnType<typeof stackFor>>} */
const built = new Map();

/**
 * The stack for this `sls` run, from serverless.yml's custom.params, stage and region.
 * @param {{ resolveVariable: (variable: string) => Promise<any>, options?: { param?: unknown } }} sls
 */
async function stackOfThisRun({ resolveVariable, options }) {
  const params = await resolveVariable('self:custom.params');
  checkParamNames(options?.param, Object.keys(params));
  const names = { service: await resolveVariable('self:service'), stage: await resolveVariable('self:provider.stage'), region: await resolveVariable('self:provider.region') };
  const key = JSON.stringify([params, names]);
  if (!built.has(key)) built.set(key, stackFor(params, names));
  return /** @type {ReturnType<typeof stackFor>} */ (built.get(key));
}

/** @param {'environment' | 'statements' | 'resources' | 'events' | 'buckets' | 'definition'} part */
const partOf = (part) => async (/** @type {any} */ sls) => (await stackOfThisRun(sls))[part];

module.exports = {
  stackFor,
  checkParamNames,
  environment: partOf('environment'),
  statements: partOf('statements'),
  resources: partOf('resources'),
  events: partOf('events'),
  buckets: partOf('buckets'),
  definition: partOf('definition'),
};

/**
 * deploy/stack.cjs as a plain function of the deployment's parameters: what each mode creates and grants
 * (test/deploy/serverless.test.js checks the templates `sls package` builds from it), and a clear error naming
 * the parameter and the fix for each bad value.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const { stackFor, checkParamNames } = createRequire(import.meta.url)('../../deploy/stack.cjs');
const names = { service: 'csv-import', stage: 'dev', region: 'us-east-1' };
const NONE = { table: '', tableRegion: '', allowedTables: '', keyColumn: '', sortKeyColumn: '', columnTypes: '', sourceBucket: '', sourcePrefix: '', sourceTrigger: '', outputInSourceBucket: '', sourceKmsKey: '', bucket: '', recordsDays: '' };
/** @param {Partial<typeof NONE>} params */
const stack = (params) => stackFor({ ...NONE, ...params }, names);

describe('the stack for the deployment parameters', () => {
  it('is the demo with none: its own table and bucket, the trigger on imports/*.csv', () => {
    const demo = stack({});
    expect(demo.summary).toEqual({ table: 'csv-import-dev-items', source: 'csv-import-dev-us-east-1-source', sourcePrefix: '', output: 'csv-import-dev-us-east-1-source' });
    expect(Object.keys(demo.resources.Resources)).toEqual(['JobStateMachineRole', 'JobsDashboard', 'ImportTable', 'SourceBucketTlsOnly']);
    expect(demo.events).toEqual([{ s3: { bucket: 'sourceBucket', event: 's3:ObjectCreated:*', rules: [{ prefix: 'imports/' }, { suffix: '.csv' }] } }]);
    expect(stack({ bucket: 'my-unique-name' }).summary.source).toBe('my-unique-name');
  });

  it('expires rejects/ and _imports/ (rows) on the buckets it creates after recordsDays, 30 by default (issue 48)', () => {
    const rulesOf = (/** @type {any} */ built, /** @type {string} */ bucket) => (bucket === 'demo' ? built.resources.extensions.S3BucketSourceBucket : built.resources.Resources.OutputBucket).Properties.LifecycleConfiguration.Rules;
    for (const [built, bucket, days] of /** @type {Array<[any, string, number]>} */ ([[stack({}), 'demo', 30], [stack({ sourceBucket: 'acme', recordsDays: '7' }), 'output', 7]])) {
      const rules = rulesOf(built, bucket);
      for (const prefix of ['rejects/', '_imports/']) expect(rules).toContainEqual(expect.objectContaining({ Status: 'Enabled', Prefix: prefix, ExpirationInDays: days, NoncurrentVersionExpiration: { NoncurrentDays: 1 } }));
    }
    // The user's own bucket (outputInSourceBucket): the stack sets nothing there.
    expect(stack({ sourceBucket: 'acme', outputInSourceBucket: 'true' }).resources.Resources.OutputBucket).toBeUndefined();
  });

  it('attaches the trigger to an existing bucket only when asked, on its prefix', () => {
    expect(stack({ sourceBucket: 'acme', sourcePrefix: 'in/' }).events).toEqual([]);
    expect(stack({ sourceBucket: 'acme', sourcePrefix: 'in/', sourceTrigger: 'true' }).events).toEqual([
      { s3: { bucket: 'acme', existing: true, event: 's3:ObjectCreated:*', rules: [{ prefix: 'in/' }, { suffix: '.csv' }] } },
    ]);
  });

  it.each([
    [{ table: 'a b' }, 'table', 'name of an existing DynamoDB table'],
    [{ allowedTables: 'Orders,,Lines' }, 'allowedTables', 'separated by commas'],
    [{ table: 'Orders', tableRegion: 'Ireland' }, 'tableRegion', 'such as eu-west-1'],
    [{ tableRegion: 'eu-west-1' }, 'tableRegion', 'only with "table"'],
    [{ sortKeyColumn: 'createdAt' }, 'sortKeyColumn', 'set keyColumn too'],
    [{ sourceBucket: 'Acme_Data' }, 'sourceBucket', 'existing S3 bucket'],
    [{ sourceBucket: 'acme', bucket: 'mine' }, 'bucket', 'leave it out'],
    [{ sourcePrefix: 'in/' }, 'sourcePrefix', 'only with sourceBucket'],
    [{ sourceBucket: 'acme', sourcePrefix: '/in/' }, 'sourcePrefix', 'do not start with "/"'],
    [{ sourceTrigger: 'true' }, 'sourceTrigger', 'only with sourceBucket'],
    [{ sourceBucket: 'acme', sourceTrigger: 'yes' }, 'sourceTrigger', 'true or false'],
    [{ sourceBucket: 'acme', sourceTrigger: 'true', outputInSourceBucket: 'true' }, 'sourcePrefix', 'would import the rejects files'],
    [{ sourceBucket: 'acme', sourceTrigger: 'true', outputInSourceBucket: 'true', sourcePrefix: 'rej' }, 'sourcePrefix', 'would import the rejects files'],
    [{ sourceBucket: 'acme', sourceKmsKey: 'alias/orders' }, 'sourceKmsKey', 'an alias is not enough'],
    [{ recordsDays: '0' }, 'recordsDays', 'whole number of days from 1 to 3650'],
    [{ recordsDays: '7.5' }, 'recordsDays', 'whole number of days'],
  ])('refuses %j, naming %s and the fix', (params, name, fix) => {
    expect(() => stack(params)).toThrow(new RegExp(`Invalid parameter "${name}"[\\s\\S]*${fix}`));
  });
});

describe('the parameters\' names', () => {
  const known = Object.keys(NONE);

  it('refuses one the stack does not take, with the nearest name and the list', () => {
    expect(() => checkParamNames(['tabel=Orders'], known)).toThrow(/^Unknown parameter "tabel" \(--param="tabel=\.\.\."\)\. Did you mean "table"\? The parameters are: table, tableRegion, /);
    expect(() => checkParamNames('sourcebucket=acme', known)).toThrow(/Did you mean "sourceBucket"\?/);
    expect(() => checkParamNames(['colour=blue'], known)).toThrow(/^Unknown parameter "colour" \(--param="colour=\.\.\."\)\. The parameters are/);
  });

  it('reads a name as the framework does, untrimmed: "table " is not "table"', () => {
    expect(() => checkParamNames(['table =Orders'], known)).toThrow(/^Unknown parameter "table " .*Did you mean "table"\?/);
  });

  it('takes known ones, and none', () => {
    expect(() => checkParamNames(['table=Orders', 'keyColumn=orderId'], known)).not.toThrow();
    expect(() => checkParamNames(undefined, known)).not.toThrow();
  });

  it('says a bad value without a stack trace: the framework prints a rejection\'s stack when it has one', () => {
    let error;
    try {
      stack({ table: 'a b' });
    } catch (thrown) {
      error = /** @type {Error} */ (thrown);
    }
    expect(error?.stack).toBe('Invalid parameter "table": got "a b"; use the name of an existing DynamoDB table (3 to 255 of A-Z a-z 0-9 _ . -)');
  });
});

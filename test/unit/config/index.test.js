import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { ConfigError } from '../../../src/errors.js';

const base = { bucket: 'b', key: 'k.csv', table: 'people' };

describe('resolveConfig', () => {
  it('fills defaults', () => {
    const config = resolveConfig(base, {});
    expect(config).toMatchObject({ keyColumn: 'id', generateKey: false, delimiter: ',', concurrency: 32, maxAttempts: 12, backoffBaseMs: 25, backoffCapMs: 5000, logIntervalMs: 1000, columnTypes: {} });
    expect(Object.isFrozen(config)).toBe(true);
    expect(config.encoding).toBe('auto');
    // Rejects and status go beside the source, and the table is in the function's region, unless the deployment says otherwise.
    expect(config).toMatchObject({ outputBucket: 'b', region: 'us-east-1', tableRegion: 'us-east-1' });
    expect(resolveConfig(base, { OUTPUT_BUCKET: 'out', TABLE_REGION: 'eu-west-1' })).toMatchObject({ outputBucket: 'out', tableRegion: 'eu-west-1' });
    expect(resolveConfig({ ...base, encoding: ' UTF16LE ' }, {}).encoding).toBe('utf-16le');
  });

  it('takes the payload over the environment over the default', () => {
    const env = { TABLE_NAME: 'from-env', CONCURRENCY: '8', COLUMN_TYPES: 'age:N,active:bool', CSV_DELIMITER: '\\t' };
    const config = resolveConfig({ bucket: 'b', key: 'k', concurrency: 4 }, env);
    expect(config.table).toBe('from-env');
    expect(config.concurrency).toBe(4);
    expect(config.columnTypes).toEqual({ age: 'N', active: 'BOOL' });
    expect(config.delimiter).toBe('\t');
  });

  it.each([
    [{ concurrency: 0 }, 'concurrency', 'whole number from 1 to 1024'],
    [{ concurrency: '12x' }, 'concurrency', 'whole number'],
    [{ maxAttempts: 1.5 }, 'maxAttempts', 'whole number'],
    [{ delimiter: ';;' }, 'delimiter', 'one ASCII character'],
    [{ delimiter: '"' }, 'delimiter', 'one ASCII character other than a quote'],
    [{ delimiter: '\u00a7' }, 'delimiter', 'one ASCII character'],
    [{ columnTypes: 'age:INT' }, 'columnTypes', 'the types are S, N, BOOL, B'],
    [{ columnTypes: 'age' }, 'columnTypes', 'column:TYPE'],
    [{ columnTypes: { id: 'BOOL' } }, 'columnTypes', 'key column can only be S, N or B'],
    [{ generateKey: 'yes' }, 'generateKey', 'true or false'],
    [{ backoffBaseMs: 100, backoffCapMs: 50 }, 'backoffCapMs', 'at least backoffBaseMs'],
    [{ table: 'a b' }, 'table', 'DynamoDB table name'],
    [{ bucket: '' }, 'bucket', 'non-empty string'],
    [{ tabel: 'x' }, 'tabel', 'unknown option'],
    [{ dynamodbEndpoint: 'http://evil' }, 'dynamodbEndpoint', 'unknown option'],
    [{ allowedTables: ['other'] }, 'allowedTables', 'unknown option'],
    [{ outputBucket: 'elsewhere' }, 'outputBucket', 'unknown option'],
    [{ tableRegion: 'eu-west-1' }, 'tableRegion', 'unknown option'],
    [{ continuation: 'invoke' }, 'continuation', 'unknown option'],
    [{ rejectsPrefix: 'rejects' }, 'rejectsPrefix', 'ends with "/"'],
    [{ rejectsPrefix: '/rejects/' }, 'rejectsPrefix', 'does not start with one'],
    [{ statusPrefix: '_imports' }, 'statusPrefix', 'such as "_imports/"'],
    [{ shards: 0 }, 'shards', 'whole number from 1 to 1000'],
    [{ shards: 1001 }, 'shards', 'whole number from 1 to 1000'],
    [{ bytesPerShard: 1000 }, 'bytesPerShard', 'whole number from 1048576'],
    [{ shard: { index: 0 } }, 'shard', 'to shard a file, pass "shards" instead'],
    [{ shard: { jobId: 'j', etag: 'e', index: 2, count: 2, start: 5, end: 9, line: 1, header: ['id'] } }, 'shard', 'malformed shard'],
    [{ shard: { jobId: 'j', etag: 'e', index: 0, count: 2, start: 9, end: 9, line: 1, header: ['id'] } }, 'shard', 'malformed shard'],
    [{ segmentMs: 5 }, 'segmentMs', 'whole number from 100'],
    [{ readIdleTimeoutMs: 'soon' }, 'readIdleTimeoutMs', 'whole number'],
    [{ checkpoint: { byte: 10 } }, 'checkpoint', 'malformed checkpoint'],
    [{ encoding: 'utf-16be' }, 'encoding', '"auto" \\(the default: UTF-8, or UTF-16LE when the file starts with its byte order mark\\), "utf-8", "utf-16le"'],
    [{ shard: { jobId: 'j', etag: 'e', index: 0, count: 2, start: 5, end: 9, line: 1, header: ['id'], encoding: 'ucs-2' } }, 'shard', 'malformed shard'],
  ])('rejects %j naming %s', (override, option, fix) => {
    const attempt = () => resolveConfig({ ...base, ...override }, {});
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`"${option}"[\\s\\S]*${fix}`));
  });

  it('names the environment variable when the bad value came from it', () => {
    expect(() => resolveConfig(base, { CONCURRENCY: '0' })).toThrow(/"concurrency \(env CONCURRENCY\)": got "0"/);
  });

  it('on a deployed stack, refuses payload prefixes outside the stack\'s, which its role may not write (issue 47)', () => {
    const env = { TABLE_NAME: 'people', REJECTS_PREFIX: 'rejects/', STATUS_PREFIX: '_imports/' };
    const payload = { bucket: 'b', key: 'k' };
    // Off Lambda (ddbload, tests) any prefix goes.
    expect(resolveConfig({ ...payload, rejectsPrefix: 'elsewhere/' }, env).rejectsPrefix).toBe('elsewhere/');
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'csv-import-dev-import';
    try {
      expect(() => resolveConfig({ ...payload, rejectsPrefix: 'elsewhere/' }, env)).toThrow(/"rejectsPrefix": got "elsewhere\/"; the stack's role writes only under "rejects\/" \(REJECTS_PREFIX\)/);
      expect(() => resolveConfig({ ...payload, statusPrefix: 'x/' }, env)).toThrow(/"statusPrefix": got "x\/"; the stack's role writes only under "_imports\/"/);
      expect(resolveConfig({ ...payload, rejectsPrefix: 'rejects/team-a/' }, env).rejectsPrefix).toBe('rejects/team-a/');
      expect(resolveConfig(payload, env).statusPrefix).toBe('_imports/');
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });

  it('takes plain http:// endpoints only to this machine: elsewhere rows and signed requests would go in clear text (issue 48)', () => {
    const payload = { bucket: 'b', key: 'k', table: 'people' };
    for (const endpoint of ['http://127.0.0.1:8000', 'http://localhost:4566', 'http://127.0.0.53:1', 'https://dynamodb.example.com']) {
      expect(resolveConfig(payload, { DYNAMODB_ENDPOINT: endpoint, S3_ENDPOINT: endpoint }).dynamodbEndpoint).toBe(endpoint);
    }
    for (const endpoint of ['http://10.0.0.5:8000', 'http://dynamodb.example.com', 'http://127.0.0.1.example.com']) {
      expect(() => resolveConfig(payload, { DYNAMODB_ENDPOINT: endpoint })).toThrow(/plain http:\/\/ sends the rows and a signed request .* in clear text: use https:\/\//);
      expect(() => resolveConfig(payload, { S3_ENDPOINT: endpoint })).toThrow(/"s3Endpoint \(env S3_ENDPOINT\)"/);
    }
  });

  it('refuses a payload table other than TABLE_NAME unless ALLOWED_TABLES lists it', () => {
    const env = { TABLE_NAME: 'people' };
    expect(resolveConfig({ bucket: 'b', key: 'k' }, env).table).toBe('people');
    expect(resolveConfig({ bucket: 'b', key: 'k', table: 'people' }, env).table).toBe('people');
    expect(() => resolveConfig({ bucket: 'b', key: 'k', table: 'orders' }, env)).toThrow(/"table": got "orders"; this function writes only to its table "people"; .*ALLOWED_TABLES/);
    expect(resolveConfig({ bucket: 'b', key: 'k', table: 'orders' }, { ...env, ALLOWED_TABLES: 'audit, orders' }).table).toBe('orders');
    expect(() => resolveConfig({ bucket: 'b', key: 'k' }, { ...env, ALLOWED_TABLES: 'ok-table,a b' })).toThrow(/"allowedTables \(env ALLOWED_TABLES\)"/);
  });

  it('asks for a table when none is given', () => {
    expect(() => resolveConfig({ bucket: 'b', key: 'k' }, {})).toThrow(/TABLE_NAME/);
  });

  it('refuses maxObjects on an import of one object or file, where it would bound nothing', () => {
    for (const source of [{ bucket: 'b', key: 'k.csv' }, { file: '/tmp/x.csv' }]) {
      expect(() => resolveConfig({ ...source, table: 'People', maxObjects: 5 }, {})).toThrow(/maxObjects.*bounds the objects of a job over a prefix or a DynamoDB export/);
    }
    expect(resolveConfig({ bucket: 'b', prefix: 'p/', table: 'People', maxObjects: 5 }, {}).maxObjects).toBe(5);
    expect(resolveConfig({ bucket: 'b', key: 'e/manifest-summary.json', table: 'People', maxObjects: 5 }, {}).maxObjects).toBe(5);
  });
});

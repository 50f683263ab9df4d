import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createBatchWriteClient, signedHeaders } from '../../../src/write/batch-write-client.js';
import { createClients } from '../../../src/clients.js';
import { classifyError } from '../../../src/write/retry.js';

/** SHA-256 in the shape the SDK's signer takes. */
class Sha256 {
  /** @param {Uint8Array} [secret] */
  constructor(secret) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
  }
  /** @param {string | Uint8Array} data */
  update(data) {
    this.hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

/** The Authorization header the SDK's own signer gives the same request. @param {Record<string, string | number>} headers @param {Buffer} payload @param {any} credentials @param {Date} now */
async function sdkAuthorization(headers, payload, credentials, now) {
  const signer = new SignatureV4({ service: 'dynamodb', region: 'eu-central-1', credentials, sha256: /** @type {any} */ (Sha256), applyChecksum: false });
  const unsigned = Object.fromEntries(Object.entries(headers).filter(([name]) => !['authorization', 'x-amz-date', 'x-amz-security-token'].includes(name)).map(([name, value]) => [name, String(value)]));
  const signed = /** @type {any} */ (await signer.sign(
    /** @type {any} */ ({ method: 'POST', protocol: 'https:', hostname: 'dynamodb.eu-central-1.amazonaws.com', path: '/', query: {}, headers: unsigned, body: payload }),
    { signingDate: now },
  ));
  return signed.headers.authorization;
}

describe('BatchWriteItem client', () => {
  const payload = Buffer.from('{"RequestItems":{"people":[{"PutRequest":{"Item":{"id":{"S":"ünï €"}}}}]},"ReturnConsumedCapacity":"TOTAL"}');
  const now = new Date('2026-11-22T23:59:58.123Z');

  /** @type {Array<[string, import('../../../src/write/batch-write-client.js').Credentials]>} */
  const credentialCases = [
    ['long-term credentials', { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }],
    ['a session token', { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret/with+signs', sessionToken: 'FwoGZXIvYXdzEJr//////////wEaDEXAMPLE==' }],
  ];
  it.each(credentialCases)('signs as the SDK signs, with %s', async (_, credentials) => {
    const headers = signedHeaders({ host: 'dynamodb.eu-central-1.amazonaws.com', path: '/', region: 'eu-central-1', payload, credentials, now });
    expect(headers['x-amz-date']).toBe('20261122T235958Z');
    expect(headers['x-amz-security-token']).toBe(credentials.sessionToken);
    expect(headers.authorization).toBe(await sdkAuthorization(headers, payload, credentials, now));
    // A different body, day or secret is a different signature.
    expect(signedHeaders({ host: 'dynamodb.eu-central-1.amazonaws.com', path: '/', region: 'eu-central-1', payload: Buffer.from('{}'), credentials, now }).authorization).not.toBe(headers.authorization);
    expect(signedHeaders({ host: 'dynamodb.eu-central-1.amazonaws.com', path: '/', region: 'eu-central-1', payload, credentials, now: new Date('2026-11-23T00:00:01Z') }).authorization).not.toBe(headers.authorization);
  });

  /** @type {http.Server | undefined} */
  let server;
  afterEach(() => new Promise((resolve) => (server ? server.close(() => resolve(undefined)) : resolve(undefined))));

  /**
   * A loopback server that answers each call with `answer`, and the client pointed at it.
   * @param {(request: http.IncomingMessage, body: string, response: http.ServerResponse) => void} answer
   */
  async function clientAnswered(answer) {
    server = http.createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => answer(request, body, response));
    });
    await new Promise((resolve) => /** @type {http.Server} */ (server).listen(0, '127.0.0.1', () => resolve(undefined)));
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    const credentials = { accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'token' };
    return createBatchWriteClient({ endpoint: new URL(`http://127.0.0.1:${port}`), region: 'us-east-1', credentials: async () => credentials, requestTimeoutMs: 300, maxSockets: 4 });
  }

  it('posts the body with the target, signature and token headers, and reads the answer', async () => {
    /** @type {http.IncomingHttpHeaders} */
    let seen = {};
    let seenBody = '';
    const client = await clientAnswered((request, body, response) => {
      seen = request.headers;
      seenBody = body;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"people","CapacityUnits":1}]}');
    });
    const output = await client.batchWrite(payload.toString());
    client.destroy();
    expect(output).toEqual({ UnprocessedItems: {}, ConsumedCapacity: [{ TableName: 'people', CapacityUnits: 1 }] });
    expect(seenBody).toBe(payload.toString());
    expect(seen['x-amz-target']).toBe('DynamoDB_20120810.BatchWriteItem');
    expect(seen['content-type']).toBe('application/x-amz-json-1.0');
    expect(seen['content-length']).toBe(String(payload.length));
    expect(seen['x-amz-security-token']).toBe('token');
    expect(seen.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=[0-9a-f]{64}$/);
  });

  it.each([
    ['a throttle', 400, '{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"The level of configured provisioned throughput for the table was exceeded."}', 'ProvisionedThroughputExceededException', 'throttle'],
    ['a refused item', 400, '{"__type":"com.amazon.coral.validate#ValidationException","message":"One or more parameter values were invalid"}', 'ValidationException', 'invalid'],
    ['a missing table', 400, '{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}', 'ResourceNotFoundException', 'fatal'],
    ['bad credentials', 400, '{"__type":"com.amazon.coral.service#UnrecognizedClientException","Message":"The security token included in the request is invalid."}', 'UnrecognizedClientException', 'fatal'],
    ['a server fault', 500, '{"__type":"com.amazon.coral.service#InternalFailure"}', 'InternalFailure', 'transient'],
    ['a proxy page', 503, '<html>Service Unavailable</html>', 'InternalServerError', 'transient'],
    ['a 200 that is not JSON', 200, '{"Unprocessed', 'MalformedResponse', 'transient'],
  ])('names %s as the SDK would, so it is retried or not alike', async (_, status, text, name, kind) => {
    const client = await clientAnswered((request, body, response) => response.writeHead(status, { 'x-amzn-requestid': 'REQ1' }).end(text));
    const error = await client.batchWrite('{}').catch((/** @type {any} */ e) => e);
    client.destroy();
    expect(error.name).toBe(name);
    expect(error.$metadata).toEqual({ httpStatusCode: status, requestId: 'REQ1' });
    expect(classifyError(error)).toBe(kind);
    if (name === 'UnrecognizedClientException') expect(error.message).toBe('The security token included in the request is invalid.');
  });

  it('keeps the ThrottlingReasons of a throttled call', async () => {
    const text = JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
      message: 'Throughput exceeds the current capacity for one or more global secondary indexes.',
      ThrottlingReasons: [
        { reason: 'IndexWriteProvisionedThroughputExceeded', resource: 'arn:aws:dynamodb:us-east-1:111122223333:table/people/index/byCountry' },
        { reason: 'TableWriteKeyRangeThroughputExceeded', resource: 'arn:aws:dynamodb:us-east-1:111122223333:table/people' },
        { resource: 'no reason: dropped' },
      ],
    });
    const client = await clientAnswered((request, body, response) => response.writeHead(400).end(text));
    const error = await client.batchWrite('{}').catch((/** @type {any} */ e) => e);
    client.destroy();
    expect(classifyError(error)).toBe('throttle');
    expect(error.throttlingReasons).toEqual([
      { reason: 'IndexWriteProvisionedThroughputExceeded', resource: 'arn:aws:dynamodb:us-east-1:111122223333:table/people/index/byCountry' },
      { reason: 'TableWriteKeyRangeThroughputExceeded', resource: 'arn:aws:dynamodb:us-east-1:111122223333:table/people' },
    ]);
  });

  it('checks the answer against its x-amz-crc32 header: a match is read, a damaged body is retried rather than believed', async () => {
    const answer = '{"UnprocessedItems":{"people":[{"PutRequest":{"Item":{"id":{"S":"a1"}}}}]}}';
    // What a damaged body could say: nothing unprocessed, so the row would be counted written.
    const damaged = '{"UnprocessedItems":{"people":[                                         ]}}';
    const { crc32 } = await import('node:zlib');
    const checksum = String(crc32(Buffer.from(answer)));
    const client = await clientAnswered((request, body, response) => response.writeHead(200, { 'x-amz-crc32': checksum, 'x-amzn-requestid': 'REQ2' }).end(body === 'damaged' ? damaged : answer));
    expect(await client.batchWrite('{}')).toEqual(JSON.parse(answer));
    const error = await client.batchWrite('damaged').catch((/** @type {any} */ e) => e);
    client.destroy();
    expect(damaged.length).toBe(answer.length);
    expect(error.name).toBe('CRC32CheckFailed');
    expect(error.message).toContain('does not match its x-amz-crc32 header');
    expect(error.$metadata).toEqual({ httpStatusCode: 200, requestId: 'REQ2' });
    expect(classifyError(error)).toBe('transient');
  });

  it('takes the server\'s time when its clock is five minutes or more from ours: the refused call is retried and signed right', async () => {
    const ahead = 60 * 60 * 1000; // the server's clock is an hour ahead of this machine's
    /** @type {string[]} */
    const signedAt = [];
    const client = await clientAnswered((request, body, response) => {
      const amzDate = String(request.headers['x-amz-date']);
      signedAt.push(amzDate);
      const signed = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
      const serverNow = Date.now() + ahead;
      response.setHeader('date', new Date(serverNow).toUTCString());
      if (Math.abs(serverNow - signed) > 5 * 60 * 1000) {
        response.writeHead(400).end('{"__type":"com.amazon.coral.service#InvalidSignatureException","message":"Signature expired: is now earlier than ..."}');
      } else {
        response.writeHead(200).end('{"UnprocessedItems":{}}');
      }
    });
    const refused = await client.batchWrite('{}').catch((/** @type {any} */ e) => e);
    expect(refused.name).toBe('InvalidSignatureException');
    expect(classifyError(refused)).toBe('transient');
    expect(await client.batchWrite('{}')).toEqual({ UnprocessedItems: {} });
    expect(await client.batchWrite('{}')).toEqual({ UnprocessedItems: {} });
    client.destroy();
    expect(signedAt).toHaveLength(3);
    expect(signedAt[1]).not.toBe(signedAt[0]);

    // An offset the SDK already learned (the clock object is its client's config) is used from the first call.
    const { port } = /** @type {import('node:net').AddressInfo} */ (/** @type {http.Server} */ (server).address());
    const shared = { systemClockOffset: ahead };
    const knowing = createBatchWriteClient({ endpoint: new URL(`http://127.0.0.1:${port}`), region: 'us-east-1', credentials: async () => ({ accessKeyId: 'AKID', secretAccessKey: 'secret' }), requestTimeoutMs: 300, maxSockets: 4, clock: shared });
    expect(await knowing.batchWrite('{}')).toEqual({ UnprocessedItems: {} });
    knowing.destroy();
    expect(signedAt).toHaveLength(4);
    await new Promise((resolve) => /** @type {http.Server} */ (server).close(() => resolve(undefined)));

    // A clock within five minutes is left alone, and a signature refused for another reason is not retried.
    const wrongKey = await clientAnswered((request, body, response) => {
      response.setHeader('date', new Date(Date.now() + 60_000).toUTCString());
      response.writeHead(400).end('{"__type":"com.amazon.coral.service#InvalidSignatureException","message":"The request signature we calculated does not match"}');
    });
    const error = await wrongKey.batchWrite('{}').catch((/** @type {any} */ e) => e);
    wrongKey.destroy();
    expect(classifyError(error)).toBe('fatal');
  });

  it('fails a call with no answer as a TimeoutError after requestTimeoutMs, and a dropped connection as transient', async () => {
    const silent = await clientAnswered(() => {});
    const started = performance.now();
    const timeout = await silent.batchWrite('{}').catch((/** @type {any} */ e) => e);
    silent.destroy();
    expect(timeout.name).toBe('TimeoutError');
    expect(timeout.message).toContain('requestTimeoutMs (300 ms)');
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(classifyError(timeout)).toBe('transient');
    await new Promise((resolve) => /** @type {http.Server} */ (server).close(() => resolve(undefined)));

    const dropping = await clientAnswered((request) => request.socket.destroy());
    const dropped = await dropping.batchWrite('{}').catch((/** @type {any} */ e) => e);
    dropping.destroy();
    expect(dropped).toBeInstanceOf(Error);
    expect(classifyError(dropped)).toBe('transient');
  });

  it('sends where DescribeTable goes when an endpoint is configured for the SDK (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, endpoint_url), unless told to ignore it', async () => {
    const names = ['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS', 'AWS_CONFIG_FILE', 'AWS_PROFILE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_USE_FIPS_ENDPOINT'];
    const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
    const { mkdtemp, rm, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { DescribeTableCommand } = await import('@aws-sdk/client-dynamodb');
    const dir = await mkdtemp(join(tmpdir(), 'endpoint-config-'));
    /** @type {string[]} */
    const targets = [];
    server = http.createServer((request, response) => {
      targets.push(String(request.headers['x-amz-target']));
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}'));
    });
    await new Promise((resolve) => /** @type {http.Server} */ (server).listen(0, '127.0.0.1', () => resolve(undefined)));
    const local = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/`;
    const settings = { region: 'eu-west-1', tableRegion: 'eu-west-1', concurrency: 4, requestTimeoutMs: 1_000, dynamodbEndpoint: undefined, s3Endpoint: undefined };
    try {
      for (const name of names) delete process.env[name];
      process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
      process.env.AWS_SECRET_ACCESS_KEY = 'secret';
      process.env.AWS_CONFIG_FILE = join(dir, 'none');

      process.env.AWS_ENDPOINT_URL_DYNAMODB = local;
      process.env.AWS_ENDPOINT_URL = 'http://127.0.0.1:9/';
      const clients = createClients(settings);
      await clients.dynamodb.send(new DescribeTableCommand({ TableName: 'people' }));
      await clients.batchWrite.batchWrite('{"RequestItems":{}}');
      clients.batchWrite.destroy();
      clients.dynamodb.destroy();
      expect(targets).toEqual(['DynamoDB_20120810.DescribeTable', 'DynamoDB_20120810.BatchWriteItem']);

      delete process.env.AWS_ENDPOINT_URL_DYNAMODB;
      expect((await createClients(settings).batchWrite.endpoint()).href).toBe('http://127.0.0.1:9/');

      delete process.env.AWS_ENDPOINT_URL;
      await writeFile(join(dir, 'config'), `[default]\nendpoint_url = ${local}\n`);
      process.env.AWS_CONFIG_FILE = join(dir, 'config');
      expect((await createClients(settings).batchWrite.endpoint()).href).toBe(local);

      process.env.AWS_ENDPOINT_URL_DYNAMODB = local;
      process.env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS = 'true';
      expect((await createClients(settings).batchWrite.endpoint()).href).toBe('https://dynamodb.eu-west-1.amazonaws.com/');
      // A table in another region than the function (TABLE_REGION) is called there.
      expect((await createClients({ ...settings, tableRegion: 'ap-south-1' }).batchWrite.endpoint()).href).toBe('https://dynamodb.ap-south-1.amazonaws.com/');
      expect(await createClients({ ...settings, tableRegion: 'ap-south-1' }).dynamodb.config.region()).toBe('ap-south-1');
      // The importer's own override wins over all of them, as it does for the SDK's client.
      delete process.env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS;
      expect((await createClients({ ...settings, dynamodbEndpoint: 'http://127.0.0.1:8000' }).batchWrite.endpoint()).href).toBe('http://127.0.0.1:8000/');
    } finally {
      for (const name of names) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('sends to the endpoint the SDK would choose: by region, FIPS when asked, or the override', async () => {
    const settings = { region: 'eu-west-1', tableRegion: 'eu-west-1', concurrency: 4, requestTimeoutMs: 1_000, dynamodbEndpoint: undefined, s3Endpoint: undefined };
    const fips = process.env.AWS_USE_FIPS_ENDPOINT;
    try {
      delete process.env.AWS_USE_FIPS_ENDPOINT;
      expect((await createClients(settings).batchWrite.endpoint()).href).toBe('https://dynamodb.eu-west-1.amazonaws.com/');
      // A table in another region than the function (TABLE_REGION) is called there.
      expect((await createClients({ ...settings, tableRegion: 'ap-south-1' }).batchWrite.endpoint()).href).toBe('https://dynamodb.ap-south-1.amazonaws.com/');
      expect(await createClients({ ...settings, tableRegion: 'ap-south-1' }).dynamodb.config.region()).toBe('ap-south-1');
      expect((await createClients({ ...settings, region: 'cn-north-1', tableRegion: 'cn-north-1' }).batchWrite.endpoint()).href).toBe('https://dynamodb.cn-north-1.amazonaws.com.cn/');
      process.env.AWS_USE_FIPS_ENDPOINT = 'true';
      expect((await createClients({ ...settings, region: 'us-east-1', tableRegion: 'us-east-1' }).batchWrite.endpoint()).href).toBe('https://dynamodb-fips.us-east-1.amazonaws.com/');
      expect((await createClients({ ...settings, dynamodbEndpoint: 'http://127.0.0.1:8000' }).batchWrite.endpoint()).href).toBe('http://127.0.0.1:8000/');
    } finally {
      if (fips === undefined) delete process.env.AWS_USE_FIPS_ENDPOINT;
      else process.env.AWS_USE_FIPS_ENDPOINT = fips;
    }
  });
});

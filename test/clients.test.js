import { BatchWriteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { serializeBatchWritesAsJson } from '../src/clients.js';

/** The request a client would send for a command, captured before signing. @param {DynamoDBClient} client @param {any} command */
async function requestOf(client, command) {
  /** @type {any} */
  let captured;
  command.middlewareStack.add(
    () => async (/** @type {any} */ args) => {
      captured = args.request;
      return { output: { $metadata: {} }, response: {} };
    },
    { step: 'build', priority: 'low', name: 'captureRequest' },
  );
  await client.send(command).catch(() => {});
  return captured;
}

/** @type {import('@aws-sdk/client-dynamodb').BatchWriteItemCommandInput} */
const input = {
  RequestItems: {
    'my-table': [
      { PutRequest: { Item: { id: { S: 'a "quoted", id' }, n: { N: '-12.50' }, ok: { BOOL: true }, note: { S: 'line\nbreak, ünï €' } } } },
      { PutRequest: { Item: { id: { S: 'b' }, big: { N: '12345678901234567890123456789012345678' }, ok: { BOOL: false } } } },
    ],
  },
  ReturnConsumedCapacity: 'TOTAL',
};

describe('BatchWriteItem as JSON', () => {
  it('sends the same request as the SDK: same body, path and headers', async () => {
    const options = { region: 'us-east-1', endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
    const sdk = await requestOf(new DynamoDBClient(options), new BatchWriteItemCommand(input));
    const fastClient = new DynamoDBClient(options);
    serializeBatchWritesAsJson(fastClient);
    const fast = await requestOf(fastClient, new BatchWriteItemCommand(input));
    // The SDK's body is the UTF-8 bytes, this one the string: the same bytes on the wire.
    expect(fast.body).toBe(new TextDecoder().decode(sdk.body));
    expect(JSON.parse(fast.body)).toEqual(input);
    expect(fast.path).toBe(sdk.path);
    expect(fast.hostname).toBe(sdk.hostname);
    expect(fast.headers['x-amz-target']).toBe('DynamoDB_20120810.BatchWriteItem');
    expect(fast.headers['content-type']).toBe(sdk.headers['content-type']);
    expect(fast.headers['content-length']).toBe(sdk.headers['content-length']);
  });
});

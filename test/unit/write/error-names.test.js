/**
 * Every error DynamoDB documents for the calls that write (BatchWriteItem, PutItem, UpdateItem,
 * DeleteItem) and how the writer classifies it (src/write/retry.js). The per-call lists are read from the
 * AWS SDK's own command models (its `@throws` lines, generated from DynamoDB's API reference), so that an
 * error AWS adds to a call fails this test until it is classified here; the common errors every call may
 * answer are DynamoDB's "Common errors" page.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../../src/write/retry.js';

/** What becomes of a call that answers each error, and why. @type {Record<string, { kind: import('../../../src/write/retry.js').ErrorKind, why: string }>} */
const CLASSIFIED = {
  ConditionalCheckFailedException: { kind: 'condition', why: 'the table holds what sequential writes would have left: the row is skipped' },
  InternalServerError: { kind: 'transient', why: 'HTTP 500: retried with backoff' },
  InvalidEndpointException: { kind: 'fatal', why: 'HTTP 421, an endpoint-discovery answer: the endpoint is wrong for every row' },
  ItemCollectionSizeLimitExceededException: { kind: 'invalid', why: 'an item collection past 10 GB: the batch is split, only that row rejected' },
  ProvisionedThroughputExceededException: { kind: 'throttle', why: 'capacity: retried, the window and pace cut' },
  ReplicatedWriteConflictException: { kind: 'transient', why: 'a write in another Region holds the item: passes once it has' },
  RequestLimitExceeded: { kind: 'throttle', why: 'the account\'s throughput: retried, the window and pace cut' },
  ResourceNotFoundException: { kind: 'fatal', why: 'no such table (or not ACTIVE): no row can be written' },
  ThrottlingException: { kind: 'throttle', why: 'capacity or the control plane: retried, the window and pace cut' },
  TransactionConflictException: { kind: 'transient', why: 'another client\'s transaction holds the item: passes once it has' },
};

/** DynamoDB's common errors (any call), with their HTTP status. @type {Array<[string, number, import('../../../src/write/retry.js').ErrorKind]>} */
const COMMON = [
  ['AccessDeniedException', 400, 'fatal'],
  ['IncompleteSignature', 400, 'fatal'],
  ['InternalFailure', 500, 'transient'],
  ['InvalidAction', 400, 'fatal'],
  ['InvalidClientTokenId', 403, 'fatal'],
  ['MissingAction', 400, 'fatal'],
  ['MissingAuthenticationToken', 403, 'fatal'],
  ['NotAuthorized', 400, 'fatal'],
  ['OptInRequired', 403, 'fatal'],
  ['RequestExpired', 400, 'fatal'],
  ['ServiceUnavailable', 503, 'transient'],
  ['ThrottlingException', 400, 'throttle'],
  ['UnrecognizedClientException', 400, 'fatal'],
  ['ValidationError', 400, 'fatal'],
  ['ValidationException', 400, 'invalid'],
  ['SerializationException', 400, 'invalid'],
];

const HTTP_STATUS = { InternalServerError: 500, InvalidEndpointException: 421 };

/** The errors the SDK's model says a command throws. @param {string} command */
function documentedErrors(command) {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('@aws-sdk/client-dynamodb/package.json'));
  const text = readFileSync(join(root, 'dist-types', 'commands', `${command}Command.d.ts`), 'utf8');
  return [...text.matchAll(/@throws \{@link (\w+)\}/g)].map((match) => match[1]).filter((name) => name !== 'DynamoDBServiceException');
}

/** An error as the SDK throws it. @param {string} name @param {number} status */
const sdkError = (name, status) => Object.assign(new Error(name), { name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });

describe('every error DynamoDB documents for a write is classified', () => {
  for (const command of ['BatchWriteItem', 'PutItem', 'UpdateItem', 'DeleteItem']) {
    it(`${command}: each documented error has a decided kind`, () => {
      const names = documentedErrors(command);
      expect(names.length).toBeGreaterThan(5);
      for (const name of names) {
        expect(CLASSIFIED, `${command} documents ${name}: decide how the writer treats it`).toHaveProperty(name);
        const status = /** @type {Record<string, number>} */ (HTTP_STATUS)[name] ?? 400;
        expect([name, classifyError(sdkError(name, status))]).toEqual([name, CLASSIFIED[name].kind]);
      }
      if (command !== 'BatchWriteItem') expect(names).toContain('TransactionConflictException');
    });
  }

  it.each(COMMON)('the common error %s (HTTP %i) is %s', (name, status, kind) => {
    expect(classifyError(sdkError(name, status))).toBe(kind);
  });
});

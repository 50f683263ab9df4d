/**
 * The conditional write modes' calls (src/write/item-requests.js): each row's request as DynamoDB reads
 * it, and the rows refused before any call. What the calls do to a table is shown on the local servers
 * (test/integration/write-modes.test.js) and against the oracle (the fuzz lanes if-absent, newer, update).
 */
import { describe, expect, it } from 'vitest';
import { createItemRequests, MAX_EXPRESSION_BYTES } from '../../../src/write/item-requests.js';

const keys = { partition: { name: 'id', type: /** @type {const} */ ('S') }, sort: { name: 'at', type: /** @type {const} */ ('N') } };
/** @param {Record<string, unknown>} item @param {'put' | 'delete'} [op] */
const entry = (item, op) => ({ json: JSON.stringify(item), keyId: 'k', line: 2, fields: [], ...(op === undefined ? {} : { op }) });

describe('conditional write requests', () => {
  it('if-absent: a PutItem of the row under attribute_not_exists of the partition key', () => {
    const request = createItemRequests({ table: 'T "x"', writeMode: 'if-absent', versionColumn: undefined, keys })(entry({ id: { S: 'a' }, at: { N: '1' }, n: { S: 'x' } }));
    expect(request).toMatchObject({ operation: 'PutItem' });
    expect(JSON.parse(/** @type {{ body: string }} */ (request).body)).toEqual({
      TableName: 'T "x"',
      Item: { id: { S: 'a' }, at: { N: '1' }, n: { S: 'x' } },
      ConditionExpression: 'attribute_not_exists(#k)',
      ExpressionAttributeNames: { '#k': 'id' },
      ReturnConsumedCapacity: 'TOTAL',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('newer: a PutItem where the item is absent or its version lower; a row without an N or S version refused', () => {
    const requestOf = createItemRequests({ table: 'T', writeMode: 'newer', versionColumn: 'v', keys });
    const body = JSON.parse(/** @type {{ body: string }} */ (requestOf(entry({ id: { S: 'a' }, at: { N: '1' }, v: { N: '007' } }))).body);
    expect(body).toMatchObject({ ConditionExpression: 'attribute_not_exists(#k) OR #v < :v', ExpressionAttributeNames: { '#k': 'id', '#v': 'v' }, ExpressionAttributeValues: { ':v': { N: '007' } } });
    for (const version of [undefined, { NULL: true }, { BOOL: true }, { SS: ['a'] }, { S: '' }]) {
      const refusal = requestOf(entry({ id: { S: 'a' }, at: { N: '1' }, ...(version === undefined ? {} : { v: version }) }));
      expect(refusal).toMatchObject({ reason: 'INVALID_VERSION' });
      expect(/** @type {{ message: string }} */ (refusal).message).toContain('"v"');
    }
    // Not a prototype's member: an attribute named like one is read as the row's own.
    expect(createItemRequests({ table: 'T', writeMode: 'newer', versionColumn: 'toString', keys })(entry({ id: { S: 'a' } }))).toMatchObject({ reason: 'INVALID_VERSION' });
  });

  it('update: an UpdateItem of the key that sets every other attribute, and only with a version under newer\'s condition', () => {
    const plain = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: undefined, keys })(entry({ at: { N: '1' }, 'odd "name"': { S: 'x' }, id: { S: 'a' }, n: { NULL: true } }));
    expect(JSON.parse(/** @type {{ body: string }} */ (plain).body)).toEqual({
      TableName: 'T',
      Key: { at: { N: '1' }, id: { S: 'a' } },
      UpdateExpression: 'SET #0=:0,#1=:1',
      ExpressionAttributeNames: { '#0': 'odd "name"', '#1': 'n' },
      ExpressionAttributeValues: { ':0': { S: 'x' }, ':1': { NULL: true } },
      ReturnConsumedCapacity: 'TOTAL',
    });
    const versioned = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: 'v', keys })(entry({ id: { S: 'a' }, at: { N: '1' }, v: { S: '2026' }, n: { N: '2' } }));
    expect(JSON.parse(/** @type {{ body: string }} */ (versioned).body)).toEqual({
      TableName: 'T',
      Key: { id: { S: 'a' }, at: { N: '1' } },
      UpdateExpression: 'SET #v=:v,#0=:0',
      ConditionExpression: 'attribute_not_exists(#k) OR #v < :v',
      ExpressionAttributeNames: { '#k': 'id', '#v': 'v', '#0': 'n' },
      ExpressionAttributeValues: { ':v': { S: '2026' }, ':0': { N: '2' } },
      ReturnConsumedCapacity: 'TOTAL',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    // A row of the key alone creates the item if it is absent, and changes nothing else.
    const bare = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: undefined, keys })(entry({ id: { S: 'a' }, at: { N: '1' } }));
    expect(JSON.parse(/** @type {{ body: string }} */ (bare).body)).toEqual({ TableName: 'T', Key: { id: { S: 'a' }, at: { N: '1' } }, ReturnConsumedCapacity: 'TOTAL' });
    expect(createItemRequests({ table: 'T', writeMode: 'update', versionColumn: 'v', keys })(entry({ id: { S: 'a' }, at: { N: '1' }, n: { N: '2' } }))).toMatchObject({ reason: 'INVALID_VERSION' });
  });

  it('a delete (an incremental export\'s) is a DeleteItem of its key, whatever the mode', () => {
    for (const writeMode of /** @type {const} */ (['if-absent', 'newer', 'update'])) {
      const request = createItemRequests({ table: 'T', writeMode, versionColumn: writeMode === 'if-absent' ? undefined : 'v', keys })(entry({ id: { S: 'a' }, at: { N: '1' } }, 'delete'));
      expect(request).toEqual({ operation: 'DeleteItem', body: '{"TableName":"T","Key":{"id":{"S":"a"},"at":{"N":"1"}},"ReturnConsumedCapacity":"TOTAL"}' });
    }
  });

  it('update: a row whose UpdateExpression would pass DynamoDB\'s 4 KB is refused before any call; 430 attributes fit', () => {
    const requestOf = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: undefined, keys });
    /** @param {number} count */
    const wide = (count) => entry({ id: { S: 'a' }, at: { N: '1' }, ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`c${i}`, { S: 'x' }])) });
    const fits = /** @type {{ body: string }} */ (requestOf(wide(431)));
    expect(JSON.parse(fits.body).UpdateExpression.length).toBeLessThanOrEqual(MAX_EXPRESSION_BYTES);
    expect(requestOf(wide(432))).toMatchObject({ reason: 'REJECTED_BY_TABLE', message: expect.stringContaining('passes DynamoDB\'s limit of 4096') });
  });

  it('update: no attribute\'s placeholder is the condition\'s #k, #v or :v, however wide the row and whatever its names', () => {
    // Numbered in base 36, the 21st attribute's name placeholder was #k and the 32nd's #v and :v: the
    // condition then tested another column, and a stale row overwrote a newer item.
    const requestOf = createItemRequests({ table: 'T', writeMode: 'update', versionColumn: 'v', keys });
    const names = ['#k', ':v', '#v', 'k', 'v ', ...Array.from({ length: 425 }, (_, i) => `c${i}`)];
    const request = /** @type {{ body: string }} */ (requestOf(entry({ id: { S: 'a' }, at: { N: '1' }, v: { N: '3' }, ...Object.fromEntries(names.map((name, i) => [name, { N: String(i) }])) })));
    const body = JSON.parse(request.body);
    expect(body.ConditionExpression).toBe('attribute_not_exists(#k) OR #v < :v');
    expect(body.ExpressionAttributeNames['#k']).toBe('id');
    expect(body.ExpressionAttributeNames['#v']).toBe('v');
    expect(body.ExpressionAttributeValues[':v']).toEqual({ N: '3' });
    // Every placeholder the expression uses names one attribute, and each attribute is set once, to its own value.
    /** @type {string[][]} */
    const sets = body.UpdateExpression.slice('SET '.length).split(',').map((/** @type {string} */ set) => set.split('='));
    expect(sets).toHaveLength(names.length + 1);
    expect(new Set(sets.map(([name]) => body.ExpressionAttributeNames[name])).size).toBe(names.length + 1);
    for (const [name, value] of sets) {
      const attribute = body.ExpressionAttributeNames[name];
      expect(body.ExpressionAttributeValues[value]).toEqual(attribute === 'v' ? { N: '3' } : { N: String(names.indexOf(attribute)) });
    }
    // JSON objects keep their last duplicate: the raw body names each placeholder once.
    expect(request.body.match(/"#k":/g)).toHaveLength(1);
    expect(request.body.match(/":v":/g)).toHaveLength(1);
  });
});

describe('versions that are numbers read as text', () => {
  it('are warned of once, with the line and the fix; N versions and ISO 8601 text are not', () => {
    for (const writeMode of /** @type {const} */ (['newer', 'update'])) {
      /** @type {Array<[string, Record<string, unknown>]>} */
      const warnings = [];
      const requestOf = createItemRequests({ table: 'T', writeMode, versionColumn: 'v', keys, warn: (message, fields) => warnings.push([message, fields]) });
      const at = (/** @type {unknown} */ v, /** @type {number} */ line) => ({ ...entry({ id: { S: 'a' }, at: { N: '1' }, v }), line });
      requestOf(at({ N: '9' }, 2));
      requestOf(at({ S: '2026-01-02T00:00:00Z' }, 3));
      expect(warnings).toEqual([]);
      requestOf(at({ S: '10' }, 4));
      requestOf(at({ S: '9' }, 5));
      expect(warnings).toEqual([[expect.stringContaining('compare as text: "9" is newer than "10"'), { versionColumn: 'v', line: 4 }]]);
    }
  });
});

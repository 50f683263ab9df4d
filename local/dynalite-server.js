/**
 * dynalite (an open-source DynamoDB in Node.js, MIT) in a process of its own, started by dynalite.js: it
 * listens on 127.0.0.1 and a port the OS picks, says which over its IPC channel, and exits when that
 * channel closes (the process that started it is gone, however it went). Tables are in memory, or in
 * the LevelDB directory named by DYNALITE_PATH, where they outlive the run.
 */
import { createRequire } from 'node:module';
import dynalite from 'dynalite';

const require = createRequire(import.meta.url);
keepProtoNames(require('dynalite/validations'));
checkIndexKeys(require('dynalite/db'));
returnHeldItemOnConditionFailure(require('dynalite/db'), ['putItem', 'updateItem', 'deleteItem'].map((action) => require(`dynalite/validations/${action}`)));

if (process.send === undefined) {
  process.stderr.write('local/dynalite-server.js is started by local/dynalite.js (it reports its port over IPC)\n');
  process.exit(2);
}
const send = process.send.bind(process);
const directory = process.env.DYNALITE_PATH || undefined;

/** Says what went wrong in one line, with the fix where one is known, and exits. @param {string} what */
function fail(what) {
  const held = directory === undefined ? '' : `; is another local DynamoDB using ${directory}? Stop it, or keep the tables in another directory`;
  process.stderr.write(`dynalite${directory === undefined ? '' : ` (tables in ${directory})`} failed: ${what}${held}\n`);
  process.exit(1);
}
// Its store fails on requests, not at its start (a LevelDB directory another process holds).
process.on('uncaughtException', (error) => fail(error.message));

// Tables are ACTIVE at once: DynamoDB's minutes of CREATING are nothing a test or a local import needs.
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(directory === undefined ? {} : { path: directory }) });
server.on('error', (/** @type {Error} */ error) => fail(error.message));
server.listen(0, '127.0.0.1', async () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  // Its store opens on the first request: one is made here, so that a store that cannot open (a
  // directory another server holds) fails the start, not the import's first call.
  const failure = await listTables(address.port);
  if (failure !== undefined) fail(`its store did not open (${failure})`);
  send({ port: address.port });
});

/** @param {number} port @returns {Promise<string | undefined>} what went wrong, if anything */
async function listTables(port) {
  const date = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        'x-amz-date': date,
        authorization: `AWS4-HMAC-SHA256 Credential=local/${date.slice(0, 8)}/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
      },
      body: '{}',
    });
    return response.ok ? undefined : `${response.status} ${await response.text()}`;
  } catch (error) {
    return String(/** @type {Error} */ (error).cause ?? error);
  }
}
process.once('disconnect', () => {
  server.close(() => process.exit(0));
  // A store that will not close in time is left to the OS.
  setTimeout(() => process.exit(0), 2_000).unref();
});

/**
 * dynalite copies a request's members by assignment, so a member named `__proto__` (an attribute, a map
 * key) sets the copy's prototype and is lost, where DynamoDB stores it like any name. Its request check
 * is called through its module's exports: the names are carried past it escaped and put back as own
 * members. The escape is reversible for every name: `__proto__` and any name that starts with the escape
 * get it prepended, and only names that start with it lose it.
 * @param {{ checkTypes: (data: unknown, types: unknown) => unknown }} validations
 */
function keepProtoNames(validations) {
  const ESCAPE = '\u0000dynalite:';
  const checkTypes = validations.checkTypes;
  /** @param {unknown} value @param {(name: string) => string} rename @returns {unknown} */
  const renamed = (value, rename) => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((member) => renamed(member, rename));
    /** @type {Record<string, unknown>} */
    const copy = {};
    for (const name of Object.keys(value)) {
      Object.defineProperty(copy, rename(name), { value: renamed(/** @type {Record<string, unknown>} */ (value)[name], rename), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  };
  const escape = (/** @type {string} */ name) => (name === '__proto__' || name.startsWith(ESCAPE) ? `${ESCAPE}${name}` : name);
  const unescape = (/** @type {string} */ name) => (name.startsWith(ESCAPE) ? name.slice(ESCAPE.length) : name);
  validations.checkTypes = (data, types) => renamed(checkTypes(renamed(data, escape), types), unescape);
}

/**
 * DynamoDB refuses an item whose secondary index key attribute is an empty string or binary, or longer
 * than a key may be (2,048 bytes for a partition key, 1,024 for a sort key, in UTF-8); dynalite checks the
 * table's own key so, but not an index's. Its item check is called through its module's exports: the
 * index keys are checked after it, with DynamoDB's messages.
 * @param {{ validateItem: (item: any, table: any) => unknown, validationError: (message: string) => unknown }} db
 */
function checkIndexKeys(db) {
  const validateItem = db.validateItem;
  db.validateItem = (item, table) => validateItem(item, table) ?? indexKeyError(item, table);
  /** @param {any} item @param {any} table */
  function indexKeyError(item, table) {
    const indexes = [...(table.GlobalSecondaryIndexes ?? []), ...(table.LocalSecondaryIndexes ?? [])];
    for (const index of indexes) {
      for (const { AttributeName: name, KeyType: role } of index.KeySchema) {
        const value = item[name];
        const text = value?.S ?? value?.B;
        if (typeof text !== 'string') continue;
        if (text === '') return db.validationError(`One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty ${value.S !== undefined ? 'string' : 'binary'} value. IndexName: ${index.IndexName}, IndexKey: ${name}`);
        const bytes = value.S !== undefined ? Buffer.byteLength(text) : Buffer.from(text, 'base64').length;
        if (role === 'HASH' && bytes > 2048) return db.validationError('One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes');
        if (role === 'RANGE' && bytes > 1024) return db.validationError('One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes');
      }
    }
    return undefined;
  }
}

/**
 * DynamoDB answers a failed condition with the item the table holds when the call asks for it
 * (ReturnValuesOnConditionCheckFailure ALL_OLD, since 2023), and bills the check by that item's size;
 * dynalite predates it and drops the parameter. The parameter is let through its request check (as
 * DynamoDB's: ALL_OLD or NONE), and its condition check, called through its module's exports, puts the
 * held item in the error's body.
 * @param {{ checkConditional: (data: any, existingItem: any) => any }} db
 * @param {Array<{ types: Record<string, unknown> }>} actions  the validations of PutItem, UpdateItem, DeleteItem
 */
function returnHeldItemOnConditionFailure(db, actions) {
  for (const action of actions) action.types.ReturnValuesOnConditionCheckFailure = { type: 'String', enum: ['ALL_OLD', 'NONE'] };
  const checkConditional = db.checkConditional;
  db.checkConditional = (data, existingItem) => {
    const error = checkConditional(data, existingItem);
    if (error != null && existingItem != null && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') error.body = { ...error.body, Item: existingItem };
    return error;
  };
}

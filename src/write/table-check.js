/**
 * Checks the target table before the first write: it exists, and the configured key columns match its
 * key schema in name and type. A mismatch would otherwise reject every row, one batch at a time.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { TableError } from '../errors.js';

/**
 * @param {import('@aws-sdk/client-dynamodb').DynamoDBClient} dynamodb
 * @param {Pick<import('../config/index.js').ImportConfig, 'table' | 'tableRegion' | 'keyColumn' | 'sortKeyColumn' | 'columnTypes'>} config
 * @returns {Promise<import('@aws-sdk/client-dynamodb').TableDescription>}  what DescribeTable said
 */
export async function checkTable(dynamodb, config) {
  let description;
  try {
    description = (await dynamodb.send(new DescribeTableCommand({ TableName: config.table }))).Table;
  } catch (error) {
    if (/** @type {Error} */ (error).name === 'ResourceNotFoundException') {
      throw new TableError(`table "${config.table}" does not exist in ${config.tableRegion}; create it first, or name an existing table with the "table" option (TABLE_NAME)`, error);
    }
    throw error;
  }
  const keys = tableKeysOf(description ?? {});
  const hash = keys.partition?.name;
  const range = keys.sort?.name;
  if (hash === undefined) {
    throw new TableError(`DescribeTable of "${config.table}" in ${config.tableRegion} gave no partition key in its key schema; check that the endpoint is DynamoDB (or a faithful emulator) and the table is ACTIVE`);
  }

  if (hash !== config.keyColumn) {
    throw new TableError(`table "${config.table}" has partition key "${hash}", but keyColumn is "${config.keyColumn}"; set keyColumn to the CSV column that holds "${hash}"`);
  }
  if (range !== config.sortKeyColumn) {
    throw new TableError(
      range === undefined
        ? `table "${config.table}" has no sort key, but sortKeyColumn is "${config.sortKeyColumn}"; leave sortKeyColumn unset`
        : `table "${config.table}" has sort key "${range}", but sortKeyColumn is ${config.sortKeyColumn === undefined ? 'not set' : `"${config.sortKeyColumn}"`}; set sortKeyColumn to the CSV column that holds "${range}"`,
    );
  }
  // A CSV's key types are the options' (checked by checkKeyTypes once the file is known to be CSV); a JSON
  // file's are its values', checked row by row, unless columnTypes names them.
  checkKeyTypes(/** @type {import('@aws-sdk/client-dynamodb').TableDescription} */ (description), config, (column) => config.columnTypes[column] !== undefined);
  return /** @type {import('@aws-sdk/client-dynamodb').TableDescription} */ (description);
}

/**
 * The import's types of the key columns (columnTypes; a CSV column is S unless typed) against the table's.
 * @param {import('@aws-sdk/client-dynamodb').TableDescription} description
 * @param {Pick<import('../config/index.js').ImportConfig, 'table' | 'columnTypes'>} config
 * @param {(column: string) => boolean} [applies]  which key columns to check (default: both)
 */
export function checkKeyTypes(description, config, applies = () => true) {
  const { partition, sort } = tableKeysOf(description);
  for (const key of [partition, sort]) {
    if (key === undefined || !applies(key.name)) continue;
    const importType = config.columnTypes[key.name] ?? 'S';
    if (key.type !== importType) {
      throw new TableError(`table "${config.table}" types key "${key.name}" as ${key.type}, but the import types it as ${importType}; set columnTypes to "${key.name}:${key.type}"`);
    }
  }
}

/**
 * The table's key attributes and their types, from DescribeTable: what the options are checked against
 * (checkTable, checkKeyTypes) and what a JSON file's keys are checked against row by row.
 * @typedef {{ name: string, type: 'S' | 'N' | 'B' }} KeyAttribute
 * @typedef {{ partition: KeyAttribute, sort?: KeyAttribute }} TableKeys
 */

/** @param {import('@aws-sdk/client-dynamodb').TableDescription} description @returns {TableKeys} */
export function tableKeysOf(description) {
  const typeOf = new Map((description.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  // A type missing from AttributeDefinitions (an emulator that leaves it out) matches no import's type.
  const attribute = (/** @type {string | undefined} */ name) => (name === undefined ? undefined : { name, type: /** @type {'S' | 'N' | 'B'} */ (typeOf.get(name)) });
  const keySchema = description.KeySchema ?? [];
  const partition = /** @type {KeyAttribute} */ (attribute(keySchema.find((k) => k.KeyType === 'HASH')?.AttributeName));
  const sort = attribute(keySchema.find((k) => k.KeyType === 'RANGE')?.AttributeName);
  return sort === undefined ? { partition } : { partition, sort };
}


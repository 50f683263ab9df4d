/**
 * The one-row calls of the conditional write modes: each row's PutItem or UpdateItem request, with the
 * condition under which a row applied alone, in file order, would change the item. BatchWriteItem takes
 * no condition, hence a call per row.
 *
 *   if-absent  PutItem where no item has the key:           attribute_not_exists(#k)
 *   newer      PutItem where none has it, or a lower version: attribute_not_exists(#k) OR #v < :v
 *   update     UpdateItem SET of the row's other attributes (with versionColumn, under newer's condition)
 *
 * DynamoDB compares N as numbers and S by their UTF-8 bytes; an item whose version has another type (or
 * none) fails the comparison, so the row is skipped, as a row not newer is. A row without a version of
 * its own (or an empty S) cannot be compared and is refused here (INVALID_VERSION), before any call. A
 * delete (an incremental export's) is a DeleteItem without a condition: the change it stands for happened.
 */

/** @typedef {import('../types.js').Entry} Entry */
/** @typedef {import('./batch-write-client.js').WriteOperation} WriteOperation */
/** @typedef {{ operation: WriteOperation, body: string }} ItemRequest */
/** @typedef {{ reason: 'INVALID_VERSION' | 'REJECTED_BY_TABLE', message: string }} RequestRefusal */
/** @typedef {'if-absent' | 'newer' | 'update'} ConditionalMode */

/** DynamoDB's longest expression string: an update of more attributes than fit is refused by the table. */
export const MAX_EXPRESSION_BYTES = 4096;

/**
 * @param {object} options
 * @param {string} options.table
 * @param {ConditionalMode} options.writeMode
 * @param {string | undefined} options.versionColumn
 * @param {import('./table-check.js').TableKeys} options.keys
 * @param {(message: string, fields: Record<string, unknown>) => void} [options.warn]
 * @returns {(entry: Entry) => ItemRequest | RequestRefusal}
 */
export function createItemRequests({ table, writeMode, versionColumn, keys, warn = () => {} }) {
  const tableName = `{"TableName":${JSON.stringify(table)},`;
  const tail = ',"ReturnConsumedCapacity":"TOTAL"}';
  // A failed condition is billed by the size of the item the table holds: its answer carries that item, so
  // that the capacity it consumed is counted (and paced) as DynamoDB bills it. AWS charges nothing for it.
  const conditional = `,"ReturnValuesOnConditionCheckFailure":"ALL_OLD"${tail}`;
  const keyName = JSON.stringify(keys.partition.name);
  const keyNames = [keys.partition.name, ...(keys.sort === undefined ? [] : [keys.sort.name])];
  const absent = `"ConditionExpression":"attribute_not_exists(#k)","ExpressionAttributeNames":{"#k":${keyName}}`;
  // Its names map is left open: a request adds the names of its own (an update's attributes) and closes it.
  const notNewer = versionColumn === undefined ? '' : `"ConditionExpression":"attribute_not_exists(#k) OR #v < :v","ExpressionAttributeNames":{"#k":${keyName},"#v":${JSON.stringify(versionColumn)}`;
  const refusal = versionColumn === undefined ? undefined : versionRefusal(versionColumn);
  const textVersion = versionColumn === undefined ? () => {} : warnNumbersAsText(versionColumn, warn);

  /** @param {Entry} entry @returns {ItemRequest} */
  const deleteOf = (entry) => ({ operation: 'DeleteItem', body: `${tableName}"Key":${entry.json}${tail}` });

  if (writeMode === 'if-absent') {
    return (entry) => (entry.op === 'delete' ? deleteOf(entry) : { operation: 'PutItem', body: `${tableName}"Item":${entry.json},${absent}${conditional}` });
  }
  if (writeMode === 'newer') {
    return (entry) => {
      if (entry.op === 'delete') return deleteOf(entry);
      const version = versionOf(entry.json, /** @type {string} */ (versionColumn));
      if (version === undefined) return /** @type {RequestRefusal} */ (refusal);
      textVersion(version, entry.line);
      return { operation: 'PutItem', body: `${tableName}"Item":${entry.json},${notNewer}},"ExpressionAttributeValues":{":v":${version}}${conditional}` };
    };
  }
  return (entry) => {
    if (entry.op === 'delete') return deleteOf(entry);
    const request = updateOf(entry, tableName, versionColumn === undefined ? tail : conditional, keyNames, versionColumn, notNewer, refusal);
    if (versionColumn !== undefined && 'operation' in request) textVersion(versionOf(entry.json, versionColumn) ?? '', entry.line);
    return request;
  };
}

/**
 * Versions that are numbers written as text (a CSV column left S) compare as text, where "9" > "10": the
 * first such row is warned of, once, with the fix.
 * @param {string} versionColumn @param {(message: string, fields: Record<string, unknown>) => void} warn
 * @returns {(version: string, line: number) => void}  version: the row's, as JSON
 */
function warnNumbersAsText(versionColumn, warn) {
  let warned = false;
  return (version, line) => {
    if (warned || !/^\{"S":"-?\d+(\.\d+)?"\}$/.test(version)) return;
    warned = true;
    warn('the version column holds numbers read as text (S), which compare as text: "9" is newer than "10"; type it as a number (--types COLUMN:N, columnTypes) unless every version has as many digits', { versionColumn, line });
  };
}

/**
 * An UpdateItem that sets each attribute of the row but its key (its version under `#v`), so that the
 * item keeps every attribute the row does not carry; an attribute is set whole (a map replaces the
 * item's map). A row of the key alone creates the item if absent. The row's attributes are `#0=:0`,
 * `#1=:1`, ... in decimal: digits alone, so that no attribute's placeholder is ever the condition's `#k`,
 * `#v` or `:v`; some 430 attributes fit DynamoDB's 4 KB expression.
 * @param {Entry} entry @param {string} tableName @param {string} tail @param {string[]} keyNames
 * @param {string | undefined} versionColumn @param {string} notNewer @param {RequestRefusal | undefined} refusal
 * @returns {ItemRequest | RequestRefusal}
 */
function updateOf(entry, tableName, tail, keyNames, versionColumn, notNewer, refusal) {
  /** @type {Record<string, unknown>} */
  const item = JSON.parse(entry.json);
  let key = '';
  let sets = '';
  let names = '';
  let values = '';
  let version;
  let n = 0;
  for (const name of Object.keys(item)) {
    const value = JSON.stringify(item[name]);
    if (keyNames.includes(name)) {
      key += `${key === '' ? '' : ','}${JSON.stringify(name)}:${value}`;
    } else if (name === versionColumn) {
      version = comparable(item[name]) ? value : undefined;
      if (version === undefined) return /** @type {RequestRefusal} */ (refusal);
      sets += `${sets === '' ? '' : ','}#v=:v`;
    } else {
      const id = String(n);
      sets += `${sets === '' ? '' : ','}#${id}=:${id}`;
      names += `,"#${id}":${JSON.stringify(name)}`;
      values += `,":${id}":${value}`;
      n++;
    }
  }
  if (versionColumn !== undefined && version === undefined) return /** @type {RequestRefusal} */ (refusal);
  const expression = `SET ${sets}`;
  if (expression.length > MAX_EXPRESSION_BYTES) {
    return { reason: 'REJECTED_BY_TABLE', message: `the row sets ${n + (version === undefined ? 0 : 1)} attributes: their UpdateExpression (${expression.length} bytes) passes DynamoDB's limit of ${MAX_EXPRESSION_BYTES}; an update sets some 430 at most (writeMode put writes any number)` };
  }
  let body = `${tableName}"Key":{${key}}`;
  if (sets !== '') body += `,"UpdateExpression":${JSON.stringify(expression)}`;
  if (versionColumn !== undefined) {
    body += `,${notNewer}${names}},"ExpressionAttributeValues":{":v":${version}${values}}`;
  } else if (n > 0) {
    body += `,"ExpressionAttributeNames":{${names.slice(1)}},"ExpressionAttributeValues":{${values.slice(1)}}`;
  }
  return { operation: 'UpdateItem', body: body + tail };
}

/**
 * The row's version as JSON, if it has one that compares (N or S).
 * @param {string} json @param {string} versionColumn
 */
function versionOf(json, versionColumn) {
  const value = /** @type {Record<string, unknown>} */ (JSON.parse(json))[versionColumn];
  return comparable(value) ? JSON.stringify(value) : undefined;
}

/** Whether an attribute value is an N or a non-empty S, what a version may be. @param {unknown} value */
function comparable(value) {
  if (typeof value !== 'object' || value === null) return false;
  const types = Object.keys(value);
  return types.length === 1 && (types[0] === 'N' || (types[0] === 'S' && /** @type {{ S: unknown }} */ (value).S !== ''));
}

/** @param {string} versionColumn @returns {RequestRefusal} */
function versionRefusal(versionColumn) {
  return { reason: 'INVALID_VERSION', message: `the row has no N or S value in its version column "${versionColumn}" (versionColumn), so it cannot be compared with the item's` };
}

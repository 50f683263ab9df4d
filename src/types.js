/**
 * Types shared across the stages. Types used by one module live in that module.
 */

/** An item in DynamoDB's JSON wire form, as DynamoDB returns it (binaries as base64). @typedef {Record<string, import('./items/attribute-values.js').AttributeValue>} Item */

/**
 * One row on its way to the table.
 * @typedef {object} Entry
 * @property {string} json    the item in DynamoDB's JSON wire form (items/item-builder.js); for a delete, its key only
 * @property {'put' | 'delete'} [op]  a PutRequest of the item (the default), or a DeleteRequest of its key
 * @property {string} keyId   primary key as one string
 * @property {number} line    line of the CSV where the record starts
 * @property {string[]} fields  the original fields, for the rejects file
 * @property {number | undefined} [bytes]  the item's size, when its builder was asked for it (a dry run's)
 * @property {Entry} [replaced]  the latest earlier row of its key it replaced before either was sent (items/superseded.js)
 */

/**
 * A row that will not be written, for the rejects file and the summary.
 * @typedef {object} Rejection
 * @property {number} line
 * @property {import('./errors.js').RejectReason} reason
 * @property {string} message
 * @property {string[]} fields
 */

/**
 * Where log lines go: Powertools' logger on Lambda; anything with these methods elsewhere.
 * @typedef {object} Logger
 * @property {(message: string, fields: Record<string, unknown>) => void} info
 * @property {(message: string, fields: Record<string, unknown>) => void} warn
 * @property {(message: string, fields: Record<string, unknown>) => void} error
 */

export {};

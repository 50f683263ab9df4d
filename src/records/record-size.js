/**
 * The bound on one record, shared by every format's reader (csv/, json-lines.js): past it a record is
 * rejected, not held. DynamoDB's items are at most 400 KB, so a longer record cannot be one; the bound
 * is what keeps a reader's memory flat when a quote is never closed or a file has no line breaks.
 */

/** The longest record read, in bytes of the file. */
export const MAX_RECORD_BYTES = 1 << 20;

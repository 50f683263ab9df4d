/**
 * Every error the importer throws, each class with a stable `code` that callers and logs can match on
 * (messages may be reworded; codes are not). Messages name what is wrong and the fix, with context
 * (option, line, table, object), never row contents.
 */

/** Base of the importer's errors: a stable code beside the message. */
export class ImportError extends Error {
  /** @param {string} name @param {string} code @param {string} message @param {{ cause?: unknown }} [options] */
  constructor(name, code, message, options) {
    super(message, options);
    this.name = name;
    this.code = code;
  }
}

/** An option (from the payload or the environment) that cannot be used; nothing was read or written. */
export class ConfigError extends ImportError {
  /**
   * @param {string} option
   * @param {unknown} value
   * @param {string} allowed what would be accepted, phrased as a fix
   */
  constructor(option, value, allowed) {
    super('ConfigError', 'CONFIG_INVALID', `Invalid option "${option}": got ${JSON.stringify(value)}; ${allowed}`);
    this.option = option;
  }
}

/** The file's header, or the options that depend on it: nothing can be imported until it is fixed. */
export class HeaderError extends ImportError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor(message, options) {
    super('HeaderError', 'HEADER_INVALID', message, options);
  }
}

/**
 * Why a row was not written. Codes are stable: they appear in the summary and the rejects file.
 * @typedef {'MALFORMED_CSV' | 'RECORD_TOO_LARGE' | 'INVALID_UTF8' | 'INVALID_UTF16' | 'FIELD_COUNT' | 'INVALID_NUMBER' | 'INVALID_BOOL' | 'INVALID_BINARY' | 'INVALID_SET' | 'INVALID_TTL' | 'INVALID_JSON' | 'INVALID_ATTRIBUTE_VALUE' | 'KEY_TYPE' | 'MISSING_KEY' | 'KEY_TOO_LONG' | 'ITEM_TOO_LARGE' | 'REJECTED_BY_TABLE' | 'ATTEMPTS_EXHAUSTED' | 'INVALID_VERSION'} RejectReason
 */

/** One row that cannot become an item; it is rejected with its line, and the import goes on. */
export class RowError extends ImportError {
  /** @param {RejectReason} reason @param {string} message */
  constructor(reason, message) {
    super('RowError', 'ROW_REJECTED', message);
    this.reason = reason;
  }
}

/** The source object cannot be read (missing, no access, replaced mid-import, keeps failing). */
export class SourceError extends ImportError {
  /** @param {string} message @param {unknown} [cause] */
  constructor(message, cause) {
    super('SourceError', 'SOURCE_UNREADABLE', message, { cause });
  }
}

/** An S3 body that brought no byte for the idle time-out; the reader re-opens the object. */
export class StallError extends ImportError {
  /** @param {number} idleTimeoutMs */
  constructor(idleTimeoutMs) {
    super('StallError', 'SOURCE_STALLED', `no bytes arrived for ${idleTimeoutMs} ms`);
  }
}

/** The target table is missing or its key schema does not match the options. */
export class TableError extends ImportError {
  /** @param {string} message @param {unknown} [cause] */
  constructor(message, cause) {
    super('TableError', 'TABLE_MISMATCH', message, { cause });
  }
}

/**
 * An answer of DynamoDB's to a BatchWriteItem call, or a call that got none, named as the SDK names
 * them (`name` is DynamoDB's error type) so that write/retry.js classifies both alike.
 */
export class DynamoDBCallError extends ImportError {
  /**
   * @param {string} name @param {string} message @param {number | undefined} httpStatusCode @param {string | undefined} requestId
   * @param {boolean} [retryable]  a call that is not a 5xx but may be retried
   */
  constructor(name, message, httpStatusCode, requestId, retryable = false) {
    super(name, 'DYNAMODB_CALL_FAILED', message);
    this.$metadata = { httpStatusCode, requestId };
    /** Marked as the SDK marks its retryable errors. @type {object | undefined} */
    this.$retryable = retryable ? {} : undefined;
    /** A throttled call's reasons, as DynamoDB gives them. @type {Array<{ reason: string, resource?: string }> | undefined} */
    this.throttlingReasons = undefined;
    /** A failed condition's: the size of the item the table holds, which the check was billed by. @type {number | undefined} */
    this.heldItemBytes = undefined;
  }
}

/** A call to AWS (S3, Lambda) the job needs, refused or failed; the message says which permission. */
export class AwsCallError extends ImportError {
  /**
   * @param {string} what     what could not be done, e.g. "write the rejects file s3://b/k"
   * @param {unknown} cause   the SDK's error
   * @param {string} [fix]    what the function needs, e.g. "s3:PutObject on it"
   * @param {string} [after]  more to say after the fix
   */
  constructor(what, cause, fix, after = '') {
    const error = /** @type {Error} */ (cause);
    super('AwsCallError', 'AWS_CALL_FAILED', `could not ${what} (${error?.name}: ${error?.message})${fix === undefined ? '' : `; the function needs ${fix}`}${after}`, { cause });
  }
}

/** A job that did not finish: shards that failed, or a status object that cannot be read. */
export class JobError extends ImportError {
  /** @param {string} message @param {{ cause?: unknown }} [options] */
  constructor(message, options) {
    super('JobError', 'JOB_INCOMPLETE', message, options);
  }
}

/** The job (or its shard) is being run by another process now; nothing was read or written. */
export class JobRunningError extends ImportError {
  /** @param {string} message */
  constructor(message) {
    super('JobRunningError', 'JOB_RUNNING', message);
  }
}

/** A short description of an error for summaries and rejects: name and message, never a stack. @param {unknown} error */
export function describeError(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * `spread` met a file that is not sorted by the table's key: a row whose key lies in another range's
 * stretch of the key space. Nothing passed before it is out of order; the import stops there.
 */
export class SpreadOrderError extends ImportError {
  /** @param {string} message */
  constructor(message) {
    super('SpreadOrderError', 'SPREAD_UNSORTED', message);
  }
}

/**
 * The rejects file: every row that will not be written, streamed as CSV to the output store (an object in
 * the output bucket, or a file beside a local source; never held whole in memory): the row's line, a reason
 * code, a message and its original fields. It is created on the first rejection; no rejects, no file. If the
 * upload fails, the stream is ended at once, a reader waiting for it to drain is woken, and the next write or
 * close throws the failure: an import never waits on an upload that has died.
 */

/** @typedef {import('../types.js').Rejection} Rejection */

/**
 * @param {object} options
 * @param {import('../state/output-store.js').OutputStore} options.store
 * @param {string} options.key          object to write
 * @param {() => string[] | undefined} options.header  the source's header, once known
 */
export function createRejectsWriter({ store, key, header }) {
  /** @type {import('node:stream').Writable | undefined} */
  let body;
  /** @type {Promise<unknown> | undefined} */
  let done;
  /** @type {Error | undefined} */
  let failure;
  /** @type {Promise<{ key: string, rows: number, formulaCells: number } | undefined> | undefined} */
  let closed;
  let rows = 0;
  let formulaCells = 0;

  function open() {
    const upload = store.upload(key, 'text/csv; charset=utf-8', 'the rejects file');
    done = upload.done.catch((error) => {
      failure = error;
    });
    upload.stream.write(csvLine(['line', 'reason', 'message', ...(header() ?? [])]));
    return upload.stream;
  }

  /** The upload's end: rejects with its failure. */
  const uploadEnded = () => /** @type {Promise<unknown>} */ (done).then(() => {
    if (failure !== undefined) throw failure;
  });

  /** Resolves when the stream drains; when it is destroyed (the upload failed), rejects with the failure. @param {import('node:stream').Writable} stream */
  function drainOf(stream) {
    // Destroyed already (its 'close' may have been emitted): its failure is known once lib-storage gives up.
    if (stream.destroyed) return uploadEnded();
    return new Promise((resolve, reject) => {
      const settle = () => {
        stream.off('drain', settle);
        stream.off('close', settle);
        (stream.destroyed ? uploadEnded() : Promise.resolve()).then(resolve, reject);
      };
      stream.on('drain', settle);
      stream.on('close', settle);
    });
  }

  return {
    /** @param {Rejection} rejection */
    write(rejection) {
      if (failure !== undefined) throw failure;
      body ??= open();
      rows++;
      for (const field of rejection.fields) if (FORMULA_START.test(field) && !PLAIN_NUMBER.test(field)) formulaCells++;
      body.write(csvLine([String(rejection.line), rejection.reason, rejection.message, ...rejection.fields]));
    },

    /** True while the upload is behind (or has failed); the reader should wait for `drained()`. */
    backlogged: () => failure !== undefined || (body !== undefined && (body.writableNeedDrain || body.destroyed)),

    /** @returns {Promise<void>} */
    drained: () => {
      if (failure !== undefined) return Promise.reject(failure);
      if (body === undefined || !(body.writableNeedDrain || body.destroyed)) return Promise.resolve();
      return drainOf(body);
    },

    /**
     * Ends the object. Resolves to its location and row count, or undefined if nothing was rejected.
     * Throws the upload's failure, every time it is called.
     * @returns {Promise<{ key: string, rows: number, formulaCells: number } | undefined>}
     */
    close() {
      closed ??= (async () => {
        if (body === undefined) return undefined;
        body.end();
        await done;
        if (failure !== undefined) throw failure;
        return { key, rows, formulaCells };
      })();
      return closed;
    },
  };
}

/**
 * Cells a spreadsheet runs as formulas when the file is opened (CSV injection: =, +, -, @, a tab or a
 * carriage return first), plain numbers aside. The rejects file keeps rows as the source wrote them, so
 * that --from-rejects reads them back exactly: such cells are counted and warned of, not changed.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * One CSV line: fields with a comma, quote or line break are quoted, quotes doubled.
 * @param {string[]} fields
 */
export function csvLine(fields) {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (i > 0) line += ',';
    line += /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
  }
  return `${line}\n`;
}

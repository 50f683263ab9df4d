/**
 * A local stand-in for the Lambda Invoke API, so that the function's own self-invocation runs through
 * the real LambdaClient. It accepts asynchronous invocations (InvocationType Event) of one function,
 * answers 202 at once as Lambda does, then runs the handler with the payload and a context whose
 * remaining time starts at `timeoutMs`. Listens on 127.0.0.1 and a free port.
 */
import http from 'node:http';

/**
 * @typedef {object} Invocation
 * @property {Record<string, unknown>} payload
 * @property {unknown} [result]
 * @property {unknown} [error]
 * @property {number} [ms]  how long the handler ran
 */

/**
 * @param {object} options
 * @param {(event: unknown, context: any) => Promise<unknown>} options.handler
 * @param {string} options.functionArn
 * @param {number} options.timeoutMs  the function's timeout: each invocation's time budget
 */
export async function startLambdaEndpoint({ handler, functionArn, timeoutMs }) {
  /** @type {Invocation[]} */
  const invocations = [];
  let running = 0;
  /** @type {Array<() => void>} */
  let waiters = [];

  /** @param {Record<string, unknown>} payload */
  function run(payload) {
    /** @type {Invocation} */
    const invocation = { payload };
    invocations.push(invocation);
    running++;
    const started = performance.now();
    const context = { invokedFunctionArn: functionArn, getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (performance.now() - started)) };
    // Next tick: the caller gets its 202 before the invocation starts, as with Lambda.
    setImmediate(() => {
      handler(payload, context)
        .then((result) => (invocation.result = result), (error) => (invocation.error = error))
        .finally(() => {
          invocation.ms = performance.now() - started;
          running--;
          if (running === 0) {
            const done = waiters;
            waiters = [];
            for (const wake of done) wake();
          }
        });
    });
  }

  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const name = decodeURIComponent(/^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '')?.[1] ?? '');
    const answer = (/** @type {number} */ status, /** @type {object} */ json) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.method !== 'POST' || name !== functionArn) {
      return answer(404, { __type: 'ResourceNotFoundException', Message: `Function not found: ${name}` });
    }
    if (req.headers['x-amz-invocation-type'] !== 'Event') {
      return answer(400, { __type: 'InvalidParameterValueException', Message: 'this stand-in takes only asynchronous (Event) invocations' });
    }
    run(JSON.parse(body));
    res.writeHead(202);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    endpoint: `http://127.0.0.1:${port}`,
    invocations,
    /** Starts an invocation, as an S3 trigger or `sls invoke --type Event` would. @param {Record<string, unknown>} payload */
    invoke: run,
    /** Resolves once no invocation is running (continuations start before their parent ends). */
    settled: () => (running === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(() => resolve(undefined)))),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * The Lambda Invoke API of one deployed function, offline: an HTTP server that answers a synchronous
 * invocation (RequestResponse, what the SDK's LambdaClient sends, pointed here by AWS_ENDPOINT_URL_LAMBDA)
 * by running the handler in this process with a Lambda context, and answers as Lambda does: the result as
 * JSON, or, when the handler throws, the X-Amz-Function-Error header and the error as JSON. The function's
 * environment (`environment`) is set in this process while the endpoint runs, with AWS_LAMBDA_FUNCTION_NAME,
 * so that the handler runs as on Lambda. Listens on 127.0.0.1, behind an IAM gate (iam/gate.js) that
 * judges the command line's lambda:InvokeFunction.
 */
import http from 'node:http';
import { startGate } from './local.js';

/**
 * @param {{ name: string, handler: (event: unknown, context: any) => Promise<unknown>, environment: Record<string, string> }} options
 */
export async function startLambdaInvokeEndpoint({ name, handler, environment }) {
  const functionArn = `arn:aws:lambda:us-east-1:000000000000:function:${name}`;
  const saved = Object.fromEntries(Object.keys({ ...environment, AWS_LAMBDA_FUNCTION_NAME: '' }).map((key) => [key, process.env[key]]));
  Object.assign(process.env, environment, { AWS_LAMBDA_FUNCTION_NAME: name });
  delete process.env.IS_LOCAL;
  let requests = 0;

  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', async () => {
      const asked = decodeURIComponent(request.url?.match(/^\/2015-03-31\/functions\/([^/]+)\/invocations/)?.[1] ?? '');
      if (asked !== name && asked !== functionArn) {
        response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
        response.end(JSON.stringify({ Type: 'User', message: `Function not found: ${asked}` }));
        return;
      }
      requests++;
      const started = performance.now();
      const context = { functionName: name, functionVersion: '$LATEST', invokedFunctionArn: functionArn, memoryLimitInMB: '1769', awsRequestId: `local-${requests}`, logGroupName: `/aws/lambda/${name}`, logStreamName: 'local', getRemainingTimeInMillis: () => Math.max(0, 900_000 - (performance.now() - started)) };
      try {
        const result = await handler(JSON.parse(body || 'null'), context);
        response.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
        response.end(JSON.stringify(result ?? null));
      } catch (error) {
        const { name: errorType, message: errorMessage } = /** @type {Error} */ (error);
        response.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' });
        response.end(JSON.stringify({ errorType, errorMessage, trace: [] }));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const gate = await startGate('lambda', `http://127.0.0.1:${port}`);
  return {
    endpoint: gate.endpoint,
    gate,
    /** Invocations answered so far. */
    requests: () => requests,
    async stop() {
      await gate.stop();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    },
  };
}

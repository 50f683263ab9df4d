/**
 * The IAM gate: an HTTP proxy on 127.0.0.1 in front of one local server (the S3 emulator, dynalite, or
 * the offline Step Functions and Lambda APIs) that judges every signed call against the IAM policies of
 * the principal that makes it, with @cloud-copilot/iam-simulate (a kept simulator of IAM's evaluation
 * logic; AGPL-3.0, a dev dependency only: neither the Lambda package nor the npm package holds it), and
 * answers a denied call as the service does. A proxy, not an SDK middleware: it sees every call whoever
 * makes it, the SDK's clients, the hand-signed BatchWriteItem client (src/write/batch-write-client.js)
 * and the command line's and worker processes alike, as AWS does, and nothing in src/ knows it is there.
 *
 * Who calls is told by the request's session token (x-amz-security-token), as on AWS a role's
 * credentials carry one: principals.js gives the function's role, the state machine's role and the
 * command line's user each a token. A call with none, or another, is the test's own (setup and checks,
 * as the account's administrator) and is forwarded unjudged.
 *
 * As AWS answers (each service's error reference):
 * - S3: 403 AccessDenied (no body for HEAD); a GetObject or HeadObject of a missing key by a principal
 *   without s3:ListBucket on the bucket is 403 AccessDenied, not 404 ("If you don't have the
 *   s3:ListBucket permission, Amazon S3 returns an HTTP status code 403").
 * - DynamoDB and Step Functions: 400 AccessDeniedException; Lambda: 403 AccessDeniedException.
 * - a bucket encrypted with a KMS key (`kmsKeys`): reading an object needs kms:Decrypt on the key,
 *   writing one kms:GenerateDataKey, a multipart upload both.
 * The message is AWS's: "User: <arn> is not authorized to perform: <action> on resource: <arn> because
 * no identity-based policy allows the <action> action".
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import http from 'node:http';
import { listenOnLoopback } from '../loopback.js';
import { callsOf, UnknownCallError } from './aws-requests.js';

/**
 * @typedef {object} Principal
 * @property {string} name    what the tests call it: function, state-machine, cli
 * @property {string} arn     the role's or user's ARN, as IAM evaluates it
 * @property {string} caller  as a denial names it (a role's session: arn:aws:sts::...:assumed-role/...)
 * @property {Array<{ name: string, policy: any }>} policies
 */

/** @typedef {import('./aws-requests.js').Call & { principal: string, operation: string, allowed: boolean }} Judged */

/**
 * @param {object} options
 * @param {import('./aws-requests.js').Service} options.service
 * @param {string} options.target  the server's endpoint
 * @param {Record<string, Principal>} options.principals  by session token
 * @param {import('./aws-requests.js').Place} options.place
 * @param {Record<string, string>} [options.kmsKeys]  bucket -> the ARN of the KMS key it encrypts with
 */
export async function startIamGate({ service, target, principals, place, kmsKeys = {} }) {
  const targetUrl = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  /** @type {Map<string, Promise<boolean>>} */
  const decisions = new Map();
  /** Every call judged, in order (BatchWriteItem's many calls counted once per action and resource). */
  /** @type {Judged[]} */
  const judged = [];
  const seen = new Set();

  /** @param {Principal} principal @param {import('./aws-requests.js').Call} call */
  function allows(principal, call) {
    const key = JSON.stringify([principal.arn, call.action, call.resource, call.context]);
    let decision = decisions.get(key);
    if (decision === undefined) {
      decision = evaluate(principal, call, place.account);
      decisions.set(key, decision);
    }
    return decision;
  }

  /** @param {Principal} principal @param {string} operation @param {import('./aws-requests.js').Call} call @param {boolean} allowed */
  function record(principal, operation, call, allowed) {
    const key = JSON.stringify([principal.name, call.action, call.resource, allowed]);
    if (seen.has(key)) return;
    seen.add(key);
    judged.push({ ...call, principal: principal.name, operation, allowed });
  }

  const server = http.createServer(async (req, res) => {
    try {
      const token = req.headers['x-amz-security-token'];
      const principal = typeof token === 'string' ? principals[token] : undefined;
      // JSON protocols name the call in the body; S3's is in the method, path and headers, and its body streams on.
      const body = service === 's3' ? undefined : await readAll(req);
      if (principal === undefined) return forward(req, res, body);
      const { operation, calls } = callsOf(service, { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body }, place);
      const kms = service === 's3' ? kmsCalls(operation, calls, kmsKeys, place) : [];
      for (const call of [...calls, ...kms]) {
        const allowed = await allows(principal, call);
        record(principal, operation, call, allowed);
        if (!allowed) {
          req.resume();
          return deny(res, service, req.method, principal, call);
        }
      }
      // S3 hides whether a key exists from a principal that may not list the bucket.
      const hideMissing = service === 's3' && (operation === 'GetObject' || operation === 'HeadObject');
      const listing = hideMissing ? { action: 's3:ListBucket', resource: calls[0].resource.slice(0, calls[0].resource.indexOf('/')), context: {} } : undefined;
      forward(req, res, body, async (status) => {
        if (status !== 404 || listing === undefined) return false;
        const mayList = await allows(principal, listing);
        record(principal, `${operation} of a missing key`, listing, mayList);
        if (mayList) return false;
        deny(res, service, req.method, principal, listing);
        return true;
      });
    } catch (error) {
      const message = error instanceof UnknownCallError ? error.message : `the IAM gate failed: ${/** @type {Error} */ (error).stack}`;
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(message);
    }
  });

  /**
   * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {Buffer | undefined} body
   * @param {(status: number) => Promise<boolean>} [intercept]  true when it answered instead
   */
  function forward(req, res, body, intercept) {
    // Forwarded byte for byte, the Host header kept: the signature stays valid for the server that checks it.
    const upstream = http.request({ host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: req.headers, agent }, async (answer) => {
      if (intercept !== undefined && (await intercept(answer.statusCode ?? 0))) return void answer.resume();
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.socket?.destroy());
    res.on('close', () => upstream.destroy());
    if (body === undefined) req.pipe(upstream);
    else upstream.end(body);
  }

  const listening = await listenOnLoopback(server, agent);
  return {
    ...listening,
    /** The calls judged so far, each (principal, action, resource, decision) once. */
    judged,
    /** The denied ones. */
    denied: () => judged.filter((call) => !call.allowed),
    /** Forgets what was judged (the decisions stay cached): each test reads its own. */
    reset() {
      judged.length = 0;
      seen.clear();
    },
  };
}

/**
 * The KMS calls S3 makes on the caller's behalf for a bucket encrypted with a key (SSE-KMS), which IAM
 * judges as the caller's: reading decrypts the data key, writing generates one, a multipart upload both.
 * @param {string} operation @param {import('./aws-requests.js').Call[]} calls @param {Record<string, string>} kmsKeys
 * @param {import('./aws-requests.js').Place} place
 * @returns {import('./aws-requests.js').Call[]}
 */
function kmsCalls(operation, calls, kmsKeys, place) {
  const bucket = /^arn:aws:s3:::([^/]+)/.exec(calls[0]?.resource ?? '')?.[1];
  const key = bucket === undefined ? undefined : kmsKeys[bucket];
  if (key === undefined) return [];
  const actions = { GetObject: ['kms:Decrypt'], PutObject: ['kms:GenerateDataKey'], CreateMultipartUpload: ['kms:GenerateDataKey', 'kms:Decrypt'], UploadPart: ['kms:GenerateDataKey'], CompleteMultipartUpload: ['kms:Decrypt'] }[operation] ?? [];
  return actions.map((action) => ({ action, resource: key, context: { 'kms:ViaService': `s3.${place.region}.amazonaws.com` } }));
}

/**
 * @param {Principal} principal @param {import('./aws-requests.js').Call} call @param {string} account
 * @returns {Promise<boolean>}
 */
async function evaluate(principal, call, account) {
  const result = await runSimulation(
    {
      request: { principal: principal.arn, action: call.action, resource: { resource: call.resource, accountId: account }, contextVariables: call.context },
      identityPolicies: principal.policies,
      // A KMS key's own policy decides whether IAM policies count at all: the default key policy lets
      // the account's IAM policies grant the key, as a key made without a policy of its own has.
      ...(call.action.startsWith('kms:') ? { resourcePolicy: defaultKeyPolicy(account) } : {}),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  // An input the simulator refuses (an ARN that is not the action's resource type, an unknown key) is a
  // mistake of the gate's, never a permission: it fails the call loudly.
  if (result.resultType === 'error') throw new Error(`iam-simulate refused ${call.action} on ${call.resource}: ${JSON.stringify(result.errors)}`);
  return result.overallResult === 'Allowed';
}

/** KMS's default key policy: "Allows access to the AWS account and enables IAM policies". @param {string} account */
const defaultKeyPolicy = (account) => ({
  Version: '2012-10-17',
  Statement: [{ Sid: 'Enable IAM User Permissions', Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${account}:root` }, Action: 'kms:*', Resource: '*' }],
});

/**
 * @param {http.ServerResponse} res @param {import('./aws-requests.js').Service} service @param {string | undefined} method
 * @param {Principal} principal @param {import('./aws-requests.js').Call} call
 */
function deny(res, service, method, principal, call) {
  const message = `User: ${principal.caller} is not authorized to perform: ${call.action} on resource: ${service === 's3' ? `"${call.resource}"` : call.resource} because no identity-based policy allows the ${call.action} action`;
  if (service === 's3') {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${escapeXml(message)}</Message><RequestId>iam-gate</RequestId><HostId>iam-gate</HostId></Error>`;
    res.writeHead(403, { 'content-type': 'application/xml', 'x-amz-request-id': 'iam-gate', ...(method === 'HEAD' ? {} : { 'content-length': Buffer.byteLength(xml) }) });
    return void res.end(method === 'HEAD' ? undefined : xml);
  }
  if (service === 'lambda') {
    const body = JSON.stringify({ Type: 'User', Message: message });
    res.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException', 'x-amzn-requestid': 'iam-gate' });
    return void res.end(body);
  }
  const body = JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', Message: message, message });
  res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'iam-gate', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** @param {string} text */
const escapeXml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** @param {http.IncomingMessage} req @returns {Promise<Buffer>} */
async function readAll(req) {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

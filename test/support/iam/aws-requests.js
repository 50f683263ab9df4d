/**
 * What IAM judges in one HTTP request to an AWS service: its actions, each with the resource ARN and the
 * condition keys AWS evaluates it with, as the services' authorization references list them. Only the
 * calls this project makes (and its tests' setup) are known; any other fails the gate loudly, so that a
 * new call is added here with its rule rather than passed unjudged.
 * Rules worth naming (S3's "Actions, resources, and condition keys" and each API's reference):
 * - a GetObject or HeadObject with a versionId is s3:GetObjectVersion, not s3:GetObject;
 * - ListObjects(V2) and HeadBucket are s3:ListBucket on the bucket, with s3:prefix when a prefix is given;
 * - UploadPart, CreateMultipartUpload and CompleteMultipartUpload are s3:PutObject; an abort is
 *   s3:AbortMultipartUpload; listing an upload's parts is s3:ListMultipartUploadParts;
 * - BatchWriteItem and BatchGetItem are judged once per table they name; PutItem, UpdateItem and
 *   DeleteItem are actions of their own.
 */

/** @typedef {'s3' | 'dynamodb' | 'states' | 'lambda'} Service */
/** @typedef {{ action: string, resource: string, context: Record<string, string> }} Call */
/** @typedef {{ region: string, account: string, tableOf?: (name: string) => string }} Place */

export class UnknownCallError extends Error {
  /** @param {string} what */
  constructor(what) {
    super(`the IAM gate does not know this call (${what}): add its action and resource to test/support/iam/aws-requests.js`);
    this.name = 'UnknownCallError';
  }
}

/**
 * @param {Service} service
 * @param {{ method: string, url: string, headers: Record<string, string | string[] | undefined>, body?: Buffer }} request  url: path and query
 * @param {Place} place
 * @returns {{ operation: string, calls: Call[] }}
 */
export function callsOf(service, request, place) {
  if (service === 's3') return s3Calls(request);
  if (service === 'dynamodb') return dynamodbCalls(request, place);
  if (service === 'states') return statesCalls(request, place);
  return lambdaCalls(request, place);
}

/** @param {{ method: string, url: string, headers: Record<string, string | string[] | undefined> }} request */
function s3Calls({ method, url, headers }) {
  const parsed = new URL(url, 'http://s3.local');
  const [bucket = '', ...keyParts] = parsed.pathname.slice(1).split('/');
  const key = keyParts.map(decodeURIComponent).join('/');
  const query = parsed.searchParams;
  const has = (/** @type {string} */ name) => query.has(name);
  const one = (/** @type {string} */ operation, /** @type {string} */ action, /** @type {string} */ resource, /** @type {Record<string, string>} */ context = {}) => ({ operation, calls: [{ action, resource, context }] });
  if (bucket === '') {
    if (method === 'GET') return one('ListBuckets', 's3:ListAllMyBuckets', '*');
    throw new UnknownCallError(`S3 ${method} /`);
  }
  const bucketArn = `arn:aws:s3:::${decodeURIComponent(bucket)}`;
  if (keyParts.length === 0 || key === '') {
    if (method === 'HEAD') return one('HeadBucket', 's3:ListBucket', bucketArn);
    if (method === 'PUT' && [...query.keys()].length === 0) return one('CreateBucket', 's3:CreateBucket', bucketArn);
    if (method === 'DELETE' && [...query.keys()].length === 0) return one('DeleteBucket', 's3:DeleteBucket', bucketArn);
    if (method === 'GET') {
      if (has('versions')) return one('ListObjectVersions', 's3:ListBucketVersions', bucketArn, prefixContext(query));
      if (has('uploads')) return one('ListMultipartUploads', 's3:ListBucketMultipartUploads', bucketArn, prefixContext(query));
      if (has('location')) return one('GetBucketLocation', 's3:GetBucketLocation', bucketArn);
      if (has('versioning')) return one('GetBucketVersioning', 's3:GetBucketVersioning', bucketArn);
      const subresources = [...query.keys()].filter((name) => !['list-type', 'prefix', 'delimiter', 'max-keys', 'continuation-token', 'start-after', 'marker', 'encoding-type', 'fetch-owner', 'x-id'].includes(name));
      if (subresources.length === 0) return one(query.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects', 's3:ListBucket', bucketArn, prefixContext(query));
    }
    throw new UnknownCallError(`S3 ${method} /${bucket}?${query}`);
  }
  const objectArn = `${bucketArn}/${key}`;
  const versionId = query.get('versionId');
  /** @type {Record<string, string>} */
  const version = versionId === null ? {} : { 's3:versionid': versionId };
  if (method === 'GET' || method === 'HEAD') {
    const operation = method === 'GET' ? 'GetObject' : 'HeadObject';
    if (method === 'GET' && has('uploadId')) return one('ListParts', 's3:ListMultipartUploadParts', objectArn);
    if (has('tagging') || has('acl') || has('attributes')) throw new UnknownCallError(`S3 ${method} ${objectArn}?${query}`);
    // "If you include a versionId in your request header, you must have the s3:GetObjectVersion permission" (GetObject, HeadObject).
    return one(operation, versionId === null ? 's3:GetObject' : 's3:GetObjectVersion', objectArn, version);
  }
  if (method === 'PUT') {
    if (has('partNumber') && has('uploadId')) return one('UploadPart', 's3:PutObject', objectArn);
    if (has('tagging') || has('acl') || has('retention') || has('legal-hold')) throw new UnknownCallError(`S3 PUT ${objectArn}?${query}`);
    const copySource = headers['x-amz-copy-source'];
    if (typeof copySource === 'string') {
      const source = new URL(copySource.replace(/^\/?/, '/'), 'http://s3.local');
      const sourceVersion = source.searchParams.get('versionId');
      const sourceArn = `arn:aws:s3:::${decodeURIComponent(source.pathname.slice(1))}`;
      return { operation: 'CopyObject', calls: [{ action: 's3:PutObject', resource: objectArn, context: {} }, { action: sourceVersion === null ? 's3:GetObject' : 's3:GetObjectVersion', resource: sourceArn, context: {} }] };
    }
    return one('PutObject', 's3:PutObject', objectArn);
  }
  if (method === 'POST') {
    if (has('uploads')) return one('CreateMultipartUpload', 's3:PutObject', objectArn);
    if (has('uploadId')) return one('CompleteMultipartUpload', 's3:PutObject', objectArn);
  }
  if (method === 'DELETE') {
    if (has('uploadId')) return one('AbortMultipartUpload', 's3:AbortMultipartUpload', objectArn);
    return one('DeleteObject', versionId === null ? 's3:DeleteObject' : 's3:DeleteObjectVersion', objectArn, version);
  }
  throw new UnknownCallError(`S3 ${method} ${objectArn}?${query}`);
}

/** ListBucket's condition keys: s3:prefix (and s3:delimiter, s3:max-keys) when the request has them. @param {URLSearchParams} query */
function prefixContext(query) {
  /** @type {Record<string, string>} */
  const context = {};
  for (const [parameter, conditionKey] of [['prefix', 's3:prefix'], ['delimiter', 's3:delimiter'], ['max-keys', 's3:max-keys']]) {
    const value = query.get(parameter);
    if (value !== null) context[conditionKey] = value;
  }
  return context;
}

/** @param {{ headers: Record<string, string | string[] | undefined>, body?: Buffer }} request @param {Place} place */
function dynamodbCalls({ headers, body }, place) {
  const operation = String(headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, '');
  const input = JSON.parse(body?.toString('utf8') || '{}');
  const tableArn = (/** @type {string} */ name) => {
    if (name.startsWith('arn:')) return name;
    return `arn:aws:dynamodb:${place.region}:${place.account}:table/${place.tableOf?.(name) ?? name}`;
  };
  const action = `dynamodb:${operation}`;
  if (['ListTables', 'DescribeLimits', 'DescribeEndpoints'].includes(operation)) return { operation, calls: [{ action, resource: '*', context: {} }] };
  if (operation === 'BatchWriteItem' || operation === 'BatchGetItem') {
    return { operation, calls: Object.keys(input.RequestItems ?? {}).map((table) => ({ action, resource: tableArn(table), context: {} })) };
  }
  if (operation === 'TransactWriteItems') {
    const kinds = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };
    return {
      operation,
      calls: (input.TransactItems ?? []).flatMap((/** @type {Record<string, any>} */ item) =>
        Object.entries(kinds).filter(([kind]) => item[kind] !== undefined).map(([kind, itemAction]) => ({ action: `dynamodb:${itemAction}`, resource: tableArn(item[kind].TableName), context: {} })),
      ),
    };
  }
  if (typeof input.TableName !== 'string') throw new UnknownCallError(`DynamoDB ${operation} without a TableName`);
  return { operation, calls: [{ action, resource: tableArn(input.TableName), context: {} }] };
}

/** @param {{ headers: Record<string, string | string[] | undefined>, body?: Buffer }} request @param {Place} _place */
function statesCalls({ headers, body }, _place) {
  const operation = String(headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '');
  const input = JSON.parse(body?.toString('utf8') || '{}');
  const action = `states:${operation}`;
  if (operation === 'ListStateMachines' || operation === 'ListActivities') return { operation, calls: [{ action, resource: '*', context: {} }] };
  // The resource is the one ARN the call names: a state machine, an execution or a map run.
  const resource = input.executionArn ?? input.mapRunArn ?? input.stateMachineArn;
  if (typeof resource !== 'string') throw new UnknownCallError(`Step Functions ${operation} without an ARN`);
  return { operation, calls: [{ action, resource, context: {} }] };
}

/** @param {{ method: string, url: string }} request @param {Place} place */
function lambdaCalls({ method, url }, place) {
  const match = /^\/2015-03-31\/functions\/([^/?]+)\/invocations/.exec(url);
  if (method !== 'POST' || match === null) throw new UnknownCallError(`Lambda ${method} ${url}`);
  const name = decodeURIComponent(match[1]);
  // A name, a name:qualifier, or an ARN: IAM judges the function's ARN (a qualifier included).
  const resource = name.startsWith('arn:') ? name : `arn:aws:lambda:${place.region}:${place.account}:function:${name}`;
  return { operation: 'Invoke', calls: [{ action: 'lambda:InvokeFunction', resource, context: {} }] };
}

/**
 * The objects of a job over many: every object under an S3 prefix (filtered by suffix, at most
 * maxObjects), or every data file a DynamoDB export's manifest lists (its manifest-summary.json named as
 * the key, or the only one under the prefix). The list fixes the job: its version is a digest of every
 * key, ETag and size, so a re-run over the same objects is the same job and one over changed objects is
 * another.
 */
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import { isManifestSummary, MANIFEST_SUMMARY } from '../config/index.js';
import { AwsCallError, ConfigError, SourceError } from '../errors.js';
import { etagOf } from './s3-object.js';

/** @typedef {{ key: string, etag: string, bytes: number }} JobObject */

/**
 * @typedef {object} JobObjects
 * @property {'prefix' | 'export'} kind
 * @property {JobObject[]} objects  in key order (an export's: the manifest's order); none empty
 * @property {string} version  what the job id is made of besides the source's name
 * @property {string[]} notes  what was left out, and why
 * @property {{ exportArn?: string, exportType?: string, itemCount: number }} [export]  the manifest's figures
 */

/**
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {Pick<import('../config/index.js').ImportConfig, 'bucket' | 'key' | 'prefix' | 'suffix' | 'maxObjects' | 'outputBucket' | 'rejectsPrefix' | 'statusPrefix'>} config
 * @returns {Promise<JobObjects>}
 */
export async function objectsOfJob(s3, config) {
  const bucket = /** @type {string} */ (config.bucket);
  if (config.prefix === undefined) return exportObjects(s3, bucket, /** @type {string} */ (config.key), config.maxObjects);
  const { prefix } = config;
  const listed = await listUnder(s3, bucket, prefix);
  const manifests = listed.filter((object) => isManifestSummary(object.key));
  if (manifests.length === 1) return exportObjects(s3, bucket, manifests[0].key, config.maxObjects);
  if (manifests.length > 1) {
    const named = manifests.slice(0, 3).map((object) => `s3://${bucket}/${object.key}`).join(', ');
    throw new ConfigError('prefix', prefix, `holds ${manifests.length} DynamoDB exports (${named}${manifests.length > 3 ? ', ...' : ''}); import one: its manifest-summary.json as the key, or its own prefix`);
  }
  // Rejects files and job status beside the source are the importer's own output, never its input.
  const ours = config.outputBucket === bucket ? [config.rejectsPrefix, config.statusPrefix] : [];
  const notes = [];
  const isOurs = (/** @type {JobObject} */ object) => ours.some((start) => object.key.startsWith(start));
  const skippedOurs = listed.filter(isOurs).length;
  if (skippedOurs > 0) notes.push(`${skippedOurs} objects under ${ours.join(' and ')} (this importer's rejects and status) left out`);
  const wanted = listed.filter((object) => !isOurs(object) && !object.key.endsWith('/') && (config.suffix.length === 0 || config.suffix.some((end) => object.key.endsWith(end))));
  const empty = wanted.filter((object) => object.bytes === 0).length;
  if (empty > 0) notes.push(`${empty} empty objects left out`);
  const objects = wanted.filter((object) => object.bytes > 0);
  const filter = config.suffix.length === 0 ? '' : ` ending in ${config.suffix.join(' or ')}`;
  if (objects.length === 0) {
    throw new ConfigError('prefix', prefix, `s3://${bucket}/${prefix} holds no object${filter} to import (${listed.length} listed); check the prefix${config.suffix.length === 0 ? '' : ' and the suffix'}`);
  }
  if (objects.length > config.maxObjects) {
    throw new ConfigError('maxObjects', config.maxObjects, `s3://${bucket}/${prefix} holds ${objects.length} objects${filter}, more than one job takes; narrow it (a longer prefix, a suffix) or raise maxObjects (at most 1000: each object is a shard)`);
  }
  return { kind: 'prefix', objects, version: digestOf(objects), notes };
}

/**
 * Every object under a prefix, in key order.
 * @param {import('@aws-sdk/client-s3').S3Client} s3 @param {string} bucket @param {string} prefix
 * @returns {Promise<JobObject[]>}
 */
async function listUnder(s3, bucket, prefix) {
  /** @type {JobObject[]} */
  const objects = [];
  /** @type {string | undefined} */
  let token;
  do {
    let page;
    try {
      page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    } catch (error) {
      throw new AwsCallError(`list s3://${bucket}/${prefix}`, error, 's3:ListBucket on the bucket');
    }
    for (const entry of page.Contents ?? []) {
      objects.push({ key: /** @type {string} */ (entry.Key), etag: etagOf(entry), bytes: entry.Size ?? 0 });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
    // Bounded: a prefix of millions of objects is refused by maxObjects long before it is listed whole.
    if (objects.length > 100_000) throw new ConfigError('prefix', prefix, `s3://${bucket}/${prefix} holds more than 100,000 objects; name a narrower prefix`);
  } while (token !== undefined);
  return objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * A DynamoDB export's data files, from its manifest-summary.json and the manifest-files.json beside it.
 * Keys in the manifest are where the export first wrote them; an export copied elsewhere is found beside
 * its manifest (its `data/` folder), so the keys are taken from `data/` on and put under the manifest's folder.
 * @param {import('@aws-sdk/client-s3').S3Client} s3 @param {string} bucket @param {string} summaryKey
 * @param {number} maxObjects
 * @returns {Promise<JobObjects>}
 */
async function exportObjects(s3, bucket, summaryKey, maxObjects) {
  const where = `s3://${bucket}/${summaryKey}`;
  const { text: summaryText, etag } = await getText(s3, bucket, summaryKey);
  const summary = parseJsonObject(summaryText, where);
  if (summary.outputFormat !== undefined && summary.outputFormat !== 'DYNAMODB_JSON') {
    throw new SourceError(`${where} is an export in ${JSON.stringify(summary.outputFormat)}; this importer reads exports in DYNAMODB_JSON: export the table again with ExportFormat DYNAMODB_JSON`);
  }
  const folder = summaryKey.slice(0, summaryKey.length - MANIFEST_SUMMARY.length);
  const filesName = typeof summary.manifestFilesS3Key === 'string' ? summary.manifestFilesS3Key.slice(summary.manifestFilesS3Key.lastIndexOf('/') + 1) : 'manifest-files.json';
  const filesKey = `${folder}${filesName}`;
  const { text: filesText } = await getText(s3, bucket, filesKey);
  /** @type {Array<{ key: string, itemCount: number }>} */
  const listed = [];
  for (const [index, line] of filesText.split('\n').entries()) {
    if (line.trim() === '') continue;
    const entry = parseJsonObject(line, `s3://${bucket}/${filesKey} line ${index + 1}`);
    if (typeof entry.dataFileS3Key !== 'string' || entry.dataFileS3Key === '') throw new SourceError(`s3://${bucket}/${filesKey} line ${index + 1} has no dataFileS3Key; it is not a DynamoDB export's manifest`);
    const at = entry.dataFileS3Key.lastIndexOf('data/');
    listed.push({ key: at >= 0 ? `${folder}${entry.dataFileS3Key.slice(at)}` : entry.dataFileS3Key, itemCount: Number.isInteger(entry.itemCount) ? entry.itemCount : 0 });
  }
  if (listed.length > maxObjects) {
    throw new ConfigError('maxObjects', maxObjects, `the export ${where} has ${listed.length} data files, more than one job takes; raise maxObjects (at most 1000: each data file is a shard)`);
  }
  const limit = pLimit(16);
  const heads = await Promise.all(listed.map(({ key }) => limit(() => headOf(s3, bucket, key, where))));
  const objects = heads.filter((object) => object.bytes > 0);
  const empty = heads.length - objects.length;
  return {
    kind: 'export',
    objects,
    version: etag,
    notes: empty > 0 ? [`${empty} empty data files left out`] : [],
    export: {
      ...(typeof summary.exportArn === 'string' ? { exportArn: summary.exportArn } : {}),
      ...(typeof summary.exportType === 'string' ? { exportType: summary.exportType } : {}),
      itemCount: listed.reduce((sum, entry) => sum + entry.itemCount, 0),
    },
  };
}

/**
 * @param {import('@aws-sdk/client-s3').S3Client} s3 @param {string} bucket @param {string} key @param {string} manifest
 * @returns {Promise<JobObject>}
 */
async function headOf(s3, bucket, key, manifest) {
  try {
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { key, etag: etagOf(head), bytes: head.ContentLength ?? 0 };
  } catch (error) {
    const name = /** @type {Error} */ (error).name;
    if (name === 'NotFound' || name === 'NoSuchKey') throw new SourceError(`the export ${manifest} lists s3://${bucket}/${key}, which is not there; copy the export's data folder whole, beside its manifest`, error);
    throw new AwsCallError(`read s3://${bucket}/${key}`, error, 's3:GetObject on it');
  }
}

/**
 * @param {import('@aws-sdk/client-s3').S3Client} s3 @param {string} bucket @param {string} key
 * @returns {Promise<{ text: string, etag: string }>}
 */
async function getText(s3, bucket, key) {
  try {
    const output = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return { text: await /** @type {{ transformToString: () => Promise<string> }} */ (output.Body).transformToString(), etag: etagOf(output) };
  } catch (error) {
    const name = /** @type {Error} */ (error).name;
    if (name === 'NoSuchKey' || name === 'NotFound') throw new SourceError(`s3://${bucket}/${key} does not exist; name the export's manifest-summary.json (it is in the export's AWSDynamoDB/<export id>/ folder)`, error);
    throw new AwsCallError(`read s3://${bucket}/${key}`, error, 's3:GetObject on it');
  }
}

/** @param {string} text @param {string} where @returns {Record<string, any>} */
function parseJsonObject(text, where) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SourceError(`${where} is not JSON; it is not a DynamoDB export's manifest`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SourceError(`${where} is not a JSON object; it is not a DynamoDB export's manifest`);
  return value;
}

/** @param {JobObject[]} objects */
function digestOf(objects) {
  const hash = createHash('sha256');
  for (const object of objects) hash.update(`${object.key}\0${object.etag}\0${object.bytes}\n`);
  return hash.digest('hex').slice(0, 32);
}

/**
 * A CSV header by reference in a job's state on AWS. A state's input or output is at most 256 KiB
 * (States.DataLimitExceeded, not retried, again on every redrive), and the importer accepts a header of
 * up to 256 KiB: as JSON (a list of names, quoted) a header that wide does not fit in a state even once,
 * and a child's state held it three times (its shard, the checkpoint it started from, the one it handed
 * on). So a shard's payload and every checkpoint carry `headerRef` (the object holding the header, beside
 * the job's status, named by its content) in its place: written once by the step that reads the header
 * (Plan for a cut object, the first segment for a shard from the object's start), read by each segment.
 */
import { createHash } from 'node:crypto';
import { JobError } from '../../errors.js';

/** @typedef {{ bucket: string, key: string }} HeaderRef */

/** Headers read lately, by their object (a warm function's next segments read the same one). */
const READ = new Map();
const READ_AT_MOST = 8;

/**
 * @param {import('../../state/output-store.js').OutputStore} store  the output bucket's
 * @param {string} bucket  its name
 * @param {string} prefix  the job's status prefix and id: `<statusPrefix><jobId>/`
 */
export function headerStash(store, bucket, prefix) {
  /** @type {Map<string, Promise<void>>} */
  const written = new Map();
  return {
    /** The header's reference, its object written once. @param {string[]} header @returns {Promise<HeaderRef>} */
    async stow(header) {
      const key = `${prefix}header-${createHash('sha256').update(JSON.stringify(header)).digest('hex').slice(0, 32)}.json`;
      if (!written.has(key)) written.set(key, store.putJson(key, header));
      await written.get(key);
      return { bucket, key };
    },
  };
}

/**
 * The header a reference names.
 * @param {import('../../state/output-store.js').OutputStore} store  the bucket's @param {HeaderRef} ref
 * @returns {Promise<string[]>}
 */
export async function headerOf(store, ref) {
  const id = `${ref.bucket}/${ref.key}`;
  const known = READ.get(id);
  if (known !== undefined) return known;
  const header = await store.getJson(ref.key);
  if (!Array.isArray(header) || !header.every((name) => typeof name === 'string')) {
    throw new JobError(`the job's header object ${store.where(ref.key)} is ${header === undefined ? 'gone' : 'not a list of column names'}: the job cannot go on; import the object again with another runId`);
  }
  if (READ.size >= READ_AT_MOST) READ.delete(READ.keys().next().value);
  READ.set(id, header);
  return header;
}

/** @param {unknown} value @returns {value is HeaderRef} */
export const isHeaderRef = (value) => value !== null && typeof value === 'object' && typeof (/** @type {any} */ (value).bucket) === 'string' && typeof (/** @type {any} */ (value).key) === 'string';

/**
 * The checkpoint a stopped command-line import leaves, as a file the resume reads: where the import
 * stopped, and what it was (the source, the table, where the table is, the options that decide what a
 * row becomes, the command), so that a resume cannot go on with another file, table, endpoint or reading
 * of the rows. The file is signed (HMAC-SHA256) with a key of this user's (signing-key.js) and written
 * readable by its owner alone: a file edited since, or written by anyone else, could otherwise send the
 * rows to a server it names, under the user's credentials; it is refused. Each stop writes a file of its own.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { signingKey } from './signing-key.js';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { newRunName } from '../state/object-keys.js';
import { sourceWhere } from '../source/source-name.js';
import { flagOf } from './import-flags.js';
import { WRITE_OPTIONS, writeOptionsOf } from '../state/write-options.js';

/** The options that decide what the rows become and where the job's records go: a resume keeps them. */
const MEANING = /** @type {const} */ ([...WRITE_OPTIONS, 'versionId', 'rejectsPrefix', 'statusPrefix', 'outputDir', 'outputBucket']);
/** Options added after checkpoint files were first written: a file without one was stopped at its default. */
const LATER_DEFAULTS = /** @type {Record<string, unknown>} */ ({ format: 'auto', emptyCell: 'omit', setSeparator: '|', mode: 'put', fromRejects: false });

/**
 * @param {Readonly<import('../config/index.js').ImportConfig>} config
 * @param {string} [endpoint]  where the table is, when its URL is not it (--local's changes each run)
 */
function identityOf(config, endpoint) {
  return {
    source: sourceWhere(config),
    table: config.table,
    region: config.tableRegion,
    endpoint: endpoint ?? config.dynamodbEndpoint ?? null,
    // The write options in their one form (column types sorted), and where the job's records go.
    options: { ...writeOptionsOf(config), ...Object.fromEntries(MEANING.filter((name) => !(/** @type {readonly string[]} */ (WRITE_OPTIONS)).includes(name)).map((name) => [name, config[name] ?? null])) },
  };
}

/** An option's value as saved, in the form identityOf gives it now (files from before sorted no column types). @param {string} name @param {unknown} value */
const savedForm = (name, value) => (name === 'columnTypes' && value !== null && typeof value === 'object' ? writeOptionsOf(/** @type {any} */ ({ columnTypes: value })).columnTypes : value);

/** The file's signature with this user's key. @param {unknown} value */
const signatureOf = (value) => createHmac('sha256', signingKey()).update(JSON.stringify(value)).digest('hex');

/** The plain digest files of earlier versions carried, which anyone can recompute. @param {unknown} value */
const plainDigestOf = (value) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/**
 * @param {import('../state/checkpoint.js').Checkpoint} checkpoint
 * @param {Readonly<import('../config/index.js').ImportConfig>} config
 * @param {{ directory?: string, endpoint?: string, command?: string[] }} [how]  endpoint: where the table is, when
 *   its URL is not it (--local-dir's); command: the stopped command's arguments, which `import --resume FILE` runs again
 * @returns {string} the file
 */
export function writeCheckpointFile(checkpoint, config, { directory = process.cwd(), endpoint, command } = {}) {
  const file = path.resolve(directory, `${checkpoint.jobId}.${newRunName()}.checkpoint.json`);
  const body = { ...identityOf(config, endpoint), ...(command === undefined ? {} : { command }), checkpoint };
  writeFileSync(file, `${JSON.stringify({ ...body, savedAt: new Date().toISOString(), signature: signatureOf(body) }, null, 1)}\n`, { mode: 0o600 });
  return file;
}

/**
 * The saved checkpoint, checked whole (not edited since it was written).
 * @param {string} file
 * @returns {ReturnType<typeof identityOf> & { checkpoint: import('../state/checkpoint.js').Checkpoint, command?: string[] }}
 */
export function readCheckpointFile(file) {
  let saved;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError('--resume', file, `cannot read it as a checkpoint (${/** @type {Error} */ (error).message}); pass the file a stopped import printed`);
  }
  const { savedAt: _, signature, digest, ...body } = saved ?? {};
  if (typeof digest === 'string' && digest === plainDigestOf(body)) {
    throw new ConfigError('--resume', file, 'it was written by an earlier ddbload, without a signature, so it cannot be told from a file written by someone else: import again from the start (rows written before are written again, which changes nothing)');
  }
  const expected = Buffer.from(signatureOf(body), 'hex');
  const given = typeof signature === 'string' && /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : undefined;
  if (given === undefined || !timingSafeEqual(given, expected)) {
    throw new ConfigError('--resume', file, 'its signature does not match: it was changed since the stopped import wrote it, or written by another user or machine (a checkpoint names where rows go, so only your own is taken): resume from the file your stopped import printed, or import again from the start');
  }
  return body;
}

/**
 * Refuses to resume another import than the one stopped.
 * @param {ReturnType<typeof readCheckpointFile>} saved @param {string} file
 * @param {Readonly<import('../config/index.js').ImportConfig>} config
 * @param {string} [endpoint]  as writeCheckpointFile was given it
 */
export function checkResumable(saved, file, config, endpoint = undefined) {
  const now = identityOf(config, endpoint);
  if (saved.source !== now.source || saved.table !== now.table) {
    throw new ConfigError('--resume', file, `it is the checkpoint of ${saved.source} into ${saved.table}; resume with that source and --table ${saved.table}`);
  }
  if (saved.region !== now.region || saved.endpoint !== now.endpoint) {
    const where = (/** @type {{ region: string, endpoint: string | null }} */ w) => `${w.endpoint ?? 'AWS'} in ${w.region}`;
    throw new ConfigError('--resume', file, `it is the checkpoint of an import into ${saved.table} on ${where(saved)}, not on ${where(now)}: resume with the same region (--region ${saved.region}) and endpoint`);
  }
  for (const name of MEANING) {
    const savedOptions = /** @type {Record<string, unknown>} */ (saved.options);
    const nowOptions = /** @type {Record<string, unknown>} */ (now.options);
    // A file from before the output bucket was kept wrote to the source's bucket (a local file: none).
    const earlier = name === 'outputBucket' ? (saved.source.startsWith('s3://') ? saved.source.slice(5).split('/')[0] : null) : LATER_DEFAULTS[name];
    const was = savedForm(name, name in savedOptions ? savedOptions[name] : earlier);
    if (JSON.stringify(was) !== JSON.stringify(nowOptions[name])) {
      throw new ConfigError('--resume', file, `the import was stopped ${asTyped(flagOf(name), was)}, and the rows it wrote were read so; resume ${asTyped(flagOf(name), was)} (this run is ${asTyped(flagOf(name), nowOptions[name])})`);
    }
  }
}

/**
 * An option's value as a person types it: "with --delimiter ;", "with --ttl expires:+86400s", "with
 * --nest", "without --ttl" (a value not given: the file's null, a run's undefined or false).
 * @param {string} flag @param {unknown} value
 */
function asTyped(flag, value) {
  if (value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0)) return `without ${flag}`;
  if (value === true) return `with ${flag}`;
  if (Array.isArray(value)) return `with ${flag} ${value.join(',')}`;
  if (typeof value === 'object') {
    const ttl = /** @type {{ column?: unknown, after?: unknown }} */ (value);
    if (typeof ttl.column === 'string') return `with ${flag} ${ttl.column}${typeof ttl.after === 'number' ? `:+${ttl.after}s` : ''}`;
    const pairs = Object.entries(value);
    return pairs.length === 0 ? `without ${flag}` : `with ${flag} ${pairs.map(([name, to]) => `${name}:${to}`).join(',')}`;
  }
  return `with ${flag} ${String(value)}`;
}

/** A resumed import finished: its checkpoint is of no more use. @param {string} file */
export const removeCheckpointFile = (file) => rmSync(file, { force: true });

/**
 * This user's key for signing checkpoint files (checkpoint-file.js): 32 random bytes in the user's config
 * directory ($XDG_CONFIG_HOME/ddbload, else ~/.config/ddbload), made on first use, readable by the user
 * alone. A key file others may read (or write) signs nothing: it is refused, as ssh refuses such a key.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';

/** @type {Buffer | undefined} */
let cached;

/** Where the key is. @param {Record<string, string | undefined>} [env] */
export function signingKeyFile(env = process.env) {
  const config = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(config, 'ddbload', 'signing-key');
}

/** The key, made on first use. @returns {Buffer} */
export function signingKey() {
  if (cached !== undefined) return cached;
  const file = signingKeyFile();
  try {
    const stat = statSync(file);
    // Windows keeps no such modes: there the user's profile directory is the user's own.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      throw new ConfigError('--resume', file, `the key that signs checkpoint files may be read or written by other users (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 ${file}, or delete it (checkpoint files signed with it can then not be resumed)`);
    }
    cached = readFileSync(file);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') throw error;
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    // Made exclusively: a key another process made meanwhile is the one read.
    try {
      writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
      cached = key;
    } catch (made) {
      if (/** @type {NodeJS.ErrnoException} */ (made).code !== 'EEXIST') throw made;
      cached = readFileSync(file);
    }
  }
  if (cached.length < 32) throw new ConfigError('--resume', file, `the key that signs checkpoint files is ${cached.length} bytes, not 32: delete it to make a new one`);
  return cached;
}

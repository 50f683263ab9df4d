/**
 * While `npm start` or `npm run burst` runs, where its local servers are, so that `npm run status` in
 * another terminal can read the job's status from the S3 emulator. Removed when the servers stop.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.cache', 'local-session.json');

/**
 * @typedef {object} LocalSession
 * @property {number} pid
 * @property {string} s3Endpoint
 * @property {string} region
 * @property {string} bucket
 * @property {{ accessKeyId: string, secretAccessKey: string }} credentials
 */

/** @param {Omit<LocalSession, 'pid'>} session @returns {() => void} removes it */
export function writeLocalSession(session) {
  mkdirSync(path.dirname(FILE), { recursive: true });
  writeFileSync(FILE, JSON.stringify({ pid: process.pid, ...session }));
  return () => rmSync(FILE, { force: true });
}

/** @returns {LocalSession | undefined} the session of a process still alive */
export function readLocalSession() {
  if (!existsSync(FILE)) return undefined;
  /** @type {LocalSession} */
  const session = JSON.parse(readFileSync(FILE, 'utf8'));
  try {
    process.kill(session.pid, 0);
  } catch {
    return undefined;
  }
  return session;
}

/**
 * DynamoDB Local from Maven Central: fetched into a git-ignored cache on first use, started on
 * 127.0.0.1 and a port the OS picks (through LoopbackLauncher.java), stopped with its parent.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, '..');
export const CACHE_DIR = path.join(projectRoot, '.cache', 'dynamodb-local');
const LIB_DIR = path.join(CACHE_DIR, 'lib');
const CLASSES_DIR = path.join(CACHE_DIR, 'classes');
const POM = path.join(here, 'dynamodb-local', 'pom.xml');
const LAUNCHER_SOURCE = path.join(here, 'dynamodb-local', 'LoopbackLauncher.java');
const LAUNCHER_CLASS = path.join(CLASSES_DIR, 'LoopbackLauncher.class');
const START_TIMEOUT_MS = 60_000;

/**
 * Downloads DynamoDB Local (once) and compiles the launcher (when its source changed).
 * @param {(message: string) => void} [progress]
 */
export function installDynamoDBLocal(progress = (message) => process.stderr.write(`${message}\n`)) {
  if (!existsSync(path.join(LIB_DIR, 'DynamoDBLocal.jar'))) {
    progress(`Fetching DynamoDB Local 2.6.1 from Maven Central into ${path.relative(process.cwd(), LIB_DIR) || LIB_DIR} (first run only)...`);
    run('mvn', ['-q', '-B', '-f', POM, 'dependency:copy-dependencies', `-DoutputDirectory=${LIB_DIR}`, '-Dmdep.stripVersion=true'], 'Install Java 17+ and Maven, and make sure Maven Central is reachable.');
  }
  if (!existsSync(LAUNCHER_CLASS) || statSync(LAUNCHER_CLASS).mtimeMs < statSync(LAUNCHER_SOURCE).mtimeMs) {
    mkdirSync(CLASSES_DIR, { recursive: true });
    run('javac', ['-cp', path.join(LIB_DIR, '*'), '-d', CLASSES_DIR, LAUNCHER_SOURCE], 'Install a Java 17+ JDK (javac).');
  }
}

/**
 * @param {string} command @param {string[]} args @param {string} fix
 */
function run(command, args, fix) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error) throw new Error(`Cannot run ${command}: ${result.error.message}. ${fix}`);
  if (result.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed with exit code ${result.status}. ${fix}`);
}

/**
 * @typedef {object} DynamoDBLocal
 * @property {string} endpoint  http://127.0.0.1:PORT
 * @property {() => Promise<void>} stop
 * @property {() => string} recentOutput  the last few KB DynamoDB Local printed, to explain a failure
 */

/** @returns {Promise<DynamoDBLocal>} */
export async function startDynamoDBLocal() {
  installDynamoDBLocal();
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${LIB_DIR}`,
      `-Dsqlite4java.library.path=${LIB_DIR}`,
      // In-memory tables live in this heap: 1,000,000 rows of ~330 bytes failed scans at 1 GB.
      '-Xmx3g',
      '-cp',
      [CLASSES_DIR, path.join(LIB_DIR, '*')].join(path.delimiter),
      'LoopbackLauncher',
      '-inMemory',
      '-sharedDb',
      '-disableTelemetry',
    ],
    // stdin stays open: the launcher exits when it closes, so DynamoDB Local never outlives us. Its own
    // process group: a Ctrl-C at the terminal is for the importer, which still needs the table to drain.
    { stdio: ['pipe', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`DynamoDB Local did not start within ${START_TIMEOUT_MS / 1000} s. Output:\n${output}`)), START_TIMEOUT_MS);
    /** @param {Error} error */
    function fail(error) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
    child.on('error', (error) => fail(new Error(`Cannot start java for DynamoDB Local: ${error.message}. Install a Java 17+ runtime.`)));
    child.on('exit', (code) => fail(new Error(`DynamoDB Local exited with code ${code} before listening. Output:\n${output}`)));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve(Number(match[1]));
      }
    });
  });
  // Keep only the tail of its output: enough to explain a failure, bounded however long it runs.
  const keepTail = (/** @type {Buffer} */ chunk) => {
    output = (output + chunk).slice(-8_192);
  };
  child.stdout.removeAllListeners('data').on('data', keepTail);
  child.stderr.removeAllListeners('data').on('data', keepTail);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    recentOutput: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Starts dynalite (local/dynalite-server.js) in a child process: its own event loop, so the importer's
 * CPU and the server's do not share one thread, and its own process group, so a Ctrl-C at the terminal
 * reaches the importer (which still needs the table to drain) and not the server.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./dynalite-server.js', import.meta.url));
const START_TIMEOUT_MS = 15_000;

/**
 * @typedef {object} LocalDynamoDB
 * @property {string} endpoint  http://127.0.0.1:PORT
 * @property {() => Promise<void>} stop
 * @property {() => string} recentOutput  the last few KB the server printed, to explain a failure
 */

/**
 * @param {{ path?: string, script?: string }} [options]  path: a directory that keeps the tables between runs
 *   (default: in memory); script: the server to run (tests start one that fails)
 * @returns {Promise<LocalDynamoDB>}
 */
export async function startDynalite({ path, script = SERVER } = {}) {
  const env = { ...process.env, ...(path === undefined ? {} : { DYNALITE_PATH: path }) };
  const child = fork(script, [], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true, serialization: 'json' });
  let output = '';
  const keep = (/** @type {Buffer} */ chunk) => {
    output = (output + chunk).slice(-8_192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    /** @param {string} why */
    function fail(why) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`the local DynamoDB (dynalite) ${why}${output.trim() === '' ? '' : `: ${output.trim()}`}`));
    }
    const onError = (/** @type {Error} */ error) => fail(`could not be started: ${error.message}; check that npm install ran in this project (dynalite is one of its packages)`);
    const onExit = (/** @type {number | null} */ code, /** @type {string | null} */ signal) => fail(`exited with ${signal ?? `code ${code}`} before it listened`);
    child.once('error', onError);
    child.once('exit', onExit);
    child.once('message', (message) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('error', onError);
      resolve(/** @type {{ port: number }} */ (message).port);
    });
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // The channel stays open (the server exits when it closes) but does not hold this process up.
  child.channel?.unref();
  child.unref();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    recentOutput: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.ref();
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

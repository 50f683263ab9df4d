/**
 * What the bench's runs share: an import (or job) in a process of its own on the chosen Node.js,
 * against a capacity model started for it in another; the parser alone; the generator.
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const BUCKET = 'bench';

/**
 * Node.js 22, the Lambda runtime, as tools/node22.sh installs it; undefined where it cannot be had.
 * @returns {string | undefined}
 */
export function node22() {
  try {
    const found = execFileSync(path.join(root, 'tools', 'node22.sh'), ['node', '-p', 'process.execPath'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    return found.length > 0 ? found : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @typedef {object} RunResult
 * @property {any} summary
 * @property {number} seconds
 * @property {number} cpuSeconds
 * @property {number} maxRssMB
 * @property {Array<{ t: number, rowsPerSecond: number, window: number, throttledItems: number, wcuPerSecond: number }>} timeline
 * @property {{ totals: any, perSecond: Array<{ wcu: number, throttledItems: number, calls: number, throttledCalls: number, partitions: number, capacity: number }>, table?: any }} model
 * @property {number} offset  seconds from the model's start to the import's
 */

/**
 * One import against a capacity model started for it.
 * @param {import('./capacity-model.js').ModelOptions} model
 * @param {{ key: string, rows: number }} data
 * @param {Record<string, string>} env
 * @param {Record<string, unknown>} options  the import's payload beside bucket, key and table
 * @param {{ node?: string, worker?: string }} [how]  the Node.js binary for the import (default: this one), and
 *   the import worker to run (default: this checkout's; baselineWorker's for an earlier build)
 * @returns {Promise<RunResult>}
 */
export async function importAgainst(model, data, env, options, how = {}) {
  const child = spawn(process.execPath, [path.join(root, 'bench', 'capacity-model.js'), JSON.stringify(model)], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const { endpoint } = JSON.parse(await firstLine(child.stdout));
    const started = Date.now();
    const result = await runWorker({ bucket: BUCKET, key: data.key, table: 'bench', logIntervalMs: 1000, ...options }, { ...env, DYNAMODB_ENDPOINT: endpoint }, how.node, how.worker);
    const stats = await (await fetch(`${endpoint}/stats`)).json();
    return { ...result, model: stats, offset: (started - stats.startedAt) / 1000 };
  } finally {
    child.stdin.end();
  }
}

/**
 * @param {Record<string, unknown>} payload @param {Record<string, string>} env @param {string} [node]
 * @param {string} [worker]  the import worker script
 * @returns {Promise<Omit<RunResult, 'model' | 'offset'>>}
 */
export function runWorker(payload, env, node = process.execPath, worker = path.join(root, 'bench', 'import-worker.js')) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [worker, JSON.stringify({ payload, env })], { stdio: ['ignore', 'pipe', 'inherit'] });
    /** @type {any[]} */
    const timeline = [];
    /** @type {any} */
    let result;
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let at;
      while ((at = buffered.indexOf('\n')) !== -1) {
        const line = JSON.parse(buffered.slice(0, at));
        buffered = buffered.slice(at + 1);
        if (line.result !== undefined) result = line.result;
        else if (line.message === 'throughput') timeline.push({ t: line.elapsedSeconds, rowsPerSecond: line.rowsPerSecond, window: line.window, throttledItems: line.throttledItems, wcuPerSecond: line.wcuPerSecond });
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 && result !== undefined ? resolve({ ...result, timeline }) : reject(new Error(`import worker exited with ${code}`))));
  });
}

/**
 * The importer as it was at an earlier commit, to run beside this one in the same sitting (this machine's
 * speed drifts between sittings by more than a regression would show): that commit's src/ and import
 * worker, from git into the git-ignored .cache/bench-baseline/<commit>/, where their packages resolve to
 * this checkout's node_modules. Its import worker's path, or why it cannot be had (a shallow clone).
 * @param {string} commit
 * @returns {{ worker: string } | { missing: string }}
 */
export function baselineWorker(commit) {
  const dir = path.join(root, '.cache', 'bench-baseline', commit);
  const worker = path.join(dir, 'bench', 'import-worker.js');
  if (existsSync(worker)) return { worker };
  // Extracted beside it, then renamed into place: an extraction cut short is never taken for a whole one.
  const partial = `${dir}.partial-${process.pid}`;
  try {
    const tar = execFileSync('git', ['archive', '--format=tar', commit, 'src', 'bench/import-worker.js', 'package.json'], { cwd: root, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
    mkdirSync(partial, { recursive: true });
    execFileSync('tar', ['-x', '-C', partial], { input: tar });
    renameSync(partial, dir);
    return { worker };
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    return { missing: `the importer at ${commit} could not be extracted with git archive (${/** @type {Error} */ (error).message.split('\n')[0]}); a shallow clone lacks it` };
  }
}

/**
 * Parsing alone (parser-floor.js): csv-parse, then the importer's reader, each in a process of its own.
 * @param {number} rows @param {string} [node]
 * @returns {Promise<import('./parser-floor.js').ParseRate & { reader: import('./parser-floor.js').ParseRate }>}
 */
export async function parserFloorRun(rows, node = process.execPath) {
  const csvParse = await floorProcess(rows, 'csv-parse', node);
  return { ...csvParse, reader: await floorProcess(rows, 'reader', node) };
}

/** @param {number} rows @param {string} reader @param {string} node @returns {Promise<import('./parser-floor.js').ParseRate>} */
function floorProcess(rows, reader, node) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [path.join(root, 'bench', 'parser-floor.js'), String(rows), reader], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`parser-floor.js exited with ${code}`))));
  });
}

/** @param {number} rows @returns {Promise<{ seconds: number, maxRssMB: number }>} */
export async function generatorRun(rows) {
  const script = path.join(root, 'data-generator', 'generate.js');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // GNU time reports the child's peak RSS; the generator writes to /dev/null.
    const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, script, '--rows', String(rows), '--seed', '7', '--out', '/dev/null', '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`generator exited with ${code}: ${stderr}`));
      resolve({ seconds: (performance.now() - started) / 1000, maxRssMB: Number(stderr.trim().split('\n').at(-1)) / 1024 });
    });
  });
}

/** @param {import('node:stream').Readable} stream @returns {Promise<string>} */
function firstLine(stream) {
  return new Promise((resolve, reject) => {
    let data = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      data += chunk;
      const at = data.indexOf('\n');
      if (at !== -1) resolve(data.slice(0, at));
    });
    stream.on('end', () => reject(new Error('capacity model ended before printing its endpoint')));
  });
}

/**
 * Two runs side by side, `a` first when `i` is even and `b` first when it is odd, so that the machine's
 * drift falls on both alike. Returns their results as [a's, b's].
 * @template A, B
 * @param {number} i @param {() => Promise<A>} a @param {() => Promise<B>} b
 * @returns {Promise<[A, B]>}
 */
export async function inTurn(i, a, b) {
  if (i % 2 === 0) {
    const first = await a();
    return [first, await b()];
  }
  const second = await b();
  return [await a(), second];
}

/** @param {number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** @param {number} value */
export const fmt = (value) => Math.round(value).toLocaleString('en-US');

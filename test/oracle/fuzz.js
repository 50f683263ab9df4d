#!/usr/bin/env node
/**
 * npm run fuzz -- --runs N [--seed S] [--lanes a,b] [--path P] [--features -a,-b] [--replay FILE] [--time-limit SECONDS] [--max-rows N]
 * Runs the differential fuzz tests (vitest.fuzz.config.js) with these settings; other arguments go to vitest.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FLAGS = {
  '--runs': 'FUZZ_RUNS',
  '--seed': 'FUZZ_SEED',
  '--path': 'FUZZ_PATH',
  '--features': 'FUZZ_FEATURES',
  '--lanes': 'FUZZ_LANES',
  '--replay': 'FUZZ_REPLAY',
  '--time-limit': 'FUZZ_TIME_LIMIT_S',
  '--max-rows': 'FUZZ_MAX_ROWS',
  '--verbose': 'FUZZ_VERBOSE',
};

const HELP = `npm run fuzz -- [options] [vitest arguments]
  --runs N           generated cases (default 20), split between the lanes
  --lanes LIST       "keys,jsonl": only these lanes (test/oracle/lanes.js LANES: csv, csv-shards, keys,
                     csv-types, jsonl, ddb-json, delete, spread, prefix, from-rejects, resume, if-absent,
                     newer, update, shard-runs, wide); default every lane. A lane that runs fewer cases
                     than asked (its time limit) fails; each prints asked, ran, seed and seconds
  --seed S           fast-check seed (a failure prints the seed and path that replay it)
  --path P           with --seed: replay only the reported counterexample
  --replay FILE      run one saved failing case again (a failure prints the file)
  --features LIST    "-a,-b" switches kinds of input off, "a,b" keeps only these (test/oracle/arbitraries.js FEATURES)
  --time-limit S     each lane's limit in seconds, shrinking included (default 300, or 12 s a case asked
                     if more): a lane it stops fails
  --max-rows N       data rows per generated file at most (default 300)
  --verbose 0|1|2    fast-check's verbosity`;

/** @type {Record<string, string>} */
const env = {};
/** @type {string[]} */
const rest = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--help' || arg === '-h') {
    console.log(HELP);
    process.exit(0);
  }
  const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
  const name = FLAGS[/** @type {keyof typeof FLAGS} */ (flag)];
  if (name === undefined) {
    rest.push(arg);
    continue;
  }
  const value = inline ?? args[++i];
  if (value === undefined) {
    console.error(`${flag} needs a value\n\n${HELP}`);
    process.exit(2);
  }
  if (['--runs', '--seed', '--time-limit', '--max-rows', '--verbose'].includes(flag) && !/^-?\d+$/.test(value)) {
    console.error(`${flag} needs a whole number, got "${value}"`);
    process.exit(2);
  }
  env[name] = value;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const child = spawn('npx', ['vitest', 'run', '--config', 'vitest.fuzz.config.js', ...rest], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));

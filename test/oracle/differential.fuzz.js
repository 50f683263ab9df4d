/**
 * Property-based differential tests (issue 17): generated CSV files and options, imported for real on
 * the local servers under generated faults, segments and shards, each compared item by item and line
 * by line with the sequential oracle (oracle.js).
 *
 *   FUZZ_RUNS=15 npx vitest run --config vitest.fuzz.config.js       (or: npm run fuzz -- --runs 15)
 *   FUZZ_SEED=<seed> FUZZ_PATH=<path>   replays the case a failure reported
 *   FUZZ_REPLAY=<file>                  replays a saved failing case (the failure names the file); a
 *                                       directory, or files separated by commas: each of them
 *   FUZZ_LANES=keys,jsonl               the lanes to run (lanes.js LANES); unset: every lane, the runs
 *                                       split between them (csv twice the others' share; csv-shards,
 *                                       cases cut into shards with keys that do not repeat, half;
 *                                       prefix a quarter)
 *   FUZZ_FEATURES=-malformedQuotes,-invalidUtf8   switches kinds of input off in every lane (see
 *                                       arbitraries.js FEATURES); shards stay off but in csv-shards
 *   FUZZ_TIME_LIMIT_S=300               each lane's limit, shrinking included (default: 300 s or 12 s a case,
 *                                       whichever is more); a lane it stops FAILS, having run fewer cases
 *                                       than asked (a timing-dependent failure shrinks slowly: most smaller
 *                                       cases pass by chance)
 *   FUZZ_MAX_ROWS=300                   data rows per generated file at most
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useLocalServers } from '../support/local.js';
import { featuresFrom } from './arbitraries.js';
import { checkAgainstOracle, replayFailure } from './differential.js';
import { LANES, lanesFrom } from './lanes.js';

const local = useLocalServers();

/** @param {string} name */
const numberFromEnv = (name) => (process.env[name] === undefined || process.env[name] === '' ? undefined : Number(process.env[name]));

const numRuns = numberFromEnv('FUZZ_RUNS') ?? 20;
// A run without --seed draws one, and each lane's line says it, to be replayed.
const seed = numberFromEnv('FUZZ_SEED') ?? Math.floor(Math.random() * 2 ** 31);
const path = process.env.FUZZ_PATH || undefined;
const replay = process.env.FUZZ_REPLAY || undefined;
/** The saved cases to replay: FUZZ_REPLAY names files (comma-separated) or directories of them. */
const replays = (replay ?? '')
  .split(',')
  .filter((entry) => entry !== '')
  .flatMap((entry) => (statSync(entry).isDirectory() ? readdirSync(entry).filter((name) => name.endsWith('.json')).sort().map((name) => join(entry, name)) : [entry]));
/**
 * Each lane's time limit. A lane it stops fails (it ran fewer cases than it says), so by default it grows
 * with the cases asked: 300 s, or 12 s a case (the slowest lanes, prefix and shard-runs, take about 2 s a
 * case, more with shrinking), whichever is more. Before issue 46 a 300 s limit ended lanes of a 10,000-case
 * run early, and they passed.
 */
const timeLimitOf = (/** @type {number} */ runs) => numberFromEnv('FUZZ_TIME_LIMIT_S') ?? Math.max(300, 12 * runs);

/**
 * Each lane's share of the runs: the csv lane twice the others', csv-shards half, prefix a quarter (its
 * objects run in worker processes: about 1.7 s a case, ten times the others').
 * @type {Record<string, number>}
 */
const SHARES = { csv: 2, 'csv-shards': 0.5, prefix: 0.25, 'shard-runs': 0.5 };

/**
 * The features a lane runs with: FUZZ_FEATURES if set, else the lane's own; shards only in csv-shards.
 * @param {string} lane
 */
function laneFeatures(lane) {
  const features = featuresFrom(process.env.FUZZ_FEATURES || LANES[lane].features);
  if (lane !== 'csv-shards') features.delete('shards');
  else features.delete('repeatedKeys');
  return features;
}

describe('the import against the sequential oracle', () => {
  const lanes = lanesFrom(process.env.FUZZ_LANES);
  const weights = lanes.map((lane) => SHARES[lane] ?? 1);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  // Each lane gets its share of the runs, at least one; a lane's seed is the run's plus its place.
  const passes = lanes.map((lane, i) => ({
    lane,
    runs: lanes.length === 1 ? numRuns : Math.max(1, Math.round((numRuns * weights[i]) / total)),
    features: [...laneFeatures(lane)].join(','),
    seed: seed + Object.keys(LANES).indexOf(lane),
  }));
  it.skipIf(replay !== undefined).each(passes)('lane $lane: leaves what the oracle says on $runs generated files and conditions', async (pass) => {
    const started = performance.now();
    /** @type {{ cases: number, asked: number } | undefined} */
    let result;
    try {
      result = await checkAgainstOracle(local, {
        lane: pass.lane,
        numRuns: pass.runs,
        seed: pass.seed,
        path,
        features: featuresFrom(pass.features),
        timeLimitMs: timeLimitOf(pass.runs) * 1000,
        verbose: numberFromEnv('FUZZ_VERBOSE') ?? 0,
        maxRows: numberFromEnv('FUZZ_MAX_ROWS'),
        log: (line) => console.info(line),
      });
    } finally {
      // Per lane: the cases asked, the cases run, the seed and the time, passed or not.
      console.info(`fuzz lane ${result === undefined ? 'FAILED' : 'done'}: ${pass.lane}, asked ${pass.runs}, ran ${result?.cases ?? 'fewer (see the error)'}, seed ${pass.seed}, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    expect(result.cases).toBe(path === undefined ? pass.runs : 1);
  });

  it.runIf(replays.length > 0).each(replays.length > 0 ? replays : [''])('replays the case saved in %s', async (file) => {
    const result = await replayFailure(local, file);
    console.info(`case: ${result.description}\nconditions: ${result.conditions}`);
    const shown = result.differences.slice(0, 25);
    if (result.differences.length > shown.length) shown.push(`… and ${result.differences.length - shown.length} more`);
    expect(shown).toEqual([]);
  });
});

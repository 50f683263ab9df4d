/**
 * Property-based differential tests (issue 17): generated CSV files and options, imported for real on
 * the local servers under generated faults, segments and shards, each compared item by item and line
 * by line with the sequential oracle (oracle.js).
 *
 *   FUZZ_RUNS=15 npx vitest run --config vitest.fuzz.config.js       (or: npm run fuzz -- --runs 15)
 *   FUZZ_SEED=<seed> FUZZ_PATH=<path>   replays the case a failure reported
 *   FUZZ_REPLAY=<file>                  replays a saved failing case (the failure names the file); a
 *                                       directory, or files separated by commas: each of them
 *   FUZZ_FEATURES=-malformedQuotes,-invalidUtf8   switches kinds of input off (see arbitraries.js FEATURES);
 *                                       unset: two passes, as in npm test (differential.test.js): two
 *                                       thirds of the runs without shards, a third with shards and keys
 *                                       that do not repeat (the README says why)
 *   FUZZ_TIME_LIMIT_S=300               stops the run, shrinking included, after this long (a timing-
 *                                       dependent failure shrinks slowly: most smaller cases pass by chance)
 *   FUZZ_MAX_ROWS=300                   data rows per generated file at most
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useLocalServers } from '../support/local.js';
import { featuresFrom } from './arbitraries.js';
import { checkAgainstOracle, replayFailure } from './differential.js';

const local = useLocalServers();

/** @param {string} name */
const numberFromEnv = (name) => (process.env[name] === undefined || process.env[name] === '' ? undefined : Number(process.env[name]));

const numRuns = numberFromEnv('FUZZ_RUNS') ?? 20;
const seed = numberFromEnv('FUZZ_SEED');
const path = process.env.FUZZ_PATH || undefined;
const replay = process.env.FUZZ_REPLAY || undefined;
/** The saved cases to replay: FUZZ_REPLAY names files (comma-separated) or directories of them. */
const replays = (replay ?? '')
  .split(',')
  .filter((entry) => entry !== '')
  .flatMap((entry) => (statSync(entry).isDirectory() ? readdirSync(entry).filter((name) => name.endsWith('.json')).sort().map((name) => join(entry, name)) : [entry]));
const timeLimitSeconds = numberFromEnv('FUZZ_TIME_LIMIT_S') ?? 300;

describe('the import against the sequential oracle', () => {
  const passes = process.env.FUZZ_FEATURES
    ? [{ runs: numRuns, features: process.env.FUZZ_FEATURES, seed }]
    : [
        { runs: Math.ceil((numRuns * 2) / 3), features: '-shards', seed },
        { runs: Math.floor(numRuns / 3), features: '-repeatedKeys', seed: seed === undefined ? undefined : seed + 1 },
      ];
  it.skipIf(replay !== undefined).each(passes.filter((pass) => pass.runs > 0))('leaves what the oracle says on $runs generated files and conditions (features $features)', async (pass) => {
    const started = performance.now();
    const { cases } = await checkAgainstOracle(local, {
      numRuns: pass.runs,
      seed: pass.seed,
      path,
      features: featuresFrom(pass.features),
      timeLimitMs: timeLimitSeconds * 1000,
      verbose: numberFromEnv('FUZZ_VERBOSE') ?? 0,
      maxRows: numberFromEnv('FUZZ_MAX_ROWS'),
      log: (line) => console.info(line),
    });
    console.info(`fuzz pass done: ${cases} of ${pass.runs} cases, features ${pass.features}, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  });

  it.runIf(replays.length > 0).each(replays.length > 0 ? replays : [''])('replays the case saved in %s', async (file) => {
    const result = await replayFailure(local, file);
    console.info(`case: ${result.description}\nconditions: ${result.conditions}`);
    const shown = result.differences.slice(0, 25);
    if (result.differences.length > shown.length) shown.push(`… and ${result.differences.length - shown.length} more`);
    expect(shown).toEqual([]);
  });
});

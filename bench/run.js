#!/usr/bin/env node
/**
 * `npm run bench`: every benchmark of the speed targets. Each import runs in a process of its own on
 * Node.js 22 (the Lambda runtime; tools/node22.sh installs it), against the capacity model
 * (bench/capacity-model.js, in its own process) and the S3 emulator (in this one). Prints one table
 * (figure, value, target, pass), writes bench/results/latest.json and a chart per scenario.
 *
 *   npm run bench                      the full set (about 15 minutes on the 2-core machine)
 *   npm run bench -- --quick           smaller files, one run each: a smoke test of the bench itself
 *   npm run bench -- --only seed,growth  some sections: client, capacity, seed, growth, shards, modes, plan, memory, dry, generator, e2e
 *   npm run bench -- --only client --baseline COMMIT   the client's CPU beside another build
 */
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { uploadStream, writeCsv } from '../data-generator/people.js';
import { startDynalite } from '../local/dynalite.js';
import { S3RVER_CREDENTIALS, startS3Emulator } from '../local/s3-emulator.js';
import { createTable, LOCAL_REGION } from '../local/servers.js';
import { renderChart, renderScenarioChart } from './chart.js';
import { IP_RANGE_IMPORT, IP_RANGE_TABLE, ipRangesCsv } from './ip-ranges.js';
import { baselineWorker, BUCKET, fmt, generatorRun, importAgainst, inTurn, median, node22, parserFloorRun, root, runWorker } from './runner.js';
import { hashKey, idealImport } from './table-model.js';
import { planLargeObject } from './plan-bench.js';

const SECTIONS = ['client', 'capacity', 'seed', 'growth', 'shards', 'modes', 'plan', 'memory', 'dry', 'generator', 'e2e'];
const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, baseline: { type: 'string' } } });
const quick = flags.quick ?? false;
const only = new Set((flags.only ?? SECTIONS.join(',')).split(',').map((name) => name.trim()));
for (const name of only) if (!SECTIONS.includes(name)) throw new Error(`unknown section "${name}"; the sections are ${SECTIONS.join(', ')}`);
const scale = (/** @type {number} */ rows) => (quick ? Math.max(5_000, Math.round(rows / 20)) : rows);
const RUNS = quick ? 1 : 3;
/** Dry runs, each beside csv-parse alone: more than RUNS, as their pairs spread wide on this machine (drySection). */
const DRY_PAIRS = quick ? 1 : 5;
const LATENCY_PAIRS = quick ? 1 : 5;

/**
 * The table model's time scale in the seed, growth and shard scenarios: its adaptive delays (split for
 * heat after 600 model seconds hot, on-demand growth every 1,800, the burst bank's 300) run 120 times
 * faster than real time; its rates are DynamoDB's. Every figure of those scenarios says so.
 */
const TIME_SCALE = 120;
/**
 * The build the client's CPU per row is held to: the importer when the issue that set the CPU target
 * began (the last commit before its work), which used 2.0-2.6 CPU s per 100,000 rows beside its peers.
 * CPU_ALLOWANCE: one build run against itself, alternated, three runs each, had medians 4% apart on this
 * machine (500,000 rows). The baseline runs on this checkout's packages: a dependency bump counts as ours.
 */
// `--baseline <commit>` holds the client's CPU to another build, run alternately beside this one (a
// redesign's "within 3% of the build before it"); its row then names that build.
const BASELINE = flags.baseline ?? '350080a26ffe2c258925e4ab0a2466467a98bc09';
const BASELINE_NAME = BASELINE.slice(0, 7);
const CPU_ALLOWANCE = 1.05;
const SCALE_NOTE = `model time x${TIME_SCALE}`;
/** The seed article's figures (shared/seeds/000), writes per second. */
const ARTICLE = { single: 1_000, sortedPrefixes: 1_250, shuffled: 3_600, provisioned: 6_000 };

/** @typedef {{ figure: string, value: string, target: string, pass: boolean | undefined }} Row */
/** @type {Row[]} */
const table = [];
/** @type {Record<string, unknown>} */
const results = { machine: machine(), quick, timeScale: TIME_SCALE };
const out = path.join(root, 'bench', 'results', ...(quick ? ['quick'] : []));

/** @param {string} figure @param {string} value @param {string} target @param {boolean | undefined} pass */
function record(figure, value, target, pass) {
  table.push({ figure, value, target, pass });
  process.stderr.write(`  ${figure}: ${value} (${target}) ${pass === undefined ? '' : pass ? 'pass' : 'FAIL'}\n`);
}

async function main() {
  mkdirSync(out, { recursive: true });
  const node = node22();
  results.importNode = node === undefined ? process.version : 'v22 (tools/node22.sh)';
  if (node === undefined) record('Node.js 22 for the imports', 'not available: tools/node22.sh could not install it', 'the Lambda runtime', false);
  const how = { node: node ?? process.execPath };
  const s3 = await startS3Emulator([BUCKET]);
  const s3client = new S3Client({ region: LOCAL_REGION, endpoint: s3.endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
  const env = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: LOCAL_REGION, S3_ENDPOINT: s3.endpoint };
  /** @type {Map<string, { key: string, rows: number, positions?: import('./table-model.js').Position[] }>} */
  const made = new Map();
  /** @param {string} key @param {number} rows */
  const people = async (key, rows) => {
    if (!made.has(key)) {
      process.stderr.write(`generating ${key} (${rows.toLocaleString('en-US')} rows)\n`);
      await uploadStream(s3client, BUCKET, key, (body) => writeCsv(body, { rows, seed: 42, sorted: false }));
      made.set(key, { key, rows });
    }
    return /** @type {{ key: string, rows: number }} */ (made.get(key));
  };
  /** @param {number} rows @param {'single' | 'slash8'} partitionKey @param {boolean} shuffled @param {number[]} [octets] */
  const ipRanges = async (rows, partitionKey, shuffled, octets) => {
    const key = `ip-${partitionKey}-${octets?.length ?? 223}-${shuffled ? 'shuffled' : 'sorted'}-${rows}.csv`;
    if (!made.has(key)) {
      process.stderr.write(`generating ${key}\n`);
      const csv = ipRangesCsv({ rows, partitionKey, shuffled, octets });
      await uploadStream(s3client, BUCKET, key, async (body) => {
        body.end(csv);
      });
      // Where each row's key lies in the table model's key space, in file order: for its minimum.
      const positions = csv.split('\n').slice(1, rows + 1).map((line) => {
        const [pk, start] = line.split(',', 2);
        return { hash: hashKey(pk), sort: Number(start) };
      });
      made.set(key, { key, rows, positions });
    }
    return /** @type {{ key: string, rows: number, positions: import('./table-model.js').Position[] }} */ (made.get(key));
  };
  try {
    if (only.has('client')) await clientSection(await people('random-1m.csv', scale(1_000_000)), await people('random-300k.csv', scale(300_000)), env, how);
    if (only.has('capacity')) await capacitySection(await people('random-300k.csv', scale(300_000)), env, how);
    if (only.has('seed')) await seedSection(ipRanges, env, how);
    if (only.has('growth')) await growthSection(await ipRanges(scale(300_000), 'slash8', true), env, how);
    if (only.has('shards')) await shardsSection(await people('random-100k.csv', scale(100_000)), env, how);
    if (only.has('modes')) await modesSection(await people('random-100k.csv', scale(100_000)), env, how);
    if (only.has('plan')) await planSection();
    if (only.has('memory') || only.has('dry')) {
      const small = await people('random-100k.csv', scale(100_000));
      const large = await people('random-3m.csv', scale(3_000_000));
      if (only.has('memory')) await memorySection(small, large, env, how);
      if (only.has('dry')) await drySection(large, env, how);
    }
    if (only.has('generator')) {
      const generator = await generatorRun(scale(3_000_000));
      record(`generator, ${scale(3_000_000).toLocaleString('en-US')} rows`, `${generator.seconds.toFixed(2)} s, ${generator.maxRssMB.toFixed(0)} MB`, '<= 10 s, <= 100 MB', generator.seconds <= 10 && generator.maxRssMB <= 100);
    }
    if (only.has('e2e')) await endToEndSection(await people('random-100k.csv', scale(100_000)), env, how);
    Object.assign(results, { table });
    // Some sections only: their own file, so that the full run's figures stay.
    const name = only.size === SECTIONS.length ? 'latest' : `latest-${[...only].join('-')}`;
    writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(path.join(out, `${name}.txt`), tableText());
    printTable();
    process.stdout.write(`\ncharts and figures: ${path.relative(root, out)}/ (Node.js for the imports: ${results.importNode}; machine: ${JSON.stringify(results.machine)})\n`);
  } finally {
    s3client.destroy();
    await s3.stop();
  }
}

/**
 * The client alone against a sink: its ceiling, its CPU per row (a regression shows here first), the
 * parser's floor, and at 10 ms latency against the sink run beside it.
 * @param {{ key: string, rows: number }} big @param {{ key: string, rows: number }} mid
 * @param {Record<string, string>} env @param {{ node: string }} how
 */
async function clientSection(big, mid, env, how) {
  // The client's CPU per row against the importer as it was when the target was set (BASELINE), run
  // alternately with it in this sitting: the machine's speed drifts between sittings by up to 1.7 x
  // (csv-parse alone 0.67 to 1.11 s per 100,000 rows), more than a regression would show.
  const baseline = baselineWorker(BASELINE);
  /** @type {import('./runner.js').RunResult[]} */
  const sinkRuns = [];
  /** @type {import('./runner.js').RunResult[]} */
  const baselineRuns = [];
  for (let i = 0; i < RUNS; i++) {
    const runThis = async () => sinkRuns.push(await importAgainst({}, big, env, {}, how));
    const runBaseline = async () => {
      if ('worker' in baseline) baselineRuns.push(await importAgainst({}, big, env, {}, { ...how, worker: baseline.worker }));
    };
    await inTurn(i, runBaseline, runThis);
  }
  const rates = sinkRuns.map((r) => r.summary.written / r.seconds);
  const cpuPer100k = (/** @type {import('./runner.js').RunResult[]} */ runs) => runs.map((r) => (r.cpuSeconds / r.summary.written) * 100_000);
  const cpu = cpuPer100k(sinkRuns);
  const spanOf = (/** @type {number[]} */ values) => `median of ${values.length} (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`;
  record(`client against the sink, ${big.rows.toLocaleString('en-US')} rows`, `${fmt(median(rates))} rows/s, median of ${RUNS} (${fmt(Math.min(...rates))}-${fmt(Math.max(...rates))})`, 'reported: the sink and the S3 emulator share the 2 cores', undefined);
  const target = `<= ${CPU_ALLOWANCE} x the importer at ${BASELINE_NAME} (when the target was set: 2.0-2.6 s beside the peers, seed 003 3.7-3.9, ddbimport 2.6-3.1), run alternately in this sitting; ${CPU_ALLOWANCE} x: the run-to-run spread`;
  if ('worker' in baseline) {
    const before = cpuPer100k(baselineRuns);
    const ratio = median(cpu) / median(before);
    record('client CPU per 100,000 rows (sink)', `${median(cpu).toFixed(2)} s, ${spanOf(cpu)}; at ${BASELINE_NAME}: ${median(before).toFixed(2)} s, ${spanOf(before)}; ${ratio.toFixed(3)} x`, target, ratio <= CPU_ALLOWANCE);
    results.baselineSinkRuns = baselineRuns.map(strip);
  } else {
    record('client CPU per 100,000 rows (sink)', `${median(cpu).toFixed(2)} s, ${spanOf(cpu)}; not compared: ${baseline.missing}`, target, false);
  }
  const floor = await parserFloorRun(scale(300_000), how.node);
  record('csv-parse alone, importer options, one thread', `${floor.secondsPer100k.toFixed(2)} s per 100,000 rows = at most ${fmt(floor.rowsPerSecond)} rows/s`, 'reported: bounds one thread', undefined);
  record('the importer\'s record reader alone, one thread', `${floor.reader.secondsPer100k.toFixed(2)} s per 100,000 rows = at most ${fmt(floor.reader.rowsPerSecond)} rows/s`, 'reported: splitter and csv-parse a batch at a time', undefined);
  results.parserFloor = floor;
  results.sinkRuns = sinkRuns.map(strip);

  // At 10 ms latency. The machine's speed drifts by more than the 10% this allows, so each latency run is
  // paired with a sink run of the same file beside it; which goes first alternates.
  const window = 32;
  const windowBound = (window * 25) / 0.01;
  const pairs = [];
  for (let i = 0; i < LATENCY_PAIRS; i++) {
    const runSink = () => importAgainst({}, mid, env, { concurrency: window }, how);
    const runLatency = () => importAgainst({ latencyMs: 10 }, mid, env, { concurrency: window }, how);
    const [sink, latency] = await inTurn(i, runSink, runLatency);
    const atLatency = latency.summary.written / latency.seconds;
    const bound = Math.min(sink.summary.written / sink.seconds, windowBound);
    pairs.push({ atLatency, bound, ratio: atLatency / bound });
  }
  const byRatio = [...pairs].sort((a, b) => a.ratio - b.ratio);
  const pair = byRatio[Math.floor(pairs.length / 2)];
  const percent = (/** @type {{ ratio: number }} */ { ratio }) => `${(ratio * 100).toFixed(0)}%`;
  record(
    '10 ms latency, window 32',
    `${fmt(pair.atLatency)} rows/s = ${percent(pair)} of min(sink ${fmt(pair.bound)}, ${fmt(windowBound)}), median of ${pairs.length} pairs (${percent(byRatio[0])}-${percent(byRatio.at(-1) ?? pair)})`,
    '>= 90% of min(ceiling, window x 25 / latency)',
    pair.ratio >= 0.9,
  );
  results.latencyPairs = pairs;
}

/**
 * A provisioned 10,000 WCU table: the adaptive window and pace against a fixed window with fixed backoff.
 * @param {{ key: string, rows: number }} data @param {Record<string, string>} env @param {{ node: string }} how
 */
async function capacitySection(data, env, how) {
  const model = { wcu: 10_000, latencyMs: 2, splitForHeat: false };
  const minimum = data.rows / model.wcu;
  const adaptive = await importAgainst(model, data, env, {}, how);
  const fixed = await importAgainst(model, data, env, { adaptiveConcurrency: false }, how);
  for (const [name, run] of /** @type {const} */ ([['adaptive', adaptive], ['fixed', fixed]])) {
    const ratio = run.seconds / minimum;
    const share = run.summary.throttledCalls / Math.max(1, run.summary.calls);
    record(
      `provisioned 10,000 WCU/s, ${name === 'adaptive' ? 'adaptive window and pace' : 'fixed window'}`,
      `${run.seconds.toFixed(1)} s = ${ratio.toFixed(3)} x minimum (${minimum.toFixed(0)} s); ${run.summary.written.toLocaleString('en-US')} written; throttled calls ${(share * 100).toFixed(1)}%`,
      name === 'adaptive' ? '<= 1.05 x minimum, every row' : 'comparison',
      name === 'adaptive' ? ratio <= 1.05 && run.summary.written === data.rows : undefined,
    );
  }
  record('adaptive beats fixed', `${(fixed.seconds / adaptive.seconds).toFixed(2)} x faster, ${adaptive.summary.throttledCalls} vs ${fixed.summary.throttledCalls} throttled calls`, 'faster and fewer throttles', adaptive.seconds < fixed.seconds && adaptive.summary.throttledCalls <= fixed.summary.throttledCalls);
  const series = [...adaptive.timeline.map((point) => ({ ...point, run: 'adaptive window and pace' })), ...fixed.timeline.map((point) => ({ ...point, run: 'fixed window, fixed backoff' }))];
  writeFileSync(path.join(out, 'capacity.svg'), await renderChart(series, `Provisioned 10,000 WCU/s, ${data.rows.toLocaleString('en-US')} rows: adaptive against fixed`));
  Object.assign(results, { adaptive: strip(adaptive), fixed: strip(fixed) });
}

/**
 * The seed article's four loading tests on the table model, first as the article loaded (a loop that
 * sends one call at a time), beside its figures, then as this importer loads the same files.
 * @param {(rows: number, partitionKey: 'single' | 'slash8', shuffled: boolean, octets?: number[]) => Promise<{ key: string, rows: number, positions: import('./table-model.js').Position[] }>} ipRanges
 * @param {Record<string, string>} env @param {{ node: string }} how
 */
async function seedSection(ipRanges, env, how) {
  // In real time, as the article's runs were: a few minutes at most, before a split for heat or a growth
  // step of a new table (the growth section runs those, on the model's time scale).
  const onDemand = { mode: /** @type {const} */ ('on-demand'), timeScale: 1, latencyMs: 3, ...IP_RANGE_TABLE };
  const provisioned = { wcu: 10_000, timeScale: 1, latencyMs: 3, ...IP_RANGE_TABLE };
  const SCALE_NOTE = 'model in real time';
  // The article's file had thousands of ranges for each /8 in a row, over 200 and more /8s, which a new
  // table's four partitions share about evenly. Here 100,000 ranges, 2,000 for each of 52 /8s, 13 of them
  // in each of those partitions' key ranges (so that 52 keys spread as evenly as the article's 223); one
  // partition key value's file is 20,000 ranges.
  const octets = evenOctets(13);
  const single = await ipRanges(scale(20_000), 'single', false);
  const sorted = await ipRanges(scale(100_000), 'slash8', false, octets);
  const shuffled = await ipRanges(scale(100_000), 'slash8', true, octets);
  const shuffledLarge = await ipRanges(scale(200_000), 'slash8', true);
  const articleLoop = { ...IP_RANGE_IMPORT, concurrency: 1, adaptiveConcurrency: false };
  const importer = { ...IP_RANGE_IMPORT };
  const SPREAD = 16;

  /** @type {Record<string, import('./runner.js').RunResult>} */
  const runs = {};
  runs.singleArticle = await importAgainst(onDemand, single, env, articleLoop, how);
  runs.sortedArticle = await importAgainst(onDemand, sorted, env, articleLoop, how);
  runs.shuffledArticle = await importAgainst(onDemand, shuffled, env, articleLoop, how);
  runs.provisionedArticle = await importAgainst(provisioned, shuffled, env, articleLoop, how);
  const rate = (/** @type {import('./runner.js').RunResult} */ run) => run.summary.written / run.seconds;
  const base = rate(runs.shuffledArticle);
  /** @type {Array<[string, import('./runner.js').RunResult, number, string]>} */
  const reproduced = [
    ['one partition key, new on-demand table, file order', runs.singleArticle, ARTICLE.single, 'within 25% of the article\'s'],
    ['/8 partition keys, file order (sorted)', runs.sortedArticle, ARTICLE.sortedPrefixes, 'within 25% of the article\'s'],
    ['/8 partition keys, shuffled', runs.shuffledArticle, ARTICLE.shuffled, 'the reference row'],
    ['/8 partition keys, shuffled, provisioned 10,000 WCU', runs.provisionedArticle, ARTICLE.provisioned, 'within 25% of the article\'s, and above 1'],
  ];
  for (const [name, run, article, rule] of reproduced) {
    const ours = rate(run) / base;
    const theirs = article / ARTICLE.shuffled;
    const share = run.summary.throttledCalls / Math.max(1, run.summary.calls);
    // The provisioned row once also asked for under 2% throttled calls, as a sign that the loop, not the
    // table, was the limit. On a faster sitting the one-call loop reaches 6,373 rows/s, and the hottest of
    // the table's 10 partitions (8 of the file's 52 keys) about 980 of its 1,000 WCU/s on average: the table
    // begins to refuse (2.8% of calls). The issue asks for the article's ratios; the throttled calls are
    // printed.
    const pass = rule === 'the reference row' ? undefined : Math.abs(ours / theirs - 1) <= 0.25 && (run !== runs.provisionedArticle || ours > 1);
    record(
      `seed as the article loaded (one call at a time): ${name}, ${run.summary.written.toLocaleString('en-US')} rows`,
      `${fmt(rate(run))} rows/s = ${ours.toFixed(2)} x the shuffled row; article ${fmt(article)} writes/s = ${theirs.toFixed(2)} x; throttled calls ${(share * 100).toFixed(1)}% (${SCALE_NOTE})`,
      `ratio to the shuffled row: ${rule}`,
      pass,
    );
  }

  // The importer's way: its own window and pace; a sorted file read spread out instead of shuffled.
  runs.singleImporter = await importAgainst(onDemand, single, env, importer, how);
  runs.sortedPlain = await importAgainst(onDemand, sorted, env, importer, how);
  // The sorted file read spread out against the same rows shuffled: a time and a peak RSS each, which vary
  // from run to run here by more than the margins asked of them (26.0-27.3 s, 148-192 MB): RUNS of each,
  // alternated, and their medians.
  /** @type {import('./runner.js').RunResult[]} */
  const spreadRuns = [];
  /** @type {import('./runner.js').RunResult[]} */
  const shuffledRuns = [];
  for (let i = 0; i < RUNS; i++) {
    const runSpread = async () => spreadRuns.push(await importAgainst(onDemand, sorted, env, { ...importer, spread: SPREAD }, how));
    const runShuffled = async () => shuffledRuns.push(await importAgainst(onDemand, shuffled, env, importer, how));
    await inTurn(i, runSpread, runShuffled);
  }
  runs.sortedSpread = medianRun(spreadRuns);
  runs.shuffledImporter = medianRun(shuffledRuns);
  runs.provisionedImporter = await importAgainst(provisioned, shuffledLarge, env, importer, how);
  // The physical minimum: the table model's ideal import of the same keys (a client that writes all the
  // table takes each second, a window's worth of rows waiting at most); a sorted file's keys can use what
  // the same rows shuffled can.
  const minimumOf = (/** @type {import('./table-model.js').TableModelOptions} */ model, /** @type {{ rows: number, positions: import('./table-model.js').Position[] }} */ data) => idealImport(model, data.rows, { positions: data.positions }).seconds;
  /** @type {Array<[string, import('./runner.js').RunResult, number, string, number]>} */
  const beaten = [
    ['one partition key, rising sort key (one partition: no split)', runs.singleImporter, minimumOf(onDemand, single), 'its one partition\'s 1,000 WCU/s', ARTICLE.single],
    [`/8 partition keys, sorted, spread ${SPREAD}`, runs.sortedSpread, minimumOf(onDemand, shuffled), 'the model\'s ideal import of these keys', ARTICLE.sortedPrefixes],
    ['/8 partition keys, shuffled', runs.shuffledImporter, minimumOf(onDemand, shuffled), 'the model\'s ideal import of these keys', ARTICLE.shuffled],
    ['/8 partition keys, shuffled, provisioned 10,000 WCU', runs.provisionedImporter, minimumOf(provisioned, shuffledLarge), 'the model\'s ideal import of these keys', ARTICLE.provisioned],
  ];
  /** The runs a row's figure is the median of. @param {import('./runner.js').RunResult} run */
  const repeatsOf = (run) => (run === runs.sortedSpread ? spreadRuns : run === runs.shuffledImporter ? shuffledRuns : [run]);
  /** @param {import('./runner.js').RunResult} run */
  const timesOf = (run) => {
    const all = repeatsOf(run);
    return all.length === 1 ? '' : `, median of ${all.length} (${Math.min(...all.map((r) => r.seconds)).toFixed(1)}-${Math.max(...all.map((r) => r.seconds)).toFixed(1)})`;
  };
  for (const [name, run, minimum, what, article] of beaten) {
    const ratio = run.seconds / minimum;
    const share = run.summary.throttledCalls / Math.max(1, run.summary.calls);
    record(
      `seed, this importer: ${name}, ${run.summary.written.toLocaleString('en-US')} rows`,
      `${run.seconds.toFixed(1)} s${timesOf(run)} = ${ratio.toFixed(3)} x minimum (${minimum.toFixed(1)} s: ${what}); ${fmt(rate(run))} rows/s, ${(rate(run) / article).toFixed(1)} x the article's ${fmt(article)}; throttled calls ${(share * 100).toFixed(1)}% (${SCALE_NOTE})`,
      '<= 1.05 x physical minimum, every row',
      ratio <= 1.05 && repeatsOf(run).every((each) => each.summary.written === each.summary.rowsRead && each.summary.balanced === true),
    );
  }
  record(
    `seed, this importer: /8 partition keys, sorted, in file order (no spread)`,
    `${runs.sortedPlain.seconds.toFixed(1)} s = ${(runs.sortedPlain.seconds / minimumOf(onDemand, shuffled)).toFixed(2)} x minimum; ${fmt(rate(runs.sortedPlain))} rows/s (${SCALE_NOTE})`,
    'comparison: what spread is for',
    undefined,
  );
  const spreadShare = rate(runs.sortedSpread) / rate(runs.shuffledImporter);
  const spreadRss = median(spreadRuns.map((run) => run.maxRssMB));
  const shuffledRss = median(shuffledRuns.map((run) => run.maxRssMB));
  const rssApart = spreadRss / shuffledRss - 1;
  const rssSpan = (/** @type {import('./runner.js').RunResult[]} */ all) => (all.length === 1 ? '' : ` (${Math.min(...all.map((r) => r.maxRssMB)).toFixed(0)}-${Math.max(...all.map((r) => r.maxRssMB)).toFixed(0)})`);
  record(
    `sorted file with spread ${SPREAD} against the same rows shuffled (plain import)`,
    `${(spreadShare * 100).toFixed(0)}% of the shuffled rate; peak RSS ${spreadRss.toFixed(0)} MB${rssSpan(spreadRuns)} against ${shuffledRss.toFixed(0)} MB${rssSpan(shuffledRuns)} (${rssApart >= 0 ? '+' : ''}${(rssApart * 100).toFixed(0)}%)${spreadRuns.length > 1 ? `, medians of ${spreadRuns.length}` : ''}`,
    '>= 90% of the shuffled rate, peak RSS within 20% of a plain import',
    spreadShare >= 0.9 && Math.abs(rssApart) <= 0.2,
  );
  for (const [name, run] of Object.entries(runs)) {
    writeFileSync(path.join(out, `seed-${name}.svg`), await renderScenarioChart(run, `Seed ${name}: ${run.summary.written.toLocaleString('en-US')} rows (${SCALE_NOTE})`));
  }
  results.seed = Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, strip(run)]));
  results.seedRepeats = { sortedSpread: spreadRuns.map(strip), shuffledImporter: shuffledRuns.map(strip) };
}

/**
 * A new on-demand table that must grow: the import follows it (few throttled calls) and takes little more
 * than the growth allows.
 * @param {{ key: string, rows: number, positions: import('./table-model.js').Position[] }} data @param {Record<string, string>} env @param {{ node: string }} how
 */
async function growthSection(data, env, how) {
  const model = { mode: /** @type {const} */ ('on-demand'), timeScale: TIME_SCALE, latencyMs: 3, ...IP_RANGE_TABLE };
  const run = await importAgainst(model, data, env, { ...IP_RANGE_IMPORT }, how);
  const ideal = idealImport(model, data.rows, { positions: data.positions });
  const ratio = run.seconds / ideal.seconds;
  const share = run.summary.throttledCalls / Math.max(1, run.summary.calls);
  const peak = Math.max(...run.model.perSecond.map((second) => second.capacity));
  record(
    `new on-demand table growing, ${data.rows.toLocaleString('en-US')} shuffled rows`,
    `${run.seconds.toFixed(1)} s = ${ratio.toFixed(3)} x the growth-limited minimum (${ideal.seconds.toFixed(1)} s, capacity 4,000 to ${fmt(peak)} WCU/s); throttled calls ${(share * 100).toFixed(1)}% (${SCALE_NOTE}: growth every 15 s)`,
    '<= 1.1 x growth-limited minimum, throttled calls < 10%',
    ratio <= 1.1 && share < 0.1 && run.summary.written === data.rows,
  );
  writeFileSync(path.join(out, 'growth.svg'), await renderScenarioChart(run, `New on-demand table growing: ${data.rows.toLocaleString('en-US')} rows (${SCALE_NOTE})`));
  results.growth = { ...strip(run), idealSeconds: ideal.seconds };
}

/**
 * N worker processes (a sharded job) sharing a job's maxWcu on one table.
 * @param {{ key: string, rows: number }} data @param {Record<string, string>} env @param {{ node: string }} how
 */
async function shardsSection(data, env, how) {
  const cap = 6_000;
  // Issue 38's scale model: more shards than run at once, the cap divided between those running.
  const shards = 8;
  const atOnce = 4;
  const run = await importAgainst({ wcu: 20_000, latencyMs: 3, timeScale: TIME_SCALE }, data, env, { shards, shardConcurrency: atOnce, maxWcu: cap, statusPrefix: 'bench-status/', rejectsPrefix: 'bench-rejects/' }, how);
  const seconds = run.model.perSecond.map((second) => second.wcu);
  const first = seconds.findIndex((wcu) => wcu > 0);
  const last = seconds.length - 1 - [...seconds].reverse().findIndex((wcu) => wcu > 0);
  const whole = seconds.slice(first + 1, last);
  const mean = whole.reduce((sum, wcu) => sum + wcu, 0) / Math.max(1, whole.length);
  const busiest = Math.max(...seconds);
  record(
    `${shards} shards, ${atOnce} at once (worker processes), sharing maxWcu ${fmt(cap)}, ${data.rows.toLocaleString('en-US')} rows`,
    `${(mean / cap).toFixed(3)} x the cap on average over ${whole.length} whole seconds; busiest second ${(busiest / cap).toFixed(3)} x`,
    '>= 0.9 x the cap together, never > 1.05 x in any second',
    mean >= 0.9 * cap && busiest <= 1.05 * cap && run.summary.written === data.rows,
  );
  writeFileSync(path.join(out, 'shards.svg'), await renderScenarioChart(run, `${shards} shards, ${atOnce} at once, sharing maxWcu ${fmt(cap)} on a 20,000 WCU table`));
  results.shards = strip(run);
}

/**
 * Plan of a large object over invocations of a time budget (bench/plan-bench.js): the bytes read (to the
 * last cut), the scan rate, the invocations, the longest one against its budget; and from the rate, the
 * object one 900 s invocation (less the 60 s margin) could plan before Plan had to go on in the next.
 */
async function planSection() {
  const GB = 1e9;
  const budgetMs = 2_000;
  const cases = quick ? [{ bytes: 0.064 * GB, shards: 8 }, { bytes: 0.25 * GB, shards: 2 }] : [{ bytes: 1 * GB, shards: 8 }, { bytes: 4 * GB, shards: 64 }, { bytes: 4 * GB, shards: 2 }];
  /** @type {Array<Awaited<ReturnType<typeof planLargeObject>>>} */
  const runs = [];
  for (const { bytes, shards } of cases) {
    const run = await planLargeObject({ bytes, shards, budgetMs });
    runs.push(run);
    record(
      `Plan of a ${(bytes / GB).toFixed(2)} GB CSV into ${shards} shards, ${budgetMs / 1000} s an invocation`,
      `${run.invocations} invocations, the longest ${(run.longestMs / 1000).toFixed(2)} s; ${(run.read / GB).toFixed(2)} GB read (last cut at ${(run.lastCut / GB).toFixed(2)} GB), ${run.mbPerSecond.toFixed(0)} MB/s; ${fmt(Math.round((run.mbPerSecond * 840) / 1000))} GB an 840 s invocation`,
      'every invocation within its budget + 1 s; read no further than the last cut + 2 chunks',
      run.longestMs <= budgetMs + 1_000 && run.read <= run.lastCut + run.invocations * (1 << 21) + 1e6,
    );
  }
  results.plan = runs;
}

/** The write modes as the bench runs them: the people file's balance (N) is newer's version. */
const WRITE_MODES = /** @type {const} */ ([
  ['put', {}],
  ['if-absent', { writeMode: 'if-absent' }],
  ['newer', { writeMode: 'newer', versionColumn: 'balance' }],
  ['update', { writeMode: 'update' }],
]);

/**
 * The conditional write modes (issue 40), a call per row: against the sink, each mode's calls/s and CPU per
 * row beside put's, run in turn; on the table model, each conditional mode's rate against the table's
 * ceiling. The model's table is one this machine's client can drive with calls of one row: about 150 us of
 * CPU each (HTTP and signing), so at most some 5,000 calls/s from one process against an instant sink
 * on these 2 cores, the sink beside it. Provisioned 3,000 WCU at 10 ms (30 calls in flight at least),
 * one condition in ten failing (it consumes capacity all the same). docs/design/write-modes.md.
 * @param {{ key: string, rows: number }} data
 * @param {Record<string, string>} env @param {{ node: string }} how
 */
async function modesSection(data, env, how) {
  const sinkData = data;
  const tableData = data;
  const typed = { columnTypes: 'balance:N,active:BOOL' };
  /** @type {Record<string, import('./runner.js').RunResult[]>} */
  const sinkRuns = Object.fromEntries(WRITE_MODES.map(([mode]) => [mode, []]));
  for (let i = 0; i < RUNS; i++) {
    for (const [mode, options] of WRITE_MODES) sinkRuns[mode].push(await importAgainst({}, sinkData, env, { ...typed, ...options }, how));
  }
  const cpuPer100k = (/** @type {import('./runner.js').RunResult} */ run) => (run.cpuSeconds / run.summary.rowsRead) * 100_000;
  const putCpu = median(sinkRuns.put.map(cpuPer100k));
  for (const [mode] of WRITE_MODES) {
    const runs = sinkRuns[mode];
    const cpu = median(runs.map(cpuPer100k));
    const calls = median(runs.map((run) => run.summary.calls / run.seconds));
    const rows = median(runs.map((run) => (run.summary.written + run.summary.skipped) / run.seconds));
    record(
      `write mode ${mode} against the sink, ${sinkData.rows.toLocaleString('en-US')} rows`,
      `${fmt(calls)} calls/s, ${fmt(rows)} rows/s; CPU ${cpu.toFixed(2)} s per 100,000 rows = ${(cpu / putCpu).toFixed(2)} x put's (medians of ${runs.length}, run in turn)`,
      mode === 'put' ? 'reported: the yardstick' : 'reported: a call per row, beside put\'s call per 25',
      undefined,
    );
  }
  results.modesSink = Object.fromEntries(Object.entries(sinkRuns).map(([mode, runs]) => [mode, runs.map(strip)]));
  const model = { wcu: 3_000, latencyMs: 10, splitForHeat: false, conditionFails: 0.1 };
  const minimum = tableData.rows / model.wcu;
  for (const [mode, options] of WRITE_MODES.slice(1)) {
    const run = await importAgainst(model, tableData, env, { ...typed, ...options }, how);
    const ratio = minimum / run.seconds;
    const all = run.summary.written + run.summary.skipped === tableData.rows;
    record(
      `write mode ${mode}, provisioned 3,000 WCU/s at 10 ms, ${tableData.rows.toLocaleString('en-US')} rows, 10% of conditions failing`,
      `${run.seconds.toFixed(1)} s = ${ratio.toFixed(3)} x the table's ceiling (minimum ${minimum.toFixed(0)} s); ${fmt(run.summary.written)} written, ${fmt(run.summary.skipped)} skipped; throttled calls ${((run.summary.throttledCalls / Math.max(1, run.summary.calls)) * 100).toFixed(1)}%`,
      '>= 0.9 x the ceiling, every row written or skipped',
      ratio >= 0.9 && all,
    );
    results[`modeTable-${mode}`] = strip(run);
  }
}

/**
 * Peak RSS of the importer on Node.js 22: a small file and a large one, the median of RUNS each.
 * @param {{ key: string, rows: number }} small @param {{ key: string, rows: number }} large
 * @param {Record<string, string>} env @param {{ node: string }} how
 */
async function memorySection(small, large, env, how) {
  /** @param {{ key: string, rows: number }} file */
  const peakRss = async (file) => {
    const peaks = [];
    for (let i = 0; i < RUNS; i++) peaks.push((await importAgainst({}, file, env, {}, how)).maxRssMB);
    const range = RUNS > 1 ? `, median of ${RUNS} (${Math.min(...peaks).toFixed(0)}-${Math.max(...peaks).toFixed(0)})` : '';
    return { mb: median(peaks), peaks, range };
  };
  const rssSmall = await peakRss(small);
  const rssLarge = await peakRss(large);
  const apart = Math.abs(rssLarge.mb - rssSmall.mb) / rssSmall.mb;
  record(`peak RSS, import of ${small.rows.toLocaleString('en-US')} rows`, `${rssSmall.mb.toFixed(0)} MB${rssSmall.range}`, '<= 128 MB', rssSmall.mb <= 128);
  record(`peak RSS, import of ${large.rows.toLocaleString('en-US')} rows`, `${rssLarge.mb.toFixed(0)} MB${rssLarge.range}; ${(apart * 100).toFixed(0)}% apart`, '<= 128 MB, within 15% of the small one', rssLarge.mb <= 128 && apart <= 0.15);
  results.peakRssMB = { [small.rows]: rssSmall.peaks, [large.rows]: rssLarge.peaks };
}

/**
 * The dry run of the large file: read, typed and sized as an import reads it, nothing sent.
 * @param {{ key: string, rows: number }} large @param {Record<string, string>} env @param {{ node: string }} how
 */
async function drySection(large, env, how) {
  // The reader is the importer's (the record splitter's strict quoting, UTF-8 and size checks, then
  // csv-parse): the dry run's work beyond it is what this row holds to 30%. csv-parse alone is printed
  // beside it; the checks cost 10-25% over it (docs/design/record-reading.md).
  // Each dry run is paired with the parsers run beside it, which go first alternating: measured
  // minutes apart, the two drifted apart on this machine by more than the margin (0.59 to 0.79 x between
  // runs of unchanged code). Five pairs: the pairs of one sitting still spread 0.66-0.85 x (a 20 s dry run,
  // which also waits on the S3 emulator, catches more of this machine's slow spells than csv-parse's 2 s).
  const pairs = [];
  for (let i = 0; i < DRY_PAIRS; i++) {
    const runFloor = () => parserFloorRun(scale(300_000), how.node);
    const runDry = () => importAgainst({}, large, env, { dryRun: true }, how);
    const [parse, dry] = await inTurn(i, runFloor, runDry);
    const rate = dry.summary.rowsRead / dry.seconds;
    pairs.push({ rate, floor: parse.reader.rowsPerSecond, csvParse: parse.rowsPerSecond, ratio: rate / parse.reader.rowsPerSecond, cpuSeconds: dry.cpuSeconds, seconds: dry.seconds });
  }
  const byRatio = [...pairs].sort((a, b) => a.ratio - b.ratio);
  const pair = byRatio[Math.floor(pairs.length / 2)];
  record(
    `dry run, ${large.rows.toLocaleString('en-US')} rows`,
    `${fmt(pair.rate)} rows/s = ${pair.ratio.toFixed(2)} x the importer's record reader alone run beside it (${fmt(pair.floor)} rows/s), median of ${pairs.length} pairs (${byRatio[0].ratio.toFixed(2)}-${(byRatio.at(-1) ?? pair).ratio.toFixed(2)}); ${(pair.rate / pair.csvParse).toFixed(2)} x csv-parse alone (${fmt(pair.csvParse)} rows/s); its CPU ${((100 * pair.cpuSeconds) / pair.seconds).toFixed(0)}% of its time`,
    '>= 0.7 x the record reader alone (it also types, sizes, checks and counts every row)',
    pair.ratio >= 0.7,
  );
  results.dryPairs = pairs;
}

/** @param {{ key: string, rows: number }} small @param {Record<string, string>} env @param {{ node: string }} how */
async function endToEndSection(small, env, how) {
  const dynamo = await startDynalite();
  try {
    const client = new DynamoDBClient({ region: LOCAL_REGION, endpoint: dynamo.endpoint, credentials: S3RVER_CREDENTIALS });
    await createTable(client, 'bench-e2e');
    const e2e = await runWorker({ bucket: BUCKET, key: small.key, table: 'bench-e2e' }, { ...env, DYNAMODB_ENDPOINT: dynamo.endpoint }, how.node);
    record('end to end on dynalite', `${fmt(e2e.summary.written / e2e.seconds)} rows/s`, 'reference (bounded by the emulator)', undefined);
    client.destroy();
  } finally {
    await dynamo.stop();
  }
}

/**
 * /8 prefixes, `each` of them in each quarter of the hash space (a new on-demand table's four partitions).
 * @param {number} each
 */
function evenOctets(each) {
  /** @type {number[][]} */
  const quarters = [[], [], [], []];
  for (let octet = 1; octet <= 223; octet++) {
    const quarter = quarters[Math.floor(hashKey(String(octet)) / 2 ** 30)];
    if (quarter.length < each) quarter.push(octet);
  }
  return quarters.flat();
}

function tableText() {
  const rows = [['figure', 'value', 'target', 'pass'], ...table.map((r) => [r.figure, r.value, r.target, r.pass === undefined ? '-' : r.pass ? 'yes' : 'NO'])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (/** @type {string[]} */ r) => `| ${r.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return `${line(rows[0])}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.slice(1).map(line).join('\n')}\n`;
}

function printTable() {
  process.stdout.write(`\n${tableText()}`);
}

/** The run of median time. @param {import('./runner.js').RunResult[]} all */
function medianRun(all) {
  return [...all].sort((a, b) => a.seconds - b.seconds)[Math.floor(all.length / 2)];
}

/** @param {{ timeline: unknown, model?: any }} run */
function strip({ timeline: _timeline, model, ...rest }) {
  return { ...rest, ...(model === undefined ? {} : { model: { totals: model.totals, table: model.table } }) };
}

function machine() {
  return {
    node: process.version,
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: process.platform,
  };
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error}\n`);
  process.exit(1);
});

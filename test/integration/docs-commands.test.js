/**
 * Every command in the README and in docs/*.md (not docs/design/) is run here, or checked by a rule that
 * says how, or listed with the reason it is not run. A command is a line of a ```sh block (`\`
 * continuations joined, `#` comments dropped, `a && b` two commands). The rules, in order:
 *
 * 1. Run as written. Each page's commands run in order, in one fresh temporary directory (a reader
 *    following the page), through bash, on this Node.js. `npx ddbload` is `node src/cli/main.js`,
 *    `npm start --` is `node local/start.js`, `npm run <script> --` the script's `node` command, and
 *    `node <file>` the repository's file, all by absolute path. A command must exit 0, or the code its
 *    comment names (`# exits 3`). `<job id>` is the job id the page's commands printed last.
 * 2. Bounded. In docs/ (not the README, whose first screen runs exactly as written), a row count over
 *    1,000 (`--rows N`) is 1,000, `--rows 1000` is added where a command generates 100,000 rows by
 *    default (`npm start`, `npm run burst`, `generate`), and `--invocations N` is at most 4.
 * 3. AWS, stood in for by the local servers. A command that reaches AWS (an s3:// source, `--bucket`,
 *    `--profile`, an import without `--local`) runs as written with the SDK pointed at this file's
 *    dynalite and the run's S3 emulator (DYNAMODB_ENDPOINT, S3_ENDPOINT), and a profile named by
 *    `--profile` given local credentials in its own AWS config files. Before a page runs, every bucket it
 *    names is created, every table an import of it names (without `--local`) is created keyed as the
 *    command says (`--key`, `--sort-key`, `--types`; id, a string, by default) unless the page creates
 *    it, and every s3:// object it imports that none of its commands writes holds a 1,000-row people
 *    file. The AWS CLI is not the project's: `aws s3 cp` and `aws dynamodb create-table` are done by the
 *    test with the SDK, on the same servers; any other `aws` command must be listed.
 * 4. A deployed stack, stood in for offline. `--on-aws` and `redrive` run as written against the stack's
 *    Lambda Invoke and Step Functions APIs served by test/support/lambda-invoke-endpoint.js and
 *    sfn-endpoint.js (the job's definition on the States-language emulator, its steps the project's, on
 *    the local servers), as test/integration/jobs-on-aws.test.js does. The second shard's first segment
 *    fails once, as an invocation that timed out would, so that `status` shows a failed job and
 *    `redrive` has a shard to run again.
 * 5. `sls deploy` is resolved offline: `sls print` with the same stage and parameters, which builds the
 *    stack from them (deploy/stack.cjs refuses a bad or misspelled parameter); test/deploy/ packages each
 *    mode in full. Other `sls` commands: each flag is in the command's `--help`, the function `-f` names
 *    is in serverless.yml, and a `--data` payload passes the option schema (resolveConfig) with the
 *    environment the page's `sls deploy` of that stage gives the function (the demo's if none).
 * 6. Listed: NOT_RUN below, each with its reason; those with `flags` have each flag checked against
 *    their program's `--help`.
 *
 * A command that no rule takes and that NOT_RUN does not list fails the first test. Links between the
 * pages are checked too (files and headings).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable as createLocalTable } from '../../local/servers.js';
import { resolveConfig } from '../../src/config/index.js';
import { handler } from '../../src/handler.js';
import { startLambdaInvokeEndpoint } from '../support/lambda-invoke-endpoint.js';
import { projectSteps } from '../support/local-state-machine.js';
import { startSfnEndpoint } from '../support/sfn-endpoint.js';
import { useLocalServers } from '../support/local.js';

// Not through the IAM gate: the pages' stack is csv-import-dev with an output bucket of each page's own
// (startStackOffline), not the packaged test stack the gate's policies are resolved for; the same calls
// are judged in jobs-on-aws.test.js and iam-gate.test.js.
const { env: localEnv, dynamodb, s3 } = useLocalServers({ iamGate: false });

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = path.join(ROOT, 'src/cli/main.js');
const SLS = path.join(ROOT, 'node_modules/osls/bin/serverless.js');
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
const MAX_ROWS = 1_000;
const MAX_INVOCATIONS = 4;

/**
 * The commands not run here, by their text (comments dropped, spaces collapsed), and why. `flags`: each
 * flag is checked against the program's `--help`.
 * @type {Record<string, { reason: string, flags?: boolean }>}
 */
const NOT_RUN = {
  'npm install': { reason: 'installs the dependencies this test runs on; .ci/run installs them on a clean checkout (npm ci), and the README\'s set-up is timed on a fresh clone by hand' },
  'npm test': { reason: 'the whole suite, this file included; .ci/run runs it' },
  'npm run bench': { reason: 'benchmarks for minutes on both cores; bench/*.test.js test the models it runs on' },
  'npm run bench -- --quick': { reason: 'the bench\'s own check that it works, still minutes; bench/*.test.js test its models' },
  'npm run bench -- --only seed,growth': { reason: 'a part of the bench, still minutes; bench/*.test.js test its models' },
  'npm run fuzz -- --runs 10000': { reason: 'minutes of generated cases; npm test runs a bounded share of each lane (test/oracle/differential.test.js)' },
  'npm run fuzz -- --lanes keys,spread --runs 500': { reason: 'minutes of generated cases; npm test runs a bounded share of each lane' },
  'npm run fuzz -- --replay /tmp/oracle-fuzz/last-failure.json': { reason: 'replays a saved failure, and there is none; npm test replays test/oracle/found/' },
  'npm run status -- <job id> --watch': { reason: 'reads the local servers of an `npm start` running in another terminal, which live only while it runs', flags: true },
  'npx ddbload status <job id> --stage dev': { reason: 'the stack csv-import-dev\'s execution of a job of the page, which ran locally: jobs-on-aws.test.js reads one with --stage', flags: true },
  'npx ddbload import s3://backups/orders/AWSDynamoDB/01700000000000-1a2b3c4d/manifest-summary.json --table Orders-restored --key orderId --sort-key createdAt': {
    reason: 'needs a DynamoDB export in S3 (manifest-summary.json, manifest-files.json, data files); test/integration/collections.test.js imports one',
    flags: true,
  },
  'npx ddbload import s3://backups/orders-incremental/ --table Orders-restored --key orderId --sort-key createdAt': {
    reason: 'needs an incremental DynamoDB export in S3; test/integration/collections.test.js applies one',
    flags: true,
  },
  'npm run burst -- --invocations 16 --stage dev': { reason: 'invokes the deployed function; the local bursts above run the same code', flags: true },
  'npm run servers': { reason: 'runs until Ctrl-C; test/deploy/serverless.test.js starts it, loads its variables and runs the sls invoke local below against it' },
  'set -a; . .cache/local.env; set +a': { reason: 'loads npm run servers\' variables into a shell; test/deploy/serverless.test.js loads the file as it does' },
  'aws s3 rm s3://csv-import-dev-us-east-1-source --recursive': { reason: 'empties a deployed bucket; nothing offline stands for it' },
  'npx sls remove --stage dev': { reason: 'deletes a deployed stack; nothing offline stands for it', flags: true },
};

/** @typedef {{ page: string, line: number, text: string, comment: string }} DocCommand */
/** @typedef {'run' | 'aws' | 'stack' | 'deploy' | 'sls' | 'listed'} Kind */

/** Quoted for bash. @param {string} word */
const q = (word) => `'${word.replaceAll("'", "'\\''")}'`;
const NODE = q(process.execPath);

/**
 * A line's code and its comment (a `#` outside quotes, at the start or after a space).
 * @param {string} line
 */
function splitComment(line) {
  /** @type {string | undefined} */
  let quote;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '#' && (i === 0 || /\s/.test(line[i - 1]))) return { code: line.slice(0, i), comment: line.slice(i + 1).trim() };
  }
  return { code: line, comment: '' };
}

/** `a && b` as two commands (outside quotes). @param {string} code */
function splitAnd(code) {
  const parts = [];
  /** @type {string | undefined} */
  let quote;
  let start = 0;
  for (let i = 0; i < code.length; i++) {
    const char = code[i];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
    else if (code.startsWith(' && ', i)) {
      parts.push(code.slice(start, i));
      start = i + 4;
    }
  }
  parts.push(code.slice(start));
  return parts.map((part) => part.replace(/\s+/g, ' ').trim()).filter((part) => part !== '');
}

/**
 * The commands of a page's sh code blocks, in order.
 * @param {string} page  relative to the repository
 * @returns {DocCommand[]}
 */
function commandsOf(page) {
  const lines = readFileSync(path.join(ROOT, page), 'utf8').split('\n');
  /** @type {DocCommand[]} */
  const commands = [];
  /** @type {string | undefined} */
  let fence;
  let code = '';
  let comment = '';
  let first = 0;
  for (let i = 0; i < lines.length; i++) {
    const marker = lines[i].match(/^\s*```(\w*)\s*$/);
    if (marker !== null) {
      fence = fence === undefined ? marker[1] : undefined;
      continue;
    }
    if (fence !== 'sh') continue;
    const part = splitComment(lines[i].trim());
    if (code === '') first = i + 1;
    comment = [comment, part.comment].filter(Boolean).join(' ');
    if (part.code.trimEnd().endsWith('\\')) {
      code += `${part.code.trimEnd().slice(0, -1)} `;
      continue;
    }
    code += part.code;
    for (const text of splitAnd(code)) commands.push({ page, line: first, text, comment });
    code = '';
    comment = '';
  }
  return commands;
}

const COMMANDS = PAGES.flatMap(commandsOf);
const SCRIPTS = /** @type {Record<string, string>} */ (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts);

/**
 * The command as bash runs it here (rule 1), or undefined for a program no rule runs.
 * @param {string} text
 */
function translate(text) {
  /** @type {RegExpMatchArray | null} */
  let match;
  if ((match = text.match(/^(?:npx )?ddbload\b(.*)$/))) return `${NODE} ${q(MAIN)}${match[1]}`;
  if ((match = text.match(/^npm start(?: --)?(.*)$/))) return `${NODE} ${q(path.join(ROOT, 'local/start.js'))}${match[1]}`;
  if ((match = text.match(/^npm run (\S+)(?: --)?(.*)$/))) {
    const script = SCRIPTS[match[1]]?.match(/^node (\S+)(.*)$/);
    return script === null || script === undefined ? undefined : `${NODE} ${q(path.join(ROOT, script[1]))}${script[2]}${match[2]}`;
  }
  if ((match = text.match(/^node (\S+\.js)(.*)$/)) && existsSync(path.join(ROOT, match[1]))) return `${NODE} ${q(path.join(ROOT, match[1]))}${match[2]}`;
  if (/^(printf|cat|gzip|sed) /.test(text)) return text;
  return undefined;
}

/**
 * Which rule takes the command; undefined when none does and it is not listed.
 * @param {string} text
 * @returns {Kind | undefined}
 */
function kindOf(text) {
  if (NOT_RUN[text] !== undefined) return 'listed';
  if (/^npx sls deploy\b/.test(text)) return 'deploy';
  if (/^npx sls (invoke|logs)\b/.test(text)) return 'sls';
  if (/^aws (s3 cp|dynamodb create-table) /.test(text)) return 'aws';
  if (/^npx ddbload (import|status|redrive)\b/.test(text) && (/ --on-aws\b/.test(text) || /^npx ddbload redrive\b/.test(text))) return 'stack';
  if (translate(text) !== undefined) return 'run';
  return undefined;
}

/** Whether the command reaches AWS (rule 3). @param {string} text */
function reachesAws(text) {
  if (/s3:\/\/|--bucket\b|--profile\b|--stage\b|--on-aws\b|^npx ddbload redrive\b/.test(text)) return true;
  return /^npx ddbload import\b/.test(text) && !/--local\b|--endpoint-url\b|--help\b/.test(text);
}

/** @param {string} text @param {string} flag */
const flagValue = (text, flag) => text.match(new RegExp(`${flag} (\\S+)`))?.[1];

/**
 * Rule 2: the command with bounded rows, for a page of docs/.
 * @param {string} text @param {string} page
 */
function bounded(text, page) {
  if (page === 'README.md') return text;
  let out = text.replace(/--rows (\d+)/g, (all, rows) => (Number(rows) > MAX_ROWS ? `--rows ${MAX_ROWS}` : all));
  out = out.replace(/--invocations (\d+)/g, (all, count) => (Number(count) > MAX_INVOCATIONS ? `--invocations ${MAX_INVOCATIONS}` : all));
  const generates = /^(npm start|npm run burst|npx ddbload generate|node data-generator\/generate\.js)\b/.test(out) && !/--rows\b|--help\b|--file\b/.test(out);
  return generates ? `${out} --rows ${MAX_ROWS}` : out;
}

/**
 * Runs a command line in bash.
 * @param {string} line @param {{ cwd: string, env: Record<string, string>, timeoutMs?: number }} options
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function bash(line, { cwd, env, timeoutMs = 150_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -o pipefail; ${line}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${line} ran past ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment of an offline `sls` (rule 5). */
const SLS_ENV = () => ({ ...baseEnv(os.tmpdir()), SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off', AWS_ACCESS_KEY_ID: 'dummy', AWS_SECRET_ACCESS_KEY: 'dummy' });

/** A shell's environment with nothing of AWS in it. @param {string} home */
function baseEnv(home) {
  return { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, HOME: home, LANG: 'C.UTF-8', TMPDIR: os.tmpdir(), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
}

/** `--help` of a program, once each. @type {Map<string, Promise<string>>} */
const helps = new Map();

/**
 * The `--help` text of the command's program (and subcommand).
 * @param {string} text
 */
function helpOf(text) {
  const sls = text.match(/^npx sls (\S+)/);
  const program = sls === null ? text.match(/^(npx ddbload \S+|npm run \S+|npm start)/)?.[1] : undefined;
  const line = sls !== null ? `${NODE} ${q(SLS)} ${sls[1]} --help` : program === undefined ? undefined : `${translate(program)} --help`;
  if (line === undefined) throw new Error(`no --help for ${text}`);
  let help = helps.get(line);
  if (help === undefined) {
    help = bash(line, { cwd: ROOT, env: SLS_ENV() }).then(({ stdout, stderr }) => stdout + stderr);
    helps.set(line, help);
  }
  return help;
}

/** Each `--flag` and `-f` of the command is in its program's `--help`. @param {string} text */
async function expectFlagsInHelp(text) {
  const help = await helpOf(text);
  const flags = [...text.replace(/'[^']*'/g, '').matchAll(/(?:^|\s)(--?[a-zA-Z][\w-]*)/g)].map((match) => match[1]);
  const missing = flags.filter((flag) => !new RegExp(`(^|[\\s,/\\[])${flag}(?![\\w-])`, 'm').test(help));
  expect(missing, `${text}: flags not in its --help`).toEqual([]);
}

/** `sls print` of a stage and parameters, once each: the resolved service (rule 5). @type {Map<string, Promise<any>>} */
const printed = new Map();

/** @param {string} args  what follows `npx sls deploy` */
function slsPrint(args) {
  let service = printed.get(args);
  if (service === undefined) {
    service = bash(`${NODE} ${q(SLS)} print --format json ${args}`, { cwd: ROOT, env: SLS_ENV() }).then(({ code, stdout, stderr }) => {
      if (code !== 0) throw new Error(`sls print ${args} exited ${code}: ${stdout.slice(-1500)} ${stderr.slice(-1500)}`);
      return JSON.parse(stdout);
    });
    printed.set(args, service);
  }
  return service;
}

/** The functions serverless.yml defines. */
function functionsOfService() {
  const yml = readFileSync(path.join(ROOT, 'serverless.yml'), 'utf8');
  const section = yml.slice(yml.indexOf('\nfunctions:'), yml.indexOf('\nstepFunctions:'));
  return [...section.matchAll(/^ {2}([A-Za-z]+):\s*$/gm)].map((match) => match[1]);
}

/**
 * What one page's run holds: its directory, the last job id printed, the offline stack.
 * @typedef {object} Session
 * @property {string} page
 * @property {string} dir
 * @property {string} home
 * @property {string} [jobId]
 * @property {Record<string, string>} awsFiles  AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE
 * @property {{ env: Record<string, string>, settled: () => Promise<unknown>, stop: () => Promise<void> }} [stack]
 * @property {Set<string>} tables  created on the local DynamoDB for this page
 */

/** A 1,000-row people file, for s3:// objects a page reads but does not write (rule 3). */
let peopleFile = '';

beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docs-people-'));
  peopleFile = path.join(dir, 'people.csv');
  const made = await bash(`${NODE} ${q(MAIN)} generate --rows ${MAX_ROWS} --seed 7 --out ${q(peopleFile)} --quiet`, { cwd: dir, env: baseEnv(dir) });
  expect(made.code, made.stderr).toBe(0);
});

/** @param {string} table @param {string} text  the command whose flags say the key */
async function ensureTable(table, text) {
  const types = flagValue(text, '--types') ?? '';
  const typeOf = (/** @type {string} */ column) => (new RegExp(`(^|,)${column}:N(,|$)`).test(types) ? 'N' : 'S');
  const partition = flagValue(text, '--key') ?? 'id';
  const sort = flagValue(text, '--sort-key');
  await createLocalTable(dynamodb, table, { partition: { name: partition, type: typeOf(partition) }, ...(sort === undefined ? {} : { sort: { name: sort, type: typeOf(sort) } }) }).catch((error) => {
    if (error?.name !== 'ResourceInUseException') throw error;
  });
}

/**
 * Rule 3, before a page runs: its buckets, tables and objects.
 * @param {Session} session @param {DocCommand[]} commands
 */
async function standUpAws(session, commands) {
  const runs = commands.filter((command) => ['run', 'stack', 'aws'].includes(/** @type {string} */ (kindOf(command.text))));
  const buckets = new Set(runs.flatMap((command) => [...command.text.matchAll(/s3:\/\/([a-z0-9.-]+)/g), ...command.text.matchAll(/--bucket ([a-z0-9.-]+)/g)].map((match) => match[1])));
  for (const bucket of buckets) {
    await s3.send(new CreateBucketCommand({ Bucket: bucket })).catch((error) => {
      if (!['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes(error?.name)) throw error;
    });
  }
  const created = new Set(runs.map((command) => flagValue(command.text, '--table-name')).filter((name) => name !== undefined));
  /** @type {Set<string>} */
  const written = new Set();
  for (const { text } of runs) {
    const bucket = flagValue(text, '--bucket');
    const key = flagValue(text, '--key');
    if (/generate\b/.test(text) && bucket !== undefined) written.add(`s3://${bucket}/${key ?? 'imports/people.csv'}`);
    const copied = text.match(/^aws s3 cp \S+ (s3:\/\/\S+)/);
    if (copied !== null) written.add(copied[1]);
    if (!/^npx ddbload import\b/.test(text) || /--local\b/.test(text)) continue;
    const table = flagValue(text, '--table');
    if (table !== undefined && !created.has(table)) {
      await ensureTable(table, text);
      session.tables.add(table);
    }
    const source = text.match(/^npx ddbload import (s3:\/\/([^/\s]+)\/(\S+))/);
    if (source !== null && !source[3].endsWith('/') && !written.has(source[1])) {
      await s3.send(new PutObjectCommand({ Bucket: source[2], Key: source[3], Body: readFileSync(peopleFile) }));
    }
  }
}

/**
 * The environment a command runs with: a plain shell's, and the local servers for one that reaches AWS.
 * @param {string} text @param {Session} session
 */
function envFor(text, session) {
  /** @type {Record<string, string>} */
  const env = { ...baseEnv(session.home), ...session.awsFiles };
  if (!reachesAws(text)) return env;
  Object.assign(env, { AWS_REGION: localEnv.AWS_REGION, S3_ENDPOINT: localEnv.S3_ENDPOINT, DYNAMODB_ENDPOINT: /** @type {string} */ (process.env.DYNAMODB_ENDPOINT) });
  if (!/--profile\b/.test(text)) Object.assign(env, { AWS_ACCESS_KEY_ID: localEnv.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: localEnv.AWS_SECRET_ACCESS_KEY });
  return { ...env, ...session.stack?.env };
}

let stacks = 0;

/**
 * Rule 4: the deployed stack, offline, its second shard failing once.
 * @param {string} stack  <service>-<stage>
 */
async function startStackOffline(stack) {
  const failing = new Set([1]);
  // The stack's output bucket, its own for each page: a job of the same object on another page is new.
  const bucket = `docs-stack-output-${++stacks}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const steps = projectSteps((shard) => {
    if (failing.delete(shard)) throw Object.assign(new Error(`shard ${shard + 1}'s invocation timed out (the docs test)`), { name: 'Sandbox.Timedout' });
  });
  const sfn = await startSfnEndpoint({ s3, bucket, stack, steps });
  // The function starts the execution from this process: it reaches the offline Step Functions API too.
  process.env.AWS_ENDPOINT_URL_SFN = sfn.endpoint;
  const lambda = await startLambdaInvokeEndpoint({ name: `${stack}-import`, handler, environment: { STATE_MACHINE_NAME: `${stack}-job`, OUTPUT_BUCKET: bucket } });
  return {
    env: { AWS_ENDPOINT_URL_SFN: sfn.endpoint, AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint },
    settled: () => sfn.settled(),
    async stop() {
      await sfn.settled();
      await lambda.stop();
      await sfn.stop();
      delete process.env.AWS_ENDPOINT_URL_SFN;
    },
  };
}

/** Rule 3: what an `aws` command does, with the SDK. @param {string} text @param {Session} session */
async function awsStandIn(text, session) {
  const copy = text.match(/^aws s3 cp (\S+) s3:\/\/([^/\s]+)\/(\S+)/);
  if (copy !== null) {
    await s3.send(new PutObjectCommand({ Bucket: copy[2], Key: copy[3], Body: readFileSync(path.join(session.dir, copy[1])) }));
    return;
  }
  const table = /** @type {string} */ (flagValue(text, '--table-name'));
  const types = Object.fromEntries([...text.matchAll(/AttributeName=([\w.-]+),AttributeType=([SNB])/g)].map((match) => [match[1], /** @type {'S' | 'N' | 'B'} */ (match[2])]));
  const keys = Object.fromEntries([...text.matchAll(/AttributeName=([\w.-]+),KeyType=(HASH|RANGE)/g)].map((match) => [match[2], match[1]]));
  expect(keys.HASH, `${text}: a partition key`).toBeDefined();
  expect(text, 'an on-demand table, as the local DynamoDB makes').toContain('--billing-mode PAY_PER_REQUEST');
  await createLocalTable(dynamodb, table, { partition: { name: keys.HASH, type: types[keys.HASH] }, ...(keys.RANGE === undefined ? {} : { sort: { name: keys.RANGE, type: types[keys.RANGE] } }) });
  session.tables.add(table);
}

/** Rule 5 for `sls invoke` and `sls logs`. @param {string} text @param {DocCommand[]} before  the page's earlier commands */
async function checkSls(text, before) {
  await expectFlagsInHelp(text);
  const fn = flagValue(text, '-f');
  expect(functionsOfService(), `${text}: its function`).toContain(fn);
  const data = text.match(/--data '([^']*)'/)?.[1];
  if (data === undefined) return;
  const stage = flagValue(text, '--stage') ?? 'dev';
  const deploy = before.map((command) => command.text).filter((command) => /^npx sls deploy\b/.test(command) && (flagValue(command, '--stage') ?? 'dev') === stage).at(-1);
  const service = await slsPrint(deploy?.replace(/^npx sls deploy ?/, '') ?? `--stage ${stage}`);
  expect(() => resolveConfig(JSON.parse(data), service.provider.environment), `${text}: its payload, on the stage's function`).not.toThrow();
}

/**
 * Runs one page's commands, by the rules.
 * @param {string} page
 */
async function runPage(page) {
  const commands = COMMANDS.filter((command) => command.page === page);
  const dir = mkdtempSync(path.join(os.tmpdir(), `docs-${path.basename(page, '.md')}-`));
  const home = mkdtempSync(path.join(os.tmpdir(), 'docs-home-'));
  const profiles = new Set(commands.map((command) => flagValue(command.text, '--profile')).filter((name) => name !== undefined));
  const config = path.join(home, 'aws-config');
  const credentials = path.join(home, 'aws-credentials');
  writeFileSync(config, [...profiles].map((name) => `[profile ${name}]\n`).join(''));
  writeFileSync(credentials, [...profiles].map((name) => `[${name}]\naws_access_key_id = ${localEnv.AWS_ACCESS_KEY_ID}\naws_secret_access_key = ${localEnv.AWS_SECRET_ACCESS_KEY}\n`).join(''));
  /** @type {Session} */
  const session = { page, dir, home, awsFiles: { AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: credentials }, tables: new Set() };
  try {
    await standUpAws(session, commands);
    for (const [index, command] of commands.entries()) {
      const where = `${page}:${command.line}: ${command.text}`;
      const kind = kindOf(command.text);
      if (kind === 'listed') {
        if (NOT_RUN[command.text].flags) await expectFlagsInHelp(command.text);
        continue;
      }
      if (kind === 'deploy') {
        await slsPrint(command.text.replace(/^npx sls deploy ?/, ''));
        continue;
      }
      if (kind === 'sls') {
        await checkSls(command.text, commands.slice(0, index));
        continue;
      }
      if (kind === 'aws') {
        await awsStandIn(command.text, session);
        continue;
      }
      if (kind === 'stack' && session.stack === undefined) session.stack = await startStackOffline(/** @type {string} */ (flagValue(command.text, '--stack')));
      let text = bounded(command.text, page);
      if (text.includes('<job id>')) {
        expect(session.jobId, `${where}: a job id printed before it`).toBeDefined();
        text = text.replaceAll('<job id>', /** @type {string} */ (session.jobId));
      }
      const result = await bash(/** @type {string} */ (translate(text)), { cwd: dir, env: envFor(text, session) });
      const expected = Number(command.comment.match(/\bexits (\d+)\b/)?.[1] ?? 0);
      expect(result.code, `${where}\nstdout: ${result.stdout.slice(-3000)}\nstderr: ${result.stderr.slice(-3000)}`).toBe(expected);
      const jobIds = [...`${result.stdout}\n${result.stderr}`.matchAll(/"jobId":"([0-9a-f-]{36})"|\bjob ([0-9a-f-]{36})\b/g)];
      if (jobIds.length > 0) session.jobId = jobIds.at(-1)?.slice(1).find((id) => id !== undefined);
      const output = EXPECTED_OUTPUT[`${page}: ${command.text}`];
      if (output !== undefined) expect(result.stdout + result.stderr, where).toMatch(output);
    }
  } finally {
    await session.stack?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** What a command must print, beyond its exit code: the README's first import holds every row. @type {Record<string, RegExp>} */
const EXPECTED_OUTPUT = {
  'README.md: npx ddbload import people.csv --table People --types balance:N,active:BOOL --local --dry-run': /"wouldWrite":100000,"wouldDelete":0,"wouldReject":0/,
  'README.md: npx ddbload import people.csv --table People --types balance:N,active:BOOL --local': /the local table People holds 100,000 items/,
  'README.md: npx ddbload import people.csv --table People --types balance:N,active:BOOL --profile prod --region eu-west-1': /"written":100000,"deleted":0,"rejected":0/,
};

/**
 * The headings' anchors of a page, as GitHub makes them, and its `<a id>`s.
 * @param {string} file  absolute
 */
function anchorsOf(file) {
  const text = readFileSync(file, 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  const headings = [...text.matchAll(/^#+ (.+)$/gm)].map((match) =>
    match[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-'),
  );
  return new Set([...headings, ...[...text.matchAll(/<a id="([^"]+)">/g)].map((match) => match[1])]);
}

describe('the commands of the README and docs/', () => {
  it('are each run, checked by a rule, or listed with the reason they are not run', () => {
    expect(COMMANDS.length).toBeGreaterThan(40);
    const untaken = COMMANDS.filter((command) => kindOf(command.text) === undefined).map((command) => `${command.page}:${command.line}: ${command.text}`);
    expect(untaken, 'commands no rule runs or checks, and NOT_RUN does not list').toEqual([]);
    const texts = new Set(COMMANDS.map((command) => command.text));
    expect(Object.keys(NOT_RUN).filter((text) => !texts.has(text)), 'NOT_RUN entries no page has').toEqual([]);
    expect(Object.keys(EXPECTED_OUTPUT).filter((key) => !COMMANDS.some((command) => `${command.page}: ${command.text}` === key)), 'EXPECTED_OUTPUT entries no page has').toEqual([]);
  });

  it('link to files and headings that exist', () => {
    const broken = [];
    for (const page of PAGES) {
      const text = readFileSync(path.join(ROOT, page), 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split('#');
        const resolved = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), file);
        if (!existsSync(resolved)) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && !anchorsOf(resolved).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  afterAll(() => rmSync(path.dirname(peopleFile), { recursive: true, force: true }));

  for (const page of PAGES.filter((name) => COMMANDS.some((command) => command.page === name && kindOf(command.text) !== undefined))) {
    it(`${page}: each runs as written, or as its rule says`, () => runPage(page), 240_000);
  }
});

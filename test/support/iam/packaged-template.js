/**
 * The CloudFormation template `sls package` builds from serverless.yml and deploy/, offline, for the
 * stack the IAM gate judges calls by (test/support/iam/gate.js). Packaging takes about half a minute, so
 * a template is kept in .cache/iam-gate/, named by a hash of everything it is built from (serverless.yml,
 * deploy/*.cjs, the parameters, the stage, osls's and the Step Functions plugin's versions): a change to
 * any of them packages again, and nothing else does.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const CACHE = path.join(ROOT, '.cache', 'iam-gate');

/** The stack the integration tests stand for: the demo, its bucket the test bucket, stage `test`. */
export const TEST_STACK = { service: 'csv-import', stage: 'test', region: 'us-east-1', account: '000000000000' };

/**
 * @param {Record<string, string>} params  --param values, as `sls deploy` takes them
 * @param {{ stage?: string }} [options]
 * @returns {Promise<any>} the parsed cloudformation-template-update-stack.json
 */
export async function packagedTemplate(params, { stage = TEST_STACK.stage } = {}) {
  const inputs = [
    path.join(ROOT, 'serverless.yml'),
    ...readdirSync(path.join(ROOT, 'deploy')).filter((name) => name.endsWith('.cjs')).sort().map((name) => path.join(ROOT, 'deploy', name)),
    path.join(ROOT, 'node_modules/osls/package.json'),
    path.join(ROOT, 'node_modules/serverless-step-functions/package.json'),
  ];
  const hash = createHash('sha256').update(JSON.stringify({ params, stage }));
  for (const file of inputs) hash.update(readFileSync(file));
  const cached = path.join(CACHE, `${hash.digest('hex').slice(0, 24)}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8'));

  const out = mkdtempSync(path.join(os.tmpdir(), 'iam-gate-package-'));
  try {
    const args = ['package', '--stage', stage, '--package', out, ...Object.entries(params).map(([name, value]) => `--param=${name}=${value}`)];
    // Offline: dummy credentials, no telemetry; the template needs no AWS call.
    /** @type {Record<string, string | undefined>} */
    const env = { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off', AWS_ACCESS_KEY_ID: 'dummy', AWS_SECRET_ACCESS_KEY: 'dummy' };
    delete env.AWS_SESSION_TOKEN;
    await run(path.join(ROOT, 'node_modules/.bin/sls'), args, { cwd: ROOT, env, timeout: 170_000, maxBuffer: 32 << 20 });
    const text = readFileSync(path.join(out, 'cloudformation-template-update-stack.json'), 'utf8');
    mkdirSync(CACHE, { recursive: true });
    // Written whole, then renamed: two test runs packaging at once never read half a file.
    writeFileSync(`${cached}.${process.pid}`, text);
    renameSync(`${cached}.${process.pid}`, cached);
    return JSON.parse(text);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

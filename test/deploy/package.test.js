/**
 * The npm package, as a person installs it: `npm pack`, the tarball installed into an empty directory
 * (its dependencies from npm's cache, as `npm ci` left them), then the `ddbload` it installs runs:
 * --version, generate, and an import with --local. The tarball holds what runs and the docs, nothing
 * of the tests, the bench or the deployment.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const work = mkdtempSync(path.join(os.tmpdir(), 'ddbload-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the npm package', () => {
  it('installs from its tarball into an empty directory, and its ddbload generates and imports with --local', async () => {
    const { stdout: packed } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: process.cwd(), maxBuffer: 32 << 20 });
    const [{ filename, files }] = JSON.parse(packed);
    const paths = files.map((/** @type {{ path: string }} */ file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'src/cli/main.js', 'src/handler.js', 'data-generator/generate.js', 'local/dynalite-server.js']));
    expect(paths.filter((/** @type {string} */ file) => /^(test|bench|tools|deploy|\.ci)\//.test(file) || file === 'serverless.yml')).toEqual([]);
    // The tests' IAM simulator (AGPL-3.0) is a dev dependency, never one the package installs.
    const packaged = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(Object.keys(packaged.dependencies)).not.toContain('@cloud-copilot/iam-simulate');
    expect(Object.keys(packaged.devDependencies)).toContain('@cloud-copilot/iam-simulate');

    const home = path.join(work, 'home');
    await run('npm', ['install', '--prefix', home, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(work, filename)], { timeout: 240_000, maxBuffer: 32 << 20 });
    const ddbload = path.join(home, 'node_modules', '.bin', 'ddbload');
    // No variable of the test run's servers: the installed command starts its own with --local.
    const { DYNAMODB_ENDPOINT, S3_ENDPOINT, ...env } = process.env;
    const options = { cwd: home, env: { ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, timeout: 120_000 };
    const { stdout: version } = await run(ddbload, ['--version'], options);
    expect(version.trim()).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
    await run(ddbload, ['generate', '--rows', '2000', '--seed', '4', '--out', 'people.csv', '--quiet'], options);
    const { stdout } = await run(ddbload, ['import', 'people.csv', '--table', 'People', '--types', 'balance:N,active:BOOL', '--local', '--json'], options);
    expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null')).toMatchObject({ table: 'People', rowsRead: 2000, written: 2000, rejected: 0, balanced: true });
  });
});

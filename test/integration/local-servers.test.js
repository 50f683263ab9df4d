/**
 * The local servers (local/): dynalite in a process of its own, the S3 emulator beside it. Nothing hangs:
 * a server that fails to start stops the other, and the error names the server, the cause and the fix;
 * the command line's --local exits at once with it. Tables can be kept in a directory between runs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDynalite } from '../../local/dynalite.js';
import { startLocalServers } from '../../local/servers.js';
import { startS3Emulator } from '../../local/s3-emulator.js';

const MAIN = path.resolve('src/cli/main.js');

/** Whether anything answers on this endpoint. @param {string} endpoint */
const answers = (endpoint) => fetch(endpoint, { method: 'POST', signal: AbortSignal.timeout(2_000) }).then(() => true, () => false);

/** A server script that fails as a broken install would. */
function brokenServer() {
  const script = path.join(mkdtempSync(path.join(tmpdir(), 'broken-server-')), 'server.js');
  writeFileSync(script, "process.stderr.write('cannot find package dynalite\\n'); process.exit(1);\n");
  return script;
}

/**
 * Runs the command line and times it.
 * @param {string[]} args @param {string} cwd
 * @returns {Promise<{ code: number | null, stderr: string, ms: number }>}
 */
function runCli(args, cwd) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: performance.now() - started });
    });
  });
}

describe('the local servers', () => {
  it('stop the S3 emulator and say why when dynalite fails to start', async () => {
    /** @type {string | undefined} */
    let s3Endpoint;
    const started = performance.now();
    const failure = await startLocalServers({
      buckets: ['b'],
      starters: {
        dynamodb: () => startDynalite({ script: brokenServer() }),
        s3: async (buckets) => {
          const s3 = await startS3Emulator(buckets);
          s3Endpoint = s3.endpoint;
          return s3;
        },
      },
    }).then(() => undefined, (/** @type {Error} */ error) => error);
    expect(failure?.message).toMatch(/the local servers could not start: the local DynamoDB \(dynalite\) exited with code 1 before it listened: cannot find package dynalite/);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(s3Endpoint).toBeDefined();
    expect(await answers(/** @type {string} */ (s3Endpoint))).toBe(false);
  });

  it('stop dynalite and say why when the S3 emulator fails to start', async () => {
    /** @type {string | undefined} */
    let dynamodbEndpoint;
    const failure = await startLocalServers({
      buckets: ['b'],
      starters: {
        dynamodb: async () => {
          const dynamodb = await startDynalite();
          dynamodbEndpoint = dynamodb.endpoint;
          return dynamodb;
        },
        s3: async () => {
          throw new Error('the S3 emulator could not listen: EADDRINUSE');
        },
      },
    }).then(() => undefined, (/** @type {Error} */ error) => error);
    expect(failure?.message).toBe('the local servers could not start: the S3 emulator could not listen: EADDRINUSE');
    expect(dynamodbEndpoint).toBeDefined();
    expect(await answers(/** @type {string} */ (dynamodbEndpoint))).toBe(false);
  });

  it('keep tables in a directory between runs (--local --local-dir), and a second server on that directory fails at once with the fix', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'local-dir-'));
    writeFileSync(path.join(dir, 'people.csv'), 'id,name\n1,Ann\n2,Bob\n');
    const first = await runCli(['import', 'people.csv', '--table', 'People', '--local', '--local-dir', '.ddb', '--json'], dir);
    expect(first).toMatchObject({ code: 0, stderr: expect.stringContaining('table People created') });
    writeFileSync(path.join(dir, 'more.csv'), 'id,name\n3,Cy\n');
    const second = await runCli(['import', 'more.csv', '--table', 'People', '--local', '--local-dir', '.ddb', '--json'], dir);
    expect(second).toMatchObject({ code: 0, stderr: expect.stringMatching(/table People kept from an earlier run[\s\S]*holds 3 items \(kept in .*\.ddb\)/) });

    // The directory in use by another server: the command says so and exits, nothing left running.
    const holder = await startDynalite({ path: path.join(dir, '.ddb') });
    try {
      const refused = await runCli(['import', 'more.csv', '--table', 'People', '--local', '--local-dir', '.ddb', '--json'], dir);
      expect(refused.code).toBe(1);
      expect(refused.ms).toBeLessThan(15_000);
      expect(refused.stderr).toMatch(/the local servers could not start: the local DynamoDB \(dynalite\) exited with code 1 before it listened: .*is another local DynamoDB using .*\.ddb\? Stop it, or keep the tables in another directory/);
    } finally {
      await holder.stop();
    }
  });

  it('store members named __proto__, and names that look like the escape carrying them, exactly as sent (dynalite alone loses __proto__)', async () => {
    const dynamodb = await startDynalite();
    try {
      const date = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
      const call = async (/** @type {string} */ target, /** @type {string} */ body) => {
        const response = await fetch(dynamodb.endpoint, { method: 'POST', body, headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${target}`, 'x-amz-date': date, authorization: `AWS4-HMAC-SHA256 Credential=k/${date.slice(0, 8)}/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}` } });
        return response.text();
      };
      await call('CreateTable', JSON.stringify({ TableName: 'names', BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] }));
      // Built as text: a JavaScript object literal would take "__proto__" as its prototype.
      const item = '{"id":{"S":"k"},"__proto__":{"S":"a"},"\\u0000dynalite:__proto__":{"S":"b"},"\\u0000dynalite:x":{"S":"c"},"m":{"M":{"__proto__":{"L":[{"M":{"__proto__":{"N":"1"}}}]}}}}';
      expect(await call('BatchWriteItem', `{"RequestItems":{"names":[{"PutRequest":{"Item":${item}}}]}}`)).toBe('{"UnprocessedItems":{}}');
      const stored = JSON.parse(await call('GetItem', '{"TableName":"names","Key":{"id":{"S":"k"}}}')).Item;
      expect(Object.entries(stored).sort()).toEqual(Object.entries(JSON.parse(item)).sort());
    } finally {
      await dynamodb.stop();
    }
  });
});

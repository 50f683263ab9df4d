#!/usr/bin/env node
/**
 * `npm run servers`: the local servers, started and left running for other commands until Ctrl-C, set up
 * as the deployed demo stack would be (stage dev, us-east-1): its bucket and its table. Their addresses go
 * to an environment file, so that `sls invoke local -f import`, the generator or ddbload in another
 * terminal reach them:
 *   npm run servers                                  (terminal 1)
 *   set -a; . .cache/local.env; set +a               (terminal 2, then any of:)
 *   node data-generator/generate.js --rows 1000 --bucket csv-import-dev-us-east-1-source --key imports/people.csv
 *   npx sls invoke local -f import --data '{"bucket":"csv-import-dev-us-east-1-source","key":"imports/people.csv","columnTypes":"balance:N,active:BOOL"}'
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startLocalSession } from './servers.js';

/** What serverless.yml names the demo stack's bucket and table, for stage dev in us-east-1. */
export const DEMO_BUCKET = 'csv-import-dev-us-east-1-source';
export const DEMO_TABLE = 'csv-import-dev-items';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { 'write-env': { type: 'string', default: path.join(root, '.cache', 'local.env') } } });
const envFile = path.resolve(/** @type {string} */ (values['write-env']));

const servers = await startLocalSession(DEMO_BUCKET, (message) => process.stderr.write(`${message}\n`));
await servers.createTable(DEMO_TABLE);
mkdirSync(path.dirname(envFile), { recursive: true });
writeFileSync(envFile, `${Object.entries(servers.env).map(([name, value]) => `${name}=${value}`).join('\n')}\n`);
process.once('exit', () => rmSync(envFile, { force: true }));
process.stderr.write(
  [
    `DynamoDB (dynalite) at ${servers.dynamodbEndpoint}, with the table ${DEMO_TABLE} (key id, S)`,
    `S3 emulator at ${servers.s3Endpoint}, with the bucket ${DEMO_BUCKET}`,
    `Their variables are in ${envFile}. In another terminal:`,
    `  set -a; . ${path.relative(process.cwd(), envFile) || envFile}; set +a`,
    `  node data-generator/generate.js --rows 1000 --bucket ${DEMO_BUCKET} --key imports/people.csv`,
    `  npx sls invoke local -f import --data '{"bucket":"${DEMO_BUCKET}","key":"imports/people.csv","columnTypes":"balance:N,active:BOOL"}'`,
    'Ctrl-C stops them (and their data goes with them).',
    '',
  ].join('\n'),
);

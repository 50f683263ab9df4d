#!/usr/bin/env node
/**
 * One import (or dry run, or sharded job) in a process of its own, so that its CPU time and peak RSS are the importer's alone.
 * argv[2]: JSON `{ payload, env }`. Prints each throughput log line as JSON on stdout, then one line
 * `{"result": {summary, cpuSeconds, maxRssMB, seconds}}`.
 */
import { clientsFor } from '../src/clients.js';
import { resolveConfig } from '../src/config/index.js';
import { runImport } from '../src/segment/import-segment.js';
import { runDryRun } from '../src/dry-run/dry-run.js';
import { handler } from '../src/handler.js';

const { payload, env } = JSON.parse(process.argv[2] ?? '{}');
Object.assign(process.env, env);

/** @param {string} message @param {Record<string, unknown>} fields */
const line = (message, fields) => process.stdout.write(`${JSON.stringify({ message, ...fields })}\n`);
const logger = { info: line, warn: line, error: line };

const config = resolveConfig(payload, process.env);
const clients = clientsFor(config);
const cpuBefore = process.cpuUsage();
const started = performance.now();
// A sharded job runs as `npm start` runs it: the handler plans it and starts a worker process per shard.
const outcome = config.shards > 1 ? { done: true, summary: await handler(payload) } : config.dryRun ? { done: true, summary: await runDryRun(config, { clients, logger }) } : await runImport(config, { clients, logger });
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
if (!outcome.done) throw new Error('the bench import handed over a checkpoint; it has no segment limit');
process.stdout.write(
  `${JSON.stringify({ result: { summary: outcome.summary, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssMB: process.resourceUsage().maxRSS / 1024 } })}\n`,
);
clients.dynamodb.destroy();
clients.batchWrite.destroy();
clients.s3.destroy();

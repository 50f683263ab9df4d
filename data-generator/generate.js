#!/usr/bin/env node
/**
 * `node data-generator/generate.js [options]` is `ddbload generate [options]` (src/cli/generate-command.js):
 * one parser, one help. The rows are written by people.js.
 */
import { runCommandLine } from '../src/cli/command-line.js';

await runCommandLine(['generate', ...process.argv.slice(2)]);

#!/usr/bin/env node
/**
 * `node data-generator/generate.js [options]` is `ddbload generate [options]` (src/cli/generate-command.js):
 * one parser, one help. The rows are written by people.js.
 */
import { runProgram } from '../src/cli/command-line.js';
import { generateProgram } from '../src/cli/generate-command.js';

const argv = ['generate', ...process.argv.slice(2)];
await runProgram(generateProgram(), argv);

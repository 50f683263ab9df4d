#!/usr/bin/env node
/** The `ddbload` command's entry (package.json `bin`). */
import { runCommandLine } from './command-line.js';

await runCommandLine(process.argv.slice(2));

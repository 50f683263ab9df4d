#!/usr/bin/env node
/**
 * The `ddbload` command's entry: parses the command line (program.js), runs it, and turns what went wrong
 * into a message and an exit code (2 for a bad option, 1 for anything else).
 */
import { ImportError } from '../errors.js';
import { buildProgram, NAME } from './program.js';

async function main() {
  const argv = process.argv.slice(2);
  try {
    await buildProgram(argv).parseAsync(argv, { from: 'user' });
  } catch (error) {
    const code = /** @type {{ code?: string, exitCode?: number }} */ (error);
    // Commander has printed its own message (and help) already.
    if (typeof code.code === 'string' && code.code.startsWith('commander.')) {
      process.exitCode = code.exitCode === 0 ? 0 : 2;
      return;
    }
    const message = /** @type {Error} */ (error).name === 'CredentialsProviderError'
      ? `no AWS credentials were found (${/** @type {Error} */ (error).message}): use --profile NAME (after aws sso login, for SSO), set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; on EC2 or in a container, give it a role`
      : /** @type {Error} */ (error).message;
    process.stderr.write(`${NAME}: ${message}\n`);
    process.exitCode = error instanceof ImportError && error.code === 'CONFIG_INVALID' ? 2 : 1;
  }
}

await main();

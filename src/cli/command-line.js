/**
 * The `ddbload` command line as a function of its arguments: parses them (program.js), runs the
 * command, and turns what went wrong into a message and an exit code (2 for a bad flag or option, 1
 * for anything else). main.js is the bin's entry; `node data-generator/generate.js` runs its one command
 * through runProgram, without loading the others (and their AWS clients).
 */
import { ImportError } from '../errors.js';

/** The command's name, as its messages and help name it. */
export const NAME = 'ddbload';

/** @param {string[]} argv  the arguments after the command's name */
export async function runCommandLine(argv) {
  const { buildProgram } = await import('./program.js');
  await runProgram(buildProgram(argv), argv);
}

/**
 * Runs a program (its commands' errors turned into a message and an exit code).
 * @param {import('commander').Command} program @param {string[]} argv
 */
export async function runProgram(program, argv) {
  // A reader that stops reading (`ddbload import --help | head`, `... --json | head`) is not a reason to
  // stop: an import goes on to its end (its rows, its checkpoint and its exit code), its output unread.
  process.stdout.on('error', (error) => {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    if (code !== 'EPIPE' && code !== 'ERR_STREAM_DESTROYED') throw error;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
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

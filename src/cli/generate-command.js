/**
 * `generate`: a realistic test CSV of person rows, to a file, stdout or S3 (data-generator/people.js
 * writes it). The same command as `node data-generator/generate.js`, parsed here with the rest.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { generate } from '../../data-generator/people.js';
import { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { NAME } from './command-line.js';

/** Rows of a first try: a few seconds to write and to import locally. */
export const DEFAULT_ROWS = 100_000;

const EXAMPLES = `
Columns: id (UUID), first_name, last_name, email, phone, national_id, birth_date, country, balance (a
number), active (a boolean). Import them with their types: --types balance:N,active:BOOL
S3 uses the SDK's usual credentials and region; S3_ENDPOINT points it at an emulator.

Examples:
  $ ddbload generate --out people.csv --seed 7                      (100,000 rows, about 14 MB)
  $ ddbload generate --rows 3000000 --bucket my-bucket --key imports/people.csv
  $ ddbload generate --rows 1000000 --sorted --out sorted.csv       (grouped by country: hot partitions)`;

/**
 * @typedef {object} GenerateFlags
 * @property {string} rows @property {string} [out] @property {string} [bucket] @property {string} key
 * @property {string} [seed] @property {boolean} [sorted] @property {boolean} [quiet] @property {boolean} [force]
 */

/** `ddbload generate` alone, as `node data-generator/generate.js` runs it. */
export function generateProgram() {
  const program = new Command(NAME).showHelpAfterError('(add --help for the options and examples)').exitOverride();
  addGenerateCommand(program);
  return program;
}

/** @param {import('commander').Command} program */
export function addGenerateCommand(program) {
  program
    .command('generate')
    .description('write a realistic test CSV of person rows to a file, stdout or S3')
    .option('--rows <n>', 'rows to write', String(DEFAULT_ROWS))
    .option('--out <file>', 'the file to write ("-" for stdout; default people.csv)')
    .option('--bucket <name>', 'upload to this S3 bucket instead (multipart upload, streamed)')
    .option('--key <key>', 'the object key with --bucket', 'imports/people.csv')
    .option('--seed <n>', 'a whole number, for a repeatable file (default: random)')
    .option('--sorted', 'rows grouped by country, a low-cardinality column: the hot-partition case')
    .option('--force', 'overwrite the file --out names if it exists')
    .option('-q, --quiet', 'no progress on stderr')
    .addHelpText('after', EXAMPLES)
    .action(async (/** @type {GenerateFlags} */ flags) => {
      await generate(generatorArgs(flags));
    });
}

/**
 * The generator's arguments from the flags, checked.
 * @param {GenerateFlags} flags
 */
export function generatorArgs(flags) {
  const rows = Number(flags.rows);
  if (!Number.isInteger(rows) || rows < 0) throw new ConfigError('--rows', flags.rows, 'use a whole number of at least 0, such as 100000');
  const seed = flags.seed === undefined ? Math.floor(Math.random() * 2 ** 32) : Number(flags.seed);
  if (!Number.isInteger(seed)) throw new ConfigError('--seed', flags.seed, 'use a whole number, such as 7');
  if (flags.bucket !== undefined && flags.out !== undefined) throw new ConfigError('--out', flags.out, 'write to a file (--out) or to S3 (--bucket), not both');
  const out = flags.bucket === undefined ? (flags.out ?? 'people.csv') : undefined;
  if (out !== undefined && out !== '-') {
    if (existsSync(out) && statSync(out).isDirectory()) throw new ConfigError('--out', out, 'is a directory: name a file in it, such as --out ' + path.join(out, 'people.csv'));
    if (!existsSync(path.dirname(path.resolve(out)))) throw new ConfigError('--out', out, `its directory ${path.dirname(path.resolve(out))} does not exist: create it, or name a file elsewhere`);
    // A regular file is not replaced unasked (/dev/null and the like are written to as they are).
    if (!flags.force && existsSync(out) && statSync(out).isFile()) throw new ConfigError('--out', out, 'the file exists: pass --force to overwrite it, or name another with --out');
  }
  return { rows, seed, out, bucket: flags.bucket, key: flags.key, sorted: flags.sorted === true, quiet: flags.quiet === true };
}

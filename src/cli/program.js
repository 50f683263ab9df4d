/**
 * The `ddbload` command line: `import` (an S3 object or a local file into an existing table, from any machine),
 * `status` (a job's state), `redrive` (a failed job's failed shards, on AWS) and `generate` (test files). Each has --help with examples.
 */
import { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { NAME } from './command-line.js';
import { ConfigError } from '../errors.js';
import { commandLinePolicy } from './iam-policy.js';
import { addGenerateCommand } from './generate-command.js';
import { importCommand } from './import-command.js';
import { OPTION_FLAGS, outputPlaceOf, WRITE_FLAGS } from './import-flags.js';
import { flagSpelling, groupHeading } from '../config/options.js';
import { readCheckpointFile } from './checkpoint-file.js';
import { statusCommand } from './status-command.js';
import { awsStatusCommand, importOnAwsCommand, redriveCommand } from './aws-commands.js';

export { NAME };

/** The package's version, as `--version` prints it. */
const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

const IMPORT_EXAMPLES = `
Examples:
  $ ${NAME} import s3://my-bucket/imports/people.csv --table People --types balance:N,active:BOOL
  $ ${NAME} import ./people.csv --table People --max-wcu 2000 --profile prod --region eu-west-1
  $ ${NAME} import ./people.csv --table People --local        (a local DynamoDB, dynalite, started for the run)
  $ ${NAME} import ./people.csv --table People --local --local-dir .ddb   (its tables kept in .ddb between runs)
  $ ${NAME} import ./people.csv --table People --endpoint-url http://127.0.0.1:8000   (DynamoDB Local, LocalStack)
  $ ${NAME} import ./people.csv --table People --json > import.log
  $ ${NAME} import ./people.csv --table People --resume <job id>.checkpoint.json
  $ ${NAME} import s3://my-bucket/big.csv --table People --shards 16 --on-aws --stack csv-import-dev   (a Step Functions execution)

On a terminal the import shows a live view; --json (or output that is not a terminal) prints one JSON
line a second and the JSON summary last, once.

Exit codes: 0 every row was written (or collapsed into a later row of its key); 3 it finished, and some
rows were rejected (the summary says where they are); 1 the job failed; 2 a bad flag or option; 130
stopped (Ctrl-C), with a checkpoint to resume from.

Ctrl-C stops at a record boundary, lets the writes in flight
end, saves a checkpoint and prints the command that resumes; a second Ctrl-C gives those writes up (their
rows are saved with the checkpoint and written first on resume).

A local file's rejects go to rejects/<file name>/<job id>/ beside it, and its status to _imports/<job id>/
(--output-dir moves both); an S3 object's go to its bucket, under rejects/ and _imports/.
Credentials and region come from the AWS SDK's default chain (environment, --profile, SSO).`;

const STATUS_EXAMPLES = `
Examples:
  $ ${NAME} status ./people.csv --table People      (the import of a local file, from the status beside it)
  $ ${NAME} status s3://my-bucket/imports/people.csv --table People
  $ ${NAME} status 3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c --bucket my-bucket --watch
  $ ${NAME} status 3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c --on-aws --stack csv-import-dev --watch   (a job on AWS)`;

const REDRIVE_EXAMPLES = `
Examples:
  $ ${NAME} redrive 3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c --stack csv-import-dev --watch
  $ ${NAME} redrive arn:aws:states:eu-west-1:123456789012:execution:csv-import-dev-job:3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c`;

/** @param {string[]} argv  the arguments after the command's name */
export function buildProgram(argv) {
  const program = new Command(NAME)
    .description('Load CSV files from S3 or this machine into an existing DynamoDB table, fast, without losing a row.')
    .version(VERSION, '-V, --version', 'the version of ddbload')
    .showHelpAfterError('(add --help for the options and examples)')
    .exitOverride();

  const importer = program
    .command('import')
    .description('import an S3 object (s3://bucket/key) or a local file into an existing table')
    .argument('[source]', 's3://bucket/key, or a path to a local file (with --resume: the stopped import\'s, by default)')
    .showHelpAfterError('(add --help for the options and examples)');
  for (const { flag, value, help, group } of OPTION_FLAGS) {
    const option = new Option(flagSpelling({ flag, value }), help).helpGroup(`${groupHeading(group)}:`);
    importer.addOption(option);
  }
  importer
    .addOption(new Option('--local', 'run on a local DynamoDB (dynalite), started for this run (a local file only); the table is created'))
    .option('--local-dir <dir>', 'with --local: keep the local tables in this directory between runs (default: in memory, gone when the run ends)')
    .option('--endpoint-url <url>', 'a DynamoDB-compatible server to write to instead of AWS (DynamoDB Local, LocalStack: http://127.0.0.1:8000)')
    .option('--output <where>', 'where rejects files and the job\'s status go: s3://bucket/prefix/ or a directory (default: beside the file, or the source bucket): a read-only source is enough')
    .option('--json', 'JSON lines and a JSON summary, as on Lambda, even on a terminal')
    .option('-q, --quiet', 'print nothing but warnings and errors: the exit code says how it went')
    .option('--resume <file>', 'go on from the checkpoint a stopped import saved (its source, table and options are the checkpoint\'s)')
    .option('--region <region>', "the table's and bucket's region (default: the SDK's: AWS_REGION, the profile)")
    .option('--profile <name>', 'the AWS profile to use (default: AWS_PROFILE, else the default chain)')
    .option('--on-aws', 'run the job on the deployed stack (--stack) as a Step Functions execution, and watch it (an S3 source only)')
    .option('--stack <name>', 'with --on-aws: the deployed stack, <service>-<stage> as `sls deploy` printed it (csv-import-dev)')
    .addHelpText('after', IMPORT_EXAMPLES)
    .action((source, flags) => importAction(argv, source, flags));

  const status = program
    .command('status')
    .description("a job's state, per shard and in total")
    .argument('<job>', 'a job id, s3://bucket/key, or the path of a local file imported')
    .option('--bucket <name>', 'the bucket the job status is in (AWS)')
    .option('--stage <stage>', 'a job on the stack csv-import-<stage>: the same as --on-aws --stack csv-import-<stage>')
    .option('--region <region>', 'with --on-aws, --stage or --bucket (default: the SDK\'s: AWS_REGION, the profile)')
    .option('--profile <name>', 'the AWS profile to use (default: AWS_PROFILE, else the default chain)')
    .option('--on-aws', "the job's Step Functions execution on the deployed stack (--stack): its shards, rows and errors")
    .option('--stack <name>', 'with --on-aws: the deployed stack, <service>-<stage> (csv-import-dev)')
    .option('--table <name>', 'the table, when the job is named by its file or object (a job is one file into one table)')
    .option('--dir <dir>', "the directory a local file's import wrote its status to (its --output-dir)")
    .option('--output <where>', 'the --output the import was given: s3://bucket/prefix/ or a directory');
  // A job named by its source is the import with these write flags (defaults unless given), as the import named it.
  for (const { flag, value, help } of OPTION_FLAGS) {
    if (WRITE_FLAGS.includes(flag)) status.option(flagSpelling({ flag, value }), help);
  }
  status
    .option('--prefix <prefix>', 'the status prefix', '_imports/')
    .option('--watch', 'print again every second until the job is done or failed')
    .option('--json', 'the status as JSON')
    .addHelpText('after', STATUS_EXAMPLES)
    .action(async (job, flags) => {
      // --output as the import took it: a bucket and the prefix above _imports/, or a directory.
      if (typeof flags.output === 'string') Object.assign(flags, statusPlaceOf(flags.output));
      // A stack's job is its execution: its status objects are in the stack's output bucket, which Plan names.
      if (flags.stage !== undefined) Object.assign(flags, { onAws: true, stack: flags.stack ?? `csv-import-${flags.stage}` });
      const onAws = flags.onAws || (job.startsWith('arn:') && job.includes(':execution:'));
      process.exitCode = onAws ? await awsStatusCommand(job, flags) : await statusCommand(job, flags);
    });

  addIamPolicyCommand(program);

  program
    .command('redrive')
    .description("re-run the failed shards of a job that failed on AWS, each from where it failed")
    .argument('<job>', "the job id (with --stack), or its execution's ARN")
    .option('--stack <name>', 'the deployed stack, <service>-<stage> (csv-import-dev)')
    .option('--region <region>', "the stack's region (default: the SDK's: AWS_REGION, the profile)")
    .option('--profile <name>', 'the AWS profile to use (default: AWS_PROFILE, else the default chain)')
    .option('--watch', 'then show the job until it ends')
    .option('--json', 'the answer as JSON')
    .addHelpText('after', REDRIVE_EXAMPLES)
    .action(async (job, flags) => {
      process.exitCode = await redriveCommand(job, flags);
    });

  addGenerateCommand(program);
  return program;
}

/**
 * Where `status` looks for an import given `--output`: its bucket and status prefix, or its directory.
 * @param {string} output
 */
function statusPlaceOf(output) {
  const place = outputPlaceOf(output);
  return 'dir' in place ? place : { bucket: place.bucket, prefix: `${place.prefix}_imports/` };
}

/**
 * The command line that resumes this one from a checkpoint file: the same arguments, with --resume.
 * @param {string[]} argv @param {string} file
 */
export function resumeCommand(argv, file) {
  const { kept, rest } = withoutResume(argv);
  // After a "--" every word is an argument: --resume goes before it.
  return [`npx ${NAME}`, ...[...kept, '--resume', file, ...rest].map(shellQuote)].join(' ');
}

/**
 * The arguments without --resume and its file; `rest` is what follows a "--".
 * @param {string[]} argv
 */
function withoutResume(argv) {
  const kept = [];
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  for (let i = 0; i < options.length; i++) {
    if (options[i] === '--resume') i++;
    else if (!options[i].startsWith('--resume=')) kept.push(options[i]);
  }
  return { kept, rest: end === -1 ? [] : argv.slice(end) };
}

/**
 * `ddbload iam-policy`: the command line's least-privilege policy for a stack.
 * @param {Command} program
 */
function addIamPolicyCommand(program) {
  program
    .command('iam-policy')
    .description('print the least-privilege IAM policy a person needs for import --on-aws, status and redrive on a stack')
    .requiredOption('--stack <name>', 'the deployed stack, <service>-<stage> (csv-import-dev)')
    .requiredOption('--account <id>', "the stack's AWS account id (12 digits)")
    .option('--region <region>', "the stack's region (default: the SDK's: AWS_REGION)")
    .option('--output-bucket <bucket>', "the stack's output bucket (default: the demo stack's, <stack>-<region>-source)")
    .addHelpText('after', `
The same policy the tests' IAM gate judges the command line's calls by (src/cli/iam-policy.js).
Example:
  $ ${NAME} iam-policy --stack csv-import-dev --account 111122223333 --region us-east-1 > ddbload-user.json`)
    .action((flags) => {
      process.exitCode = iamPolicyCommand(flags);
    });
}

/**
 * `ddbload iam-policy`: the command line's policy for a stack, as JSON on stdout.
 * @param {{ stack: string, account: string, region?: string, outputBucket?: string }} flags @returns {number}
 */
function iamPolicyCommand({ stack, account, region = process.env.AWS_REGION, outputBucket }) {
  if (!/^\d{12}$/.test(account)) throw new ConfigError('--account', account, 'an AWS account id is 12 digits, such as 111122223333 (aws sts get-caller-identity shows yours)');
  if (region === undefined || region === '') throw new ConfigError('--region', region, "name the stack's region: --region us-east-1, or set AWS_REGION");
  if (!/^[a-z0-9][a-z0-9-]*$/.test(stack)) throw new ConfigError('--stack', stack, 'name the stack as `sls deploy` printed it: <service>-<stage>, such as csv-import-dev');
  const bucket = outputBucket ?? `${stack}-${region}-source`;
  process.stdout.write(`${JSON.stringify(commandLinePolicy({ stack, region, account, outputBucket: bucket }), null, 2)}\n`);
  return 0;
}

/**
 * `ddbload import`: on AWS, here, or (--resume FILE without a source) the stopped command again, said first.
 * @param {string[]} argv @param {string | undefined} source @param {Record<string, any>} flags
 */
async function importAction(argv, source, flags) {
  const again = source === undefined && flags.resume !== undefined && !flags.onAws ? stoppedCommand(argv, flags.resume) : undefined;
  if (again !== undefined) {
    // What runs is said first: the stopped command, with where it reads and writes.
    process.stderr.write(`Resuming the stopped import: ${NAME} ${again.map(shellQuote).join(' ')}\n`);
    await buildProgram(again).parseAsync(again, { from: 'user' });
    return;
  }
  const command = withoutResume(argv);
  process.exitCode = flags.onAws
    ? await importOnAwsCommand(source, flags)
    : await importCommand(source, flags, { resumeCommand: (file) => resumeCommand(argv, file), command: [...command.kept, ...command.rest] });
}

/**
 * `import --resume FILE` without a source is the stopped command again, with --resume and the flags given
 * now (later ones win): its profile, endpoints, caps and checks, not only what a row becomes. Undefined
 * for a checkpoint file from before it kept its command.
 * @param {string[]} argv  this command's
 * @param {string} file
 */
export function stoppedCommand(argv, file) {
  const saved = readCheckpointFile(file).command;
  if (!Array.isArray(saved)) return undefined;
  const { kept, rest } = withoutResume(argv);
  return [...saved, ...kept.slice(1), '--resume', file, ...rest];
}

/** @param {string} word */
const shellQuote = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

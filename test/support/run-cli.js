/** The ddbload command, run as a person runs it: in a process of its own, on a pipe or a terminal. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { TOKENS } from './iam/principals.js';

export const MAIN = path.resolve('src/cli/main.js');

/**
 * The command's credentials before the IAM gate: its commands on a stack (--on-aws, --stack, redrive, an
 * execution's ARN) as the user docs/on-aws.md's policy is for (src/cli/iam-policy.js); any other as the
 * person's own credentials, which no documented policy describes and the gate does not judge.
 * @param {string[]} args @param {Record<string, string | undefined>} env
 */
export function credentialsFor(args, env) {
  const onAws = args[0] === 'redrive' || args.some((arg) => arg === '--on-aws' || arg === '--stack' || arg === '--stage' || arg.startsWith('arn:aws:states:'));
  const { AWS_SESSION_TOKEN: _, ...rest } = env;
  return onAws ? { ...rest, AWS_SESSION_TOKEN: TOKENS.cli } : rest;
}

/**
 * Runs the command. `onStdout` sees its output as it comes and may signal it.
 * @param {string[]} args
 * @param {{ cwd: string, env: Record<string, string | undefined>, onStdout?: (text: string, child: import('node:child_process').ChildProcess) => void, timeoutMs?: number }} options
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
export function runCli(args, { cwd, env, onStdout, timeoutMs = 120_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd, env: { ...credentialsFor(args, env), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ddbload ${args.join(' ')} ran past ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      onStdout?.(stdout, child);
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs the command in a pseudo-terminal (util-linux `script`), as on a person's terminal.
 * @param {string[]} args @param {{ cwd: string, env: Record<string, string | undefined> }} options
 */
export function runCliOnTerminal(args, { cwd, env }) {
  const command = [process.execPath, MAIN, ...args].map((word) => `'${word}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: { ...credentialsFor(args, env), COLUMNS: '120', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

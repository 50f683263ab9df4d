import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

it('type-checks: tsc --noEmit over the JSDoc types finds no error', async () => {
  const result = await run('node_modules/.bin/tsc', ['--noEmit', '-p', 'tsconfig.json']).catch((error) => error);
  expect(result.stdout).toBe('');
  expect(result.code ?? 0).toBe(0);
});

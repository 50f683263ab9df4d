import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { COUNTRIES, csvChunks, disjointSeed, HEADER } from '../../data-generator/people.js';
import { TEST_BUCKET, useLocalServers } from '../support/local.js';

const { env, s3 } = useLocalServers();

const run = promisify(execFile);
const dir = mkdtempSync(path.join(os.tmpdir(), 'generator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** @param {string[]} args */
const generate = (args) => run('node', ['data-generator/generate.js', '--quiet', ...args], { env: process.env });

describe('data generator', () => {
  it('writes the asked number of well-formed rows, the same for the same seed', async () => {
    await generate(['--rows', '5000', '--seed', '3', '--out', path.join(dir, 'a.csv')]);
    await generate(['--rows', '5000', '--seed', '3', '--out', path.join(dir, 'b.csv')]);
    await generate(['--rows', '5000', '--seed', '4', '--out', path.join(dir, 'c.csv')]);
    const a = readFileSync(path.join(dir, 'a.csv'), 'utf8');
    expect(readFileSync(path.join(dir, 'b.csv'), 'utf8')).toBe(a);
    expect(readFileSync(path.join(dir, 'c.csv'), 'utf8')).not.toBe(a);
    expect(a.startsWith(HEADER)).toBe(true);
    /** @type {Array<Record<string, string>>} */
    const rows = parse(a, { columns: true });
    expect(rows.length).toBe(5000);
    expect(new Set(rows.map((row) => row.id)).size).toBe(5000);
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.email).toMatch(/^[^@\s]+@[a-z.]+$/);
      expect(row.phone).toMatch(/^\+1-\d{3}-\d{3}-\d{4}$/);
      expect(row.national_id).toMatch(/^\d{3}-\d{2}-\d{4}$/);
      expect(row.birth_date).toMatch(/^(19[4-9]\d|200[0-5])-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])$/);
      expect(row.first_name).toMatch(/^\p{L}+$/u);
      expect(row.last_name).toMatch(/^[\p{L}']+$/u);
      expect(row.balance).toMatch(/^\d+\.\d{2}$/);
      expect(['true', 'false']).toContain(row.active);
      expect(COUNTRIES).toContain(row.country);
    }
  });

  it('gives the parts of a burst seeds whose rows share no id, and part 0 the seed itself', () => {
    const ids = new Set();
    let rows = 0;
    for (let part = 0; part < 6; part++) {
      for (const line of [...csvChunks({ rows: 10_000, seed: disjointSeed(9, part, 10_000), sorted: false })].join('').split('\n').slice(1)) {
        if (line === '') continue;
        rows++;
        ids.add(line.slice(0, 36));
      }
    }
    expect(rows).toBe(60_000);
    expect(ids.size).toBe(60_000);
    expect(disjointSeed(9, 0, 10_000)).toBe(9);
    expect(() => disjointSeed(9, 1000, 1_000_000)).toThrow('more than one PRNG cycle');
  });

  it('--sorted groups rows by country, each country once', () => {
    /** @type {Array<{ country: string }>} */
    const rows = parse([...csvChunks({ rows: 2000, seed: 1, sorted: true })].join(''), { columns: true });
    const countries = rows.map((row) => row.country);
    const runs = countries.filter((country, i) => i === 0 || countries[i - 1] !== country);
    expect(runs).toEqual(COUNTRIES);
  });

  it('uploads straight to S3 with a multipart upload', async () => {
    // A person's tool, not the stack's function: its upload is not judged by the function's role (the IAM gate).
    const { AWS_SESSION_TOKEN: _, ...person } = { ...process.env, ...env };
    await run('node', ['data-generator/generate.js', '--quiet', '--rows', '120000', '--seed', '5', '--bucket', TEST_BUCKET, '--key', 'gen/people.csv'], { env: person });
    const object = await s3.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: 'gen/people.csv' }));
    const text = await object.Body?.transformToString();
    expect(text).toBe([...csvChunks({ rows: 120_000, seed: 5, sorted: false })].join(''));
    // Larger than the 8 MB part size, so lib-storage sent it in parts (s3rver's ETag does not show the count).
    expect(object.ContentLength).toBeGreaterThan(8 << 20);
  });

  it('documents its options as `ddbload generate`, and refuses bad ones with exit code 2 and the fix', async () => {
    const { stdout } = await generate(['--help']);
    expect(stdout).toContain('Usage: ddbload generate [options]');
    for (const flag of ['--rows', '--out', '--bucket', '--key', '--seed', '--sorted', '--force']) expect(stdout).toContain(flag);
    await expect(generate(['--rows', 'many'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/Invalid option "--rows": got "many"; use a whole number/) });
    await expect(generate(['--out', dir])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/is a directory: name a file in it/) });
    await expect(generate(['--out', path.join(dir, 'no-such-dir', 'x.csv')])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/does not exist: create it/) });
    await expect(generate(['--rowz', '5'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown option '--rowz'\n\(Did you mean --rows\?\)/) });
  });

  it('writes 100,000 rows by default, and overwrites a file only with --force', async () => {
    const file = path.join(dir, 'default.csv');
    await generate(['--out', file, '--seed', '1']);
    expect(readFileSync(file, 'utf8').split('\n').length - 2).toBe(100_000);
    await expect(generate(['--rows', '5', '--out', file])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/the file exists: pass --force to overwrite it/) });
    expect(readFileSync(file, 'utf8').split('\n').length - 2).toBe(100_000);
    await generate(['--rows', '5', '--out', file, '--force']);
    expect(readFileSync(file, 'utf8').split('\n').length - 2).toBe(5);
  });
});

import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/index.js';
import { jobIdOf } from '../../../src/state/checkpoint.js';
import { writeOptionsOf } from '../../../src/state/write-options.js';

describe('a job\'s id', () => {
  const s3 = { bucket: 'b', key: 'k.csv', table: 'people' };
  const file = { file: '/tmp/x.csv', table: 'People', columnTypes: 'a:N', mode: 'delete' };

  it('is what it was before drop and rename were options, for an import that leaves them out', () => {
    // The ids of these two imports before drop and rename were options (the commit before them).
    expect(jobIdOf(resolveConfig(s3, {}), 'etag1')).toBe('26d195c8-a560-5a6e-80f8-20d608a269b5');
    expect(jobIdOf(resolveConfig(file, {}), 'etag1')).toBe('0aa02a85-9f90-50be-acbe-33ed75d48574');
    expect(Object.keys(writeOptionsOf(resolveConfig(s3, {})))).not.toContain('rename');
  });

  it('changes with them, and not with the order they are written in', () => {
    const renamed = jobIdOf(resolveConfig({ ...s3, rename: 'a:x,b:y', drop: 'c,d' }, {}), 'etag1');
    expect(renamed).not.toBe('26d195c8-a560-5a6e-80f8-20d608a269b5');
    expect(jobIdOf(resolveConfig({ ...s3, rename: { b: 'y', a: 'x' }, drop: ['d', 'c'] }, {}), 'etag1')).toBe(renamed);
  });

  it('is what it was before ttl and nest were options, for an import that leaves them out, and changes with them', () => {
    expect(jobIdOf(resolveConfig({ ...s3, nest: false }, {}), 'etag1')).toBe('26d195c8-a560-5a6e-80f8-20d608a269b5');
    const options = Object.keys(writeOptionsOf(resolveConfig(s3, {})));
    expect(options).not.toContain('ttl');
    expect(options).not.toContain('nest');
    const ids = [{ ttl: 'expires' }, { ttl: 'expires:+30d' }, { ttl: 'expires:+31d' }, { nest: true }].map((more) => jobIdOf(resolveConfig({ ...s3, ...more }, {}), 'etag1'));
    expect(new Set([...ids, '26d195c8-a560-5a6e-80f8-20d608a269b5']).size).toBe(5);
    // One duration however it is spelled; the parsed form (a checkpoint's options) is the same job.
    expect(jobIdOf(resolveConfig({ ...s3, ttl: 'expires:+720h' }, {}), 'etag1')).toBe(ids[1]);
    expect(jobIdOf(resolveConfig({ ...s3, ttl: { column: 'expires', after: 2592000 } }, {}), 'etag1')).toBe(ids[1]);
  });
});

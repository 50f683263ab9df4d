import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveConfig, WRITE_OPTIONS } from '../../../src/config/index.js';
import { OPTION_SPECS } from '../../../src/config/options.js';
import { buildProgram } from '../../../src/cli/program.js';
import { OPTIONS_DOC, optionsDoc } from '../../../tools/options-doc.js';

describe('the option schema', () => {
  it('names each option, variable and flag once', () => {
    for (const field of /** @type {const} */ (['name', 'env', 'flag'])) {
      const values = OPTION_SPECS.flatMap((spec) => (spec[field] === undefined ? [] : [spec[field]]));
      expect(new Set(values).size, field).toBe(values.length);
    }
  });

  it('gives every option a default its own parser accepts', () => {
    // table has no default: an import names it (payload, TABLE_NAME or --table).
    for (const spec of OPTION_SPECS.filter((option) => option.name !== 'table')) expect(() => spec.parse(spec.fallback, spec.name), spec.name).not.toThrow();
  });

  it('keeps the write options in the order job ids were first made from them (ids of earlier jobs stay)', () => {
    // Options added later (drop, rename, writeMode, versionColumn, ttl, nest) come last, and are left out of an id at their defaults.
    expect(WRITE_OPTIONS).toEqual(['mode', 'format', 'keyColumn', 'sortKeyColumn', 'generateKey', 'columnTypes', 'emptyCell', 'setSeparator', 'delimiter', 'encoding', 'fromRejects', 'drop', 'rename', 'writeMode', 'versionColumn', 'ttl', 'nest']);
  });

  it('refuses in a payload the options only the deployment sets, and reads them from the environment', () => {
    const payload = { bucket: 'b', key: 'k.csv', table: 'people' };
    for (const spec of OPTION_SPECS.filter((option) => option.payload === false)) {
      expect(() => resolveConfig({ ...payload, [spec.name]: 'x' }, {}), spec.name).toThrow(/unknown option/);
    }
    expect(resolveConfig(payload, { OUTPUT_BUCKET: 'out', TABLE_REGION: 'eu-west-1' })).toMatchObject({ outputBucket: 'out', tableRegion: 'eu-west-1' });
  });

  it('gives the import command a flag for each option that has one, with its default in the help', () => {
    const importer = buildProgram([]).commands.find((command) => command.name() === 'import');
    const help = importer?.helpInformation() ?? '';
    for (const spec of OPTION_SPECS.filter((option) => option.flag !== undefined)) expect(help, spec.name).toContain(/** @type {string} */ (spec.flag));
    expect(help).toMatch(/--concurrency <n>\s+most calls in flight[^]*\(default: 32; 64 with a conditional\s+--write-mode\)/);
  });

  it('matches docs/options.md (run `npm run docs` after changing the schema)', () => {
    expect(readFileSync(OPTIONS_DOC, 'utf8')).toBe(optionsDoc());
  });
});

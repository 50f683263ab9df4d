#!/usr/bin/env node
// Writes docs/options.md from the option schema (src/config/options.js): `npm run docs`. A test fails
// when the page is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { flagSpelling, groupHeading, OPTION_GROUPS, OPTION_SPECS } from '../src/config/options.js';

export const OPTIONS_DOC = fileURLToPath(new URL('../docs/options.md', import.meta.url));

/** @param {string} text */
const cell = (text) => text.replaceAll('|', '\\|');
/** @param {unknown} value */
const code = (value) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;

/** @param {import('../src/config/options.js').OptionSpec} spec */
function defaultOf(spec) {
  if (spec.shown !== undefined) return spec.shown;
  if (spec.fallback === undefined) return 'none';
  return code(spec.fallback);
}

/** The page, made from the schema. */
export function optionsDoc() {
  const lines = [
    '# Options',
    '',
    '<!-- Made by `npm run docs` from src/config/options.js: edit the schema, not this page. -->',
    '',
    'Each option comes from the invocation payload, then the environment variable, then the default. All are',
    'checked before any I/O; a bad value fails at once with a message naming the option (the flag, on the',
    'command line), the value and what is allowed. `ddbload import` takes the options that have a flag (it',
    'reads no option from the environment but the region and the endpoint overrides). Options under "What a',
    'row becomes" are part of what a job is: a run with another value is another job.',
  ];
  for (const group of /** @type {Array<import('../src/config/options.js').OptionGroup>} */ (Object.keys(OPTION_GROUPS))) {
    lines.push('', `## ${groupHeading(group)}`, '', '| payload | environment | flag | default | meaning |', '| --- | --- | --- | --- | --- |');
    for (const spec of OPTION_SPECS.filter((option) => option.group === group)) {
      const payload = spec.payload === false ? '' : code(spec.name);
      const env = spec.env === undefined ? '' : code(spec.env);
      const flag = spec.flag === undefined ? '' : code(flagSpelling({ flag: spec.flag, value: spec.value }));
      lines.push(`| ${payload} | ${env} | ${flag} | ${cell(defaultOf(spec))} | ${cell(spec.docs ?? spec.help)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPTIONS_DOC, optionsDoc());
  console.log(`wrote ${OPTIONS_DOC}`);
}

/**
 * The import command's flags: one per import option that has one in config/options.js (the Lambda
 * payload's, with the same checks and messages), and how a parsed command line becomes a payload. A ConfigError names the option as the
 * payload spells it; on the command line it names the flag.
 */
import path from 'node:path';
import { ConfigError, ImportError } from '../errors.js';
import { WRITE_OPTIONS } from '../config/index.js';
import { OPTION_SPECS } from '../config/options.js';

/**
 * @typedef {object} OptionFlag  a flag that sets one import option (config/options.js)
 * @property {string} flag      as typed: --max-wcu
 * @property {string} option    the payload's name: maxWcu
 * @property {string | undefined} value  the value's name in help; undefined: a flag without a value
 * @property {string} help      with the option's default
 * @property {import('../config/options.js').OptionGroup} group
 */

/** The flags of the options that have one, in the schema's order. @type {OptionFlag[]} */
export const OPTION_FLAGS = OPTION_SPECS.flatMap((spec) =>
  spec.flag === undefined ? [] : [{ flag: spec.flag, option: spec.name, value: spec.value, help: withDefault(spec), group: spec.group }],
);

/** An option's help, ending with its default where it has one. @param {import('../config/options.js').OptionSpec} spec */
export function withDefault(spec) {
  const shown = spec.shown ?? (spec.fallback === undefined || spec.value === undefined ? undefined : String(spec.fallback));
  return shown === undefined ? spec.help : `${spec.help} (default: ${shown})`;
}

/** The flags that set write options (state/write-options.js): an import with others is another job. */
export const WRITE_FLAGS = OPTION_FLAGS.filter(({ option }) => /** @type {readonly string[]} */ (WRITE_OPTIONS).includes(option)).map(({ flag }) => flag);

/** The flag that sets each option. */
const FLAG_OF = new Map(OPTION_FLAGS.map(({ flag, option }) => [option, flag]));

/** The flag that sets an option, as a person types it. @param {string} option */
export const flagOf = (option) => FLAG_OF.get(option) ?? option;

/** Commander's name for a flag's value: --max-wcu is maxWcu. @param {string} flag */
export const attributeOf = (flag) => flag.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());

/**
 * The payload of an import from its source argument and parsed flags.
 * @param {string} source  s3://bucket/key, or a path
 * @param {Record<string, unknown>} flags  as commander parsed them
 * @param {string} [cwd]
 * @returns {Record<string, unknown>}
 */
export function payloadOf(source, flags, cwd = process.cwd()) {
  /** @type {Record<string, unknown>} */
  const payload = { ...sourceOf(source, cwd) };
  for (const { flag, option } of OPTION_FLAGS) {
    const value = flags[attributeOf(flag)];
    if (value === undefined) continue;
    payload[option] = option === 'outputDir' ? path.resolve(cwd, String(value)) : value;
  }
  return payload;
}

/**
 * s3://bucket/key is one object, s3://bucket/prefix/ (ending with "/") every object under the prefix, and
 * anything else a local path.
 * @param {string} source @param {string} cwd
 * @returns {{ bucket: string, key: string } | { bucket: string, prefix: string } | { file: string }}
 */
export function sourceOf(source, cwd) {
  if (source.startsWith('s3://')) {
    const rest = source.slice('s3://'.length);
    const slash = rest.indexOf('/');
    if (slash <= 0) {
      throw new ConfigError('source', source, 'name an object as s3://bucket/key, e.g. s3://my-bucket/imports/people.csv, or every object under a prefix as s3://my-bucket/imports/');
    }
    const bucket = rest.slice(0, slash);
    const key = rest.slice(slash + 1);
    return key === '' || key.endsWith('/') ? { bucket, prefix: key } : { bucket, key };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    throw new ConfigError('source', source, 'the source is s3://bucket/key or a path to a local file');
  }
  return { file: path.resolve(cwd, source) };
}

/**
 * Where an `--output` flag points: s3://bucket/prefix/ (a bucket, and the prefix its rejects/ and
 * _imports/ go under), or a directory.
 * @param {string} output
 * @returns {{ dir: string } | { bucket: string, prefix: string }}
 */
export function outputPlaceOf(output) {
  if (!output.startsWith('s3://')) return { dir: path.resolve(output) };
  const [bucket = '', ...rest] = output.slice('s3://'.length).split('/');
  const prefix = rest.join('/');
  if (bucket === '' || (prefix !== '' && !prefix.endsWith('/'))) throw new ConfigError('--output', output, 'name a bucket and a prefix ending with "/", such as s3://my-bucket/ddbload/, or a directory');
  return { bucket, prefix };
}

/**
 * The same error, naming the flags the command line takes where it names the payload's options.
 * @param {unknown} error
 */
export function withFlagNames(error) {
  if (!(error instanceof ImportError)) return error;
  if (error instanceof ConfigError) {
    const option = /** @type {string} */ (error.option).replace(/ \(env .*\)$/, '');
    const flag = FLAG_OF.get(option);
    if (flag !== undefined) {
      const renamed = new ConfigError(flag, undefined, '');
      renamed.message = inFlagWords(error.message.replace(`"${error.option}"`, flag).replaceAll(`${option} (`, `${flag} (`));
      return renamed;
    }
  }
  error.message = inFlagWords(error.message);
  return error;
}

/**
 * A message's advice in the command line's words: "set keyColumn to ..." becomes "pass --key ...",
 * "generateKey: true" "--generate-key", the "table" option (TABLE_NAME) "--table". Option names that are
 * plain words (table, format, mode) are rewritten only in those phrases, never in the message's prose.
 * @param {string} message
 */
export function inFlagWords(message) {
  let text = message;
  for (const { option, flag } of OPTION_FLAGS) text = text.replace(new RegExp(`the "${option}" option( \\([A-Z_]+\\))?`, 'g'), flag);
  // Other quoted text is the user's (a column, a table, a value): it is never rewritten.
  return text.split(/("(?:[^"\\]|\\.)*")/).map((part, i) => (i % 2 === 1 ? part : advice(part))).join('');
}

/** @param {string} message */
function advice(message) {
  let text = message;
  for (const { option, flag } of OPTION_FLAGS) {
    text = text.replace(new RegExp(`\\bset ${option} to\\b`, 'g'), `pass ${flag}`);
    if (!/[A-Z]/.test(option)) continue;
    text = text
      .replace(new RegExp(`\\b${option}: true\\b`, 'g'), flag)
      .replace(new RegExp(`\\bturn ${option} off\\b`, 'g'), `leave ${flag} out`)
      .replace(new RegExp(`\\b${option} is on\\b`, 'g'), `${flag} is given`)
      .replace(new RegExp(`\\b${option}\\b`, 'g'), flag);
  }
  return text;
}

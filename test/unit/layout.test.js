import { describe, expect, it } from 'vitest';
import { functionLengths, longestFunctions } from '../../tools/function-lengths.js';
import { cyclesOf, folderImports, moduleImports } from '../../tools/import-graph.js';

/**
 * The measured hot loops, which may stay long (a call per row costs there): the CSV item builder's loop.
 * A function holding one is measured without it. (The quote scanner's loops, the other, are under the
 * limit since the record reader was rebuilt.)
 */
const HOT_LOOPS = [{ file: 'src/items/item-builder.js', name: 'buildItem' }];
const MOST_LINES = 80;

describe('the layout of src/', () => {
  it(`has no function over ${MOST_LINES} lines of code but the hot loops`, () => {
    const functions = longestFunctions();
    const isHot = (/** @type {{ file: string, name: string }} */ fn) => HOT_LOOPS.some((hot) => fn.file.endsWith(hot.file.replace(/^src\//, '')) && hot.name === fn.name);
    const hot = functions.filter(isHot);
    expect(hot.map((fn) => fn.name), 'every hot loop named here exists').toEqual(HOT_LOOPS.map((loop) => loop.name));
    const long = functions
      .filter((fn) => !isHot(fn))
      // A function holding a hot loop is measured without the loop's lines.
      .map((fn) => ({ ...fn, lines: fn.lines - hot.filter((h) => h.file === fn.file && h.line > fn.line && h.endLine < fn.endLine).reduce((sum, h) => sum + h.lines, 0) }))
      .filter((fn) => fn.lines > MOST_LINES)
      .map((fn) => `${fn.file}:${fn.line} ${fn.name} (${fn.lines} lines)`);
    expect(long).toEqual([]);
  });

  it('has no cycle between its folders', () => {
    expect(cyclesOf(folderImports())).toEqual([]);
  });

  it('keeps config/ below the stages: it imports only itself, errors.js and the list of counters', () => {
    const outside = [...moduleImports()]
      .filter(([module]) => module.startsWith('config/'))
      .flatMap(([module, targets]) => targets.filter((target) => !target.startsWith('config/') && target !== 'errors.js' && target !== 'observe/counters.js').map((target) => `${module} -> ${target}`));
    expect(outside).toEqual([]);
  });

  it('finds a function of its own making too long and a cycle of its own making (the checks can fail)', () => {
    expect(cyclesOf(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])]]))).toEqual([['a', 'b', 'c', 'a']]);
    const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i}; // a comment is not code`).join('\n');
    const [outer, inner] = functionLengths(`export function outer() {\n  // only a comment\n\n  const inner = () => {\n${body}\n  };\n  return inner;\n}\n`).sort((a, b) => b.lines - a.lines);
    expect(outer).toMatchObject({ name: 'outer', lines: 95, ownLines: 3 });
    expect(inner).toMatchObject({ name: 'inner', lines: 92, ownLines: 92 });
  });
});

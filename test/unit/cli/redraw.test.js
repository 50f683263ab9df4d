import { describe, expect, it } from 'vitest';
import { createRedraw } from '../../../src/cli/redraw.js';

/** A stream that keeps what is written. @param {boolean} isTTY @param {number} [columns] */
function streamOf(isTTY, columns = 20) {
  /** @type {string[]} */
  const written = [];
  return { written, stream: /** @type {NodeJS.WriteStream} */ (/** @type {unknown} */ ({ isTTY, columns, write: (/** @type {string} */ text) => written.push(text) })) };
}

describe('createRedraw', () => {
  it('on a terminal, goes back over the rows the last block took (wrapped lines too) and clears them', () => {
    const { written, stream } = streamOf(true, 20);
    const redraw = createRedraw(stream);
    redraw('one\ntwo');
    redraw(`${'x'.repeat(25)}\nshort`);
    redraw('last');
    // The first block: no erase. The second: back 2 rows. The third: back 3 (25 characters take two rows of 20).
    expect(written).toEqual(['one\ntwo\n', `\x1b[2F\x1b[J${'x'.repeat(25)}\nshort\n`, '\x1b[3F\x1b[Jlast\n']);
  });

  it('anywhere else, prints each block after the last', () => {
    const { written, stream } = streamOf(false);
    const redraw = createRedraw(stream);
    redraw('a');
    redraw('b');
    expect(written).toEqual(['a\n', 'b\n']);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createLiveView, wrapText } from '../../../src/cli/live-view.js';

/** A terminal that keeps what is written to it. @param {number} columns */
function fakeTerminal(columns) {
  /** @type {string[]} */
  const written = [];
  const stream = { isTTY: true, columns, write: (/** @type {unknown} */ text) => written.push(String(text)) > 0, cursorTo: () => true, moveCursor: () => true, clearLine: () => true, clearScreenDown: () => true, on: () => stream, removeListener: () => stream };
  return { written, stream: /** @type {NodeJS.WriteStream} */ (/** @type {unknown} */ (stream)) };
}

/** @type {Array<{ stop: () => void }>} */
let views = [];
afterEach(() => {
  for (const view of views) view.stop();
  views = [];
});

describe('the live view', () => {
  it('prints a message above it at once, wrapped to the terminal, before its first frame of figures', () => {
    const { written, stream } = fakeTerminal(40);
    const view = createLiveView({ stream, label: 'people.csv → People' });
    views.push(view);
    view.logger.warn('the table People holds items and has no point-in-time recovery: an import cannot be undone', {});
    const text = written.join('');
    // At most 39 characters a line: one short of the width, where a terminal would wrap by itself.
    // Each line after the first is cleared first (\x1b[2K): the frame it replaces may be longer.
    expect(text).toContain('warning: the table People holds items\n\x1b[2Kand has no point-in-time recovery: an\n\x1b[2Kimport cannot be undone\n');
  });

  it('prints what is said after it stopped (a second Ctrl-C\'s message), plainly', () => {
    const { written, stream } = fakeTerminal(80);
    const view = createLiveView({ stream, label: 'people.csv → People' });
    view.stop();
    view.say('Giving up the writes in flight; their rows are saved with the checkpoint and written first on resume.');
    expect(written.at(-1)).toBe('Giving up the writes in flight; their rows are saved with the checkpoint and written first on resume.\n');
  });
});

describe('wrapText', () => {
  it('cuts at spaces, keeps line breaks, and cuts a word longer than a line', () => {
    expect(wrapText('one two three four', 9)).toBe('one two\nthree\nfour');
    expect(wrapText('a\nb c', 3)).toBe('a\nb c');
    expect(wrapText('s3://bucket/a-very-long-key.csv done', 10)).toBe('s3://bucke\nt/a-very-l\nong-key.cs\nv done');
    expect(wrapText('', 10)).toBe('');
  });
});

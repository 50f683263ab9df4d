/**
 * A block of text shown again and again (`status --watch`): on a terminal each new block replaces the
 * last in place; anywhere else (a pipe, a file) each is printed after the last.
 */

/**
 * @param {NodeJS.WriteStream} stream
 * @returns {(text: string) => void}
 */
export function createRedraw(stream) {
  let shown = 0; // terminal rows the last block took
  return (text) => {
    if (!stream.isTTY) {
      stream.write(`${text}\n`);
      return;
    }
    const columns = stream.columns || 80;
    // Back to the first row of the last block, then clear to the end of the screen.
    const erase = shown === 0 ? '' : `\x1b[${shown}F\x1b[J`;
    stream.write(`${erase}${text}\n`);
    shown = text.split('\n').reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / columns)), 0);
  };
}

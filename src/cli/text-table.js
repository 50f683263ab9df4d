/**
 * Rows of cells as aligned text columns, two spaces apart, for the terminal.
 * @param {string[][]} rows  the first row is the header
 * @param {(column: number) => boolean} rightAligned  numbers read best right-aligned
 * @returns {string[]} one line a row
 */
export function textTable(rows, rightAligned) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  return rows.map((row) => row.map((cell, c) => (rightAligned(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd());
}

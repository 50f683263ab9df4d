/**
 * Rows of one key that a later row replaced before they were sent (in the shuffle window, or in a batch,
 * which may hold a key once). Sequential writes would have written them first: if the row that replaced
 * them is not written after all (the table refuses it, its attempts run out), the latest of them is what
 * the table must end with. So each winning row keeps the rows it replaced, latest first: at most
 * KEPT_REPLACED of them, so that a file repeating one key a million times holds no million rows. Past
 * that many refused rows of one key in a row, the older ones stay collapsed.
 */

/** @typedef {import('../types.js').Entry} Entry */

export const KEPT_REPLACED = 4;

/**
 * Records that `winner` (further down the file) replaced `loser` and the rows the loser had replaced.
 * @param {Entry} winner @param {Entry} loser
 */
export function supersede(winner, loser) {
  /** @type {Entry[]} */
  const rows = [];
  for (let at = winner.replaced; at !== undefined; at = at.replaced) rows.push(at);
  for (let at = /** @type {Entry | undefined} */ (loser); at !== undefined; at = at.replaced) rows.push(at);
  rows.sort((a, b) => b.line - a.line);
  let last = winner;
  for (const row of rows.slice(0, KEPT_REPLACED)) {
    last.replaced = row;
    last = row;
  }
  last.replaced = undefined;
}

/**
 * Nested maps from dotted names (option `nest`): `address.city` and `address.zip` become
 * `address: {M: {city, zip}}`, at any depth. An item's names are nested together, so two of them must
 * not claim one place: a name that is a dotted prefix of another (`address` and `address.city`, or
 * `a.b` and `a.b.c`) is a conflict, and a dotted name with an empty part (`a..b`, `.a`, `a.`) names no
 * member. A map gets the members that are there: a leaf left out (an empty cell under omit) is not in
 * it, and a map none of whose leaves is there is not in the item either.
 */

/**
 * The first reason a list of names cannot be nested: a name with an empty part, else two names where one
 * is inside the other (`outer` is a dotted prefix of `inner`). Indices into `names`.
 * @param {string[]} names  distinct
 * @returns {{ empty: number } | { outer: number, inner: number } | undefined}
 */
export function nestProblem(names) {
  for (let i = 0; i < names.length; i++) if (names[i].includes('.') && names[i].split('.').includes('')) return { empty: i };
  const index = new Map(names.map((name, i) => [name, i]));
  for (let inner = 0; inner < names.length; inner++) {
    const name = names[inner];
    for (let at = name.indexOf('.'); at !== -1; at = name.indexOf('.', at + 1)) {
      const outer = index.get(name.slice(0, at));
      if (outer !== undefined) return { outer, inner };
    }
  }
  return undefined;
}

/**
 * An item's attributes nested by their dotted names, which nestProblem found nothing wrong with. Objects
 * have no prototype: a member named `__proto__` is a member like any other.
 * @param {Record<string, unknown>} flat  attribute name -> its value (DynamoDB JSON), in the item's order
 * @returns {Record<string, unknown>}
 */
export function nestItem(flat) {
  /** @type {Record<string, any>} */
  const item = Object.create(null);
  for (const name of Object.keys(flat)) {
    if (!name.includes('.')) {
      item[name] = flat[name];
      continue;
    }
    const parts = name.split('.');
    let map = item;
    for (let i = 0; i < parts.length - 1; i++) map = (map[parts[i]] ??= { M: Object.create(null) }).M;
    map[parts[parts.length - 1]] = flat[name];
  }
  return item;
}

/**
 * Members as [name, wire text] pairs, nested: a top-level name keeps its wire text, a map is written
 * anew from its members' values.
 * @param {Array<[string, string]>} members
 * @returns {Array<[string, string]>}
 */
export function nestMembers(members) {
  if (!members.some(([name]) => name.includes('.'))) return members;
  /** @type {Record<string, unknown>} */
  const flat = Object.create(null);
  for (const [name, wire] of members) flat[name] = name.includes('.') ? JSON.parse(wire) : wire;
  const nested = nestItem(flat);
  return Object.keys(nested).map((name) => [name, typeof nested[name] === 'string' ? /** @type {string} */ (nested[name]) : JSON.stringify(nested[name])]);
}

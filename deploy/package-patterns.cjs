'use strict';
/**
 * What the Lambda package holds: the source and the production dependencies, less those only the
 * command line's local servers use (dynalite and s3rver, which `ddbload import --local` starts and the
 * function never loads), found from package-lock.json: every package reachable from them and from no
 * other production dependency. Without this, they doubled the package (5.8 to 13.6 MB zipped).
 */
const { readFileSync } = require('node:fs');
const path = require('node:path');

/** The command line's own: in the npm package, not in the function's. */
const LOCAL_ONLY_ROOTS = ['dynalite', 's3rver'];

/**
 * The tests' IAM policy simulator, AGPL-3.0: a dev dependency, which the framework leaves out of the
 * package already (excludeDevDependencies); named here too so that no install layout (a linked
 * node_modules, where its `npm ls` misreads the tree) can ever ship it.
 */
const NEVER_SHIPPED_ROOTS = ['@cloud-copilot/iam-simulate'];

/**
 * @param {{ packages: Record<string, { dependencies?: Record<string, string>, optionalDependencies?: Record<string, string>, peerDependencies?: Record<string, string>, dev?: boolean }> }} lock
 * @param {string[]} [roots]  default: the local servers
 * @returns {string[]} the lock's paths (node_modules/a, node_modules/a/node_modules/b) only these roots reach
 */
function localOnlyPackages(lock, roots = LOCAL_ONLY_ROOTS) {
  const packages = lock.packages;
  /** Where a dependency `name` of the package at `from` is installed, as Node resolves it. @param {string} from @param {string} name */
  const resolve = (from, name) => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
      if (packages[candidate] !== undefined) return candidate;
      if (dir === '') return undefined;
    }
  };
  /** @param {string[]} roots */
  const reach = (roots) => {
    const seen = new Set();
    const todo = [...roots];
    while (todo.length > 0) {
      const at = /** @type {string} */ (todo.pop());
      if (seen.has(at)) continue;
      seen.add(at);
      const entry = packages[at] ?? {};
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
        const found = resolve(at, name);
        if (found !== undefined) todo.push(found);
      }
    }
    return seen;
  };
  const production = Object.keys(packages[''].dependencies ?? {});
  const rest = reach(production.filter((name) => !roots.includes(name)).map((name) => `node_modules/${name}`));
  const local = reach(roots.filter((name) => packages[`node_modules/${name}`] !== undefined).map((name) => `node_modules/${name}`));
  return [...local].filter((at) => !rest.has(at)).sort();
}

function patterns() {
  const lock = JSON.parse(readFileSync(path.join(__dirname, '..', 'package-lock.json'), 'utf8'));
  // node_modules' own dot entries are tools' (.bin, .package-lock.json, and caches such as vitest's,
  // 24 MB after a test run, which had grown the package from 6 to 10 MB zipped): none is loaded.
  return ['!**', 'src/**', 'package.json', 'node_modules/**', '!node_modules/.*', '!node_modules/.*/**', ...[...localOnlyPackages(lock), ...localOnlyPackages(lock, NEVER_SHIPPED_ROOTS)].map((at) => `!${at}/**`)];
}

module.exports = { patterns, localOnlyPackages, LOCAL_ONLY_ROOTS, NEVER_SHIPPED_ROOTS };

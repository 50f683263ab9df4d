#!/usr/bin/env node
// The imports between src/'s folders, and any cycle among them: `node tools/import-graph.js`. A module
// at src/'s top level (handler.js, errors.js) is a folder of its own.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsFiles } from './function-lengths.js';

const src = fileURLToPath(new URL('../src', import.meta.url));

/** The folder of src/ a path is in (a top-level module: its name). @param {string} path */
const folderOf = (path) => relative(src, path).split(sep)[0];

/**
 * Each module's run-time imports (not JSDoc types) of other modules of src/.
 * @returns {Map<string, string[]>}  module (relative to src/) -> modules
 */
export function moduleImports() {
  const imports = new Map();
  for (const file of jsFiles(src)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm)]
      .map((match) => resolve(dirname(file), match[1] ?? match[2]))
      .filter((target) => target.startsWith(src + sep));
    imports.set(relative(src, file), targets.map((target) => relative(src, target)));
  }
  return imports;
}

/** @returns {Map<string, Set<string>>}  folder -> the folders its modules import */
export function folderImports() {
  const folders = new Map();
  for (const [module, targets] of moduleImports()) {
    const from = folderOf(join(src, module));
    if (!folders.has(from)) folders.set(from, new Set());
    for (const target of targets) {
      const to = folderOf(join(src, target));
      if (to !== from) folders.get(from).add(to);
    }
  }
  return folders;
}

/**
 * The cycles among folders, each as the path that closes it (a -> b -> a).
 * @param {Map<string, Set<string>>} graph
 * @returns {string[][]}
 */
export function cyclesOf(graph) {
  /** @type {string[][]} */
  const cycles = [];
  const state = new Map();
  /** @param {string} node @param {string[]} path */
  function visit(node, path) {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') {
      cycles.push([...path.slice(path.indexOf(node)), node]);
      return;
    }
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 'done');
  }
  for (const node of graph.keys()) visit(node, []);
  return cycles;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const graph = folderImports();
  for (const [from, to] of [...graph].sort()) console.log(`${from} -> ${[...to].sort().join(', ')}`);
  for (const cycle of cyclesOf(graph)) console.log(`cycle: ${cycle.join(' -> ')}`);
}

#!/usr/bin/env node
// Moves modules and rewrites every relative import of them (static, dynamic and JSDoc `import('...')`)
// across the project: `node tools/move-modules.js old.js=new.js ...` (paths from the project's root).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const moves = new Map(process.argv.slice(2).map((pair) => {
  const [from, to] = pair.split('=');
  return /** @type {[string, string]} */ ([resolve(root, from), resolve(root, to)]);
}));
const tracked = execFileSync('git', ['ls-files', '*.js', '*.cjs', '*.mjs'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);

/** @param {string} from a file's directory @param {string} to a file */
function specifier(from, to) {
  const path = relative(from, to);
  return path.startsWith('.') ? path : `./${path}`;
}

for (const file of tracked) {
  const oldPath = resolve(root, file);
  const newPath = moves.get(oldPath) ?? oldPath;
  const text = readFileSync(oldPath, 'utf8');
  const rewritten = text.replace(/((?:from |import\(|import )\s*)(['"])(\.{1,2}\/[^'"]+)\2/g, (whole, lead, quote, spec) => {
    const target = resolve(dirname(oldPath), spec);
    const moved = moves.get(target) ?? target;
    if (moved === target && newPath === oldPath) return whole;
    return `${lead}${quote}${specifier(dirname(newPath), moved)}${quote}`;
  });
  if (newPath !== oldPath) {
    mkdirSync(dirname(newPath), { recursive: true });
    execFileSync('git', ['mv', oldPath, newPath], { cwd: root });
  }
  if (rewritten !== text) writeFileSync(newPath, rewritten);
}
for (const [from, to] of moves) if (!existsSync(to)) console.error(`not moved: ${relative(root, from)} -> ${relative(root, to)}`);

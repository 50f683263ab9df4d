#!/usr/bin/env node
// Lists the longest functions of src/ by lines of code (blank and comment-only lines left out), with
// their nested functions and without them (own). `node tools/function-lengths.js [count]`.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * @typedef {{ file: string, name: string, line: number, endLine: number, lines: number, ownLines: number }} FunctionLength
 */

/** Every .js file below a folder. @param {string} dir @returns {string[]} */
export function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

/** @param {any} node */
function isFunction(node) {
  return node?.type === 'FunctionDeclaration' || node?.type === 'FunctionExpression' || node?.type === 'ArrowFunctionExpression';
}

/** @param {any} node @param {any} parent */
function nameOf(node, parent) {
  if (node.id?.name) return node.id.name;
  if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') return parent.id.name;
  if ((parent?.type === 'Property' || parent?.type === 'MethodDefinition') && parent.key.type === 'Identifier') return parent.key.name;
  return '(anonymous)';
}

/**
 * Every function of one source file with its own lines of code.
 * @param {string} text
 * @returns {{ name: string, line: number, endLine: number, lines: number, ownLines: number }[]}
 */
export function functionLengths(text) {
  const codeLines = new Set();
  const comments = /** @type {any[]} */ ([]);
  const ast = parse(text, { ecmaVersion: 'latest', sourceType: 'module', locations: true, onComment: comments });
  // A line counts as code when a token other than a comment starts or sits on it.
  const commentLines = new Set();
  for (const comment of comments) for (let line = comment.loc.start.line; line <= comment.loc.end.line; line++) commentLines.add(line);
  text.split('\n').forEach((content, index) => {
    const line = index + 1;
    const trimmed = content.trim();
    if (trimmed !== '' && !(commentLines.has(line) && /^(\/\/|\/\*|\*)/.test(trimmed))) codeLines.add(line);
  });
  const results = /** @type {{ name: string, line: number, endLine: number, lines: number, ownLines: number }[]} */ ([]);

  /** @param {any} node @param {any} parent @returns {number[]} the code lines of the functions directly inside */
  function visit(node, parent) {
    if (!node || typeof node.type !== 'string') return [];
    const nested = [];
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc') continue;
      const children = Array.isArray(value) ? value : [value];
      for (const child of children) if (child && typeof child.type === 'string') nested.push(...visit(child, node));
    }
    if (!isFunction(node)) return nested;
    const own = new Set();
    for (let line = node.loc.start.line; line <= node.loc.end.line; line++) if (codeLines.has(line)) own.add(line);
    for (const line of nested) if (line !== node.loc.start.line && line !== node.loc.end.line) own.delete(line);
    const mine = [];
    for (let line = node.loc.start.line; line <= node.loc.end.line; line++) if (codeLines.has(line)) mine.push(line);
    results.push({ name: nameOf(node, parent), line: node.loc.start.line, endLine: node.loc.end.line, lines: mine.length, ownLines: own.size });
    return mine;
  }
  visit(ast, null);
  return results;
}

/** @param {string} dir @returns {FunctionLength[]} longest first */
export function longestFunctions(dir = join(root, 'src')) {
  return jsFiles(dir)
    .flatMap((file) => functionLengths(readFileSync(file, 'utf8')).map((fn) => ({ file: relative(root, file), ...fn })))
    .sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = Number(process.argv[2] ?? 15);
  for (const fn of longestFunctions().slice(0, count)) console.log(`${String(fn.lines).padStart(4)} (own ${String(fn.ownLines).padStart(3)})  ${fn.name}  ${fn.file}:${fn.line}`);
}

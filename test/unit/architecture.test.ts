// The "may import" column of the Folders table in docs/architecture.md is this test's data: an
// import the table does not allow fails, an allowance no file uses fails (the table stays the
// truth), and so does a cycle between files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import { cycles, fileGraph, folderEdges, srcFolders } from '../import-graph.js';

const DOC = join(ROOT, 'docs', 'architecture.md');

/** The Folders table: `folder` -> the folders its "may import" cell names ("nothing" for none). */
export function allowedFromDoc(md: string): Map<string, string[]> {
  const allowed = new Map<string, string[]>();
  for (const m of md.matchAll(/^\| `([\w-]+)\/` \|.*\| ([^|]*?) \|$/gm))
    allowed.set(m[1], m[2] === 'nothing' ? [] : m[2].split(',').map((s) => s.trim()));
  return allowed;
}

/**
 * Problems of the code against the table: a folder without a row, a row or name that is no
 * folder, an import the table does not allow, an allowance nothing uses. src/index.ts (".")
 * is the package's API over every folder: it may import anything, and nothing may import it.
 */
export function edgeProblems(
  allowed: Map<string, string[]>,
  edges: Map<string, string[]>,
  folders: string[],
): string[] {
  const out: string[] = [];
  for (const f of folders) if (!allowed.has(f)) out.push(`src/${f}/ has no row in the Folders table`);
  for (const [f, to] of allowed)
    for (const name of [f, ...to])
      if (!folders.includes(name)) out.push(`the row of ${f}/ names ${name}/, which is no folder under src/`);
  for (const [edge, files] of edges) {
    const [from, to] = edge.split(' -> ');
    if (from === '.') continue;
    if (!allowed.get(from)?.includes(to)) out.push(`${edge} is not in the Folders table (${files.join(', ')})`);
  }
  for (const [from, to] of allowed)
    for (const t of to)
      if (!edges.has(`${from} -> ${t}`))
        out.push(`the Folders table lets ${from}/ import ${t}/, but no file does: remove it`);
  return out;
}

test('every import between src/ folders is one the Folders table of docs/architecture.md allows, and every allowance is used', () => {
  const allowed = allowedFromDoc(readFileSync(DOC, 'utf8'));
  assert.ok(allowed.size >= 10, 'the Folders table was not found in docs/architecture.md');
  assert.deepEqual(edgeProblems(allowed, folderEdges(fileGraph()), srcFolders()), []);
});

test('the Folders table is one-way: no folder may import a folder that may import it back', () => {
  assert.deepEqual(cycles(allowedFromDoc(readFileSync(DOC, 'utf8'))), []);
});

test('no import cycle between files', () => {
  assert.deepEqual(cycles(fileGraph()), []);
});

test('the checks themselves catch a planted bad edge, an unused allowance, a missing row and a cycle', () => {
  const allowed = allowedFromDoc(
    '| folder | job | may import |\n|---|---|---|\n| `core/` | types | nothing |\n| `ops/` | the op interpreter, seeding | core |\n',
  );
  assert.deepEqual(
    [...allowed],
    [
      ['core', []],
      ['ops', ['core']],
    ],
  );
  const edges = new Map([
    ['ops -> core', ['ops/ops.ts']],
    ['core -> ops', ['core/results.ts']],
  ]);
  assert.deepEqual(edgeProblems(allowed, edges, ['core', 'ops', 'util']), [
    'src/util/ has no row in the Folders table',
    'core -> ops is not in the Folders table (core/results.ts)',
  ]);
  assert.deepEqual(edgeProblems(allowed, new Map(), ['core', 'ops']), [
    'the Folders table lets ops/ import core/, but no file does: remove it',
  ]);
  const files = new Map([
    ['cli/main.ts', ['cli/run.ts']],
    ['cli/run.ts', ['cli/options.ts', 'cli/main.ts']],
    ['cli/options.ts', []],
    ['a.ts', ['a.ts']],
  ]);
  assert.deepEqual(cycles(files), [['cli/main.ts', 'cli/run.ts'], ['a.ts']]);
});

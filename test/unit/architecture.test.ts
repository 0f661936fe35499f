// The Folders table in docs/architecture.md and the reaches of one file under it are this test's
// data: an import they do not allow fails, an allowance no file uses fails (the table stays the
// truth), a folder's row names only what two or more of its files import (one file's reach is
// listed as that file's), and a cycle between files, or in the table, fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import { cycles, fileGraph, folderEdges, folderOf, srcFolders } from '../import-graph.js';

const DOC = join(ROOT, 'docs', 'architecture.md');

const names = (cell: string) => (cell === 'nothing' ? [] : cell.split(',').map((s) => s.trim()));

/** The Folders table: `folder` -> the folders its "may import" cell names ("nothing" for none). */
export function allowedFromDoc(md: string): Map<string, string[]> {
  const allowed = new Map<string, string[]>();
  for (const m of md.matchAll(/^\| `([\w-]+)\/` \|.*\| ([^|]*?) \|$/gm)) allowed.set(m[1], names(m[2]));
  return allowed;
}

/** The reaches of one file (a table of `file` | folders): file (relative to src/) -> the folders it may import beyond its folder's row. */
export function reachesFromDoc(md: string): Map<string, string[]> {
  const reaches = new Map<string, string[]>();
  for (const m of md.matchAll(/^\| `([\w-]+\/[\w./-]+\.ts)` \| ([^|]*?) \|$/gm)) reaches.set(m[1], names(m[2]));
  return reaches;
}

/**
 * Problems of the code against the table: a folder without a row, a row or name that is no
 * folder, an import the table does not allow, an allowance nothing uses, a row naming what one
 * file alone imports (that is the file's reach), a reach its folder's row already gives.
 * src/index.ts (".") is the package's API over every folder: it may import anything, and
 * nothing may import it.
 */
export function edgeProblems(
  allowed: Map<string, string[]>,
  reaches: Map<string, string[]>,
  edges: Map<string, string[]>,
  folders: string[],
  files: string[],
): string[] {
  const out: string[] = [];
  for (const f of folders) if (!allowed.has(f)) out.push(`src/${f}/ has no row in the Folders table`);
  for (const [f, to] of allowed)
    for (const name of [f, ...to])
      if (!folders.includes(name)) out.push(`the row of ${f}/ names ${name}/, which is no folder under src/`);
  for (const [file, to] of reaches) {
    if (!files.includes(file)) out.push(`the reach of ${file} names no file under src/`);
    for (const t of to)
      if (!folders.includes(t)) out.push(`the reach of ${file} names ${t}/, which is no folder under src/`);
      else if (allowed.get(folderOf(file))?.includes(t))
        out.push(`the reach of ${file} names ${t}/, which the row of ${folderOf(file)}/ already names: remove it`);
  }
  for (const [edge, importers] of edges) {
    const [from, to] = edge.split(' -> ');
    if (from === '.') continue;
    if (allowed.get(from)?.includes(to)) {
      if (importers.length === 1)
        out.push(
          `only ${importers[0]} of ${from}/ imports ${to}/: move ${to}/ from the row of ${from}/ to that file's reach`,
        );
    } else if (importers.length > 1)
      out.push(
        `${edge} is not in the Folders table (${importers.join(', ')}): more than one file, so the row names it`,
      );
    else if (!reaches.get(importers[0])?.includes(to))
      out.push(`${edge} is not in the Folders table (${importers.join(', ')})`);
  }
  for (const [from, to] of allowed)
    for (const t of to)
      if (!edges.has(`${from} -> ${t}`))
        out.push(`the Folders table lets ${from}/ import ${t}/, but no file does: remove it`);
  for (const [file, to] of reaches)
    for (const t of to)
      if (folders.includes(t) && !edges.get(`${folderOf(file)} -> ${t}`)?.includes(file))
        out.push(`the reach of ${file} names ${t}/, but it imports nothing there: remove it`);
  return out;
}

/** The folder graph the table allows: each row, and each file's reach as an edge of its folder. */
function tableGraph(allowed: Map<string, string[]>, reaches: Map<string, string[]>): Map<string, string[]> {
  const graph = new Map([...allowed].map(([f, to]) => [f, [...to]]));
  for (const [file, to] of reaches) graph.get(folderOf(file))?.push(...to);
  return graph;
}

test('every import between src/ folders is one the Folders table of docs/architecture.md allows, and every allowance is used', () => {
  const md = readFileSync(DOC, 'utf8');
  const allowed = allowedFromDoc(md);
  assert.ok(allowed.size >= 10, 'the Folders table was not found in docs/architecture.md');
  const files = fileGraph();
  assert.deepEqual(edgeProblems(allowed, reachesFromDoc(md), folderEdges(files), srcFolders(), [...files.keys()]), []);
});

test('the Folders table is one-way: no folder may import a folder that may import it back', () => {
  const md = readFileSync(DOC, 'utf8');
  assert.deepEqual(cycles(tableGraph(allowedFromDoc(md), reachesFromDoc(md))), []);
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
  const files = ['ops/ops.ts', 'ops/recall.ts', 'core/results.ts', 'util/errors.ts'];
  const edges = new Map([
    ['ops -> core', ['ops/ops.ts', 'ops/recall.ts']],
    ['core -> ops', ['core/results.ts']],
  ]);
  assert.deepEqual(edgeProblems(allowed, new Map(), edges, ['core', 'ops', 'util'], files), [
    'src/util/ has no row in the Folders table',
    'core -> ops is not in the Folders table (core/results.ts)',
  ]);
  assert.deepEqual(edgeProblems(allowed, new Map(), new Map(), ['core', 'ops'], files), [
    'the Folders table lets ops/ import core/, but no file does: remove it',
  ]);
  // one file's reach: listed under the table, used, not on the row, and the row names only what two files import
  const reaches = reachesFromDoc('| file | may also import |\n|---|---|\n| `core/results.ts` | ops |\n');
  assert.deepEqual([...reaches], [['core/results.ts', ['ops']]]);
  assert.deepEqual(edgeProblems(allowed, reaches, edges, ['core', 'ops'], files), []);
  assert.deepEqual(
    edgeProblems(
      allowed,
      new Map([
        ['core/results.ts', ['ops', 'util']],
        ['ops/ops.ts', ['core']],
        ['ops/gone.ts', []],
      ]),
      new Map([...edges, ['ops -> core', ['ops/ops.ts']]]),
      ['core', 'ops', 'util'],
      files,
    ),
    [
      'src/util/ has no row in the Folders table',
      'the reach of ops/ops.ts names core/, which the row of ops/ already names: remove it',
      'the reach of ops/gone.ts names no file under src/',
      "only ops/ops.ts of ops/ imports core/: move core/ from the row of ops/ to that file's reach",
      'the reach of core/results.ts names util/, but it imports nothing there: remove it',
    ],
  );
  assert.deepEqual(
    edgeProblems(
      new Map([
        ['core', []],
        ['ops', []],
      ]),
      new Map([['ops/ops.ts', ['core']]]),
      new Map([['ops -> core', ['ops/ops.ts', 'ops/recall.ts']]]),
      ['core', 'ops'],
      files,
    ),
    ['ops -> core is not in the Folders table (ops/ops.ts, ops/recall.ts): more than one file, so the row names it'],
  );
  // a reach that makes the table two-way is a cycle
  assert.deepEqual(cycles(tableGraph(allowed, reaches)), [['core', 'ops']]);
  const graph = new Map([
    ['cli/main.ts', ['cli/run.ts']],
    ['cli/run.ts', ['cli/options.ts', 'cli/main.ts']],
    ['cli/options.ts', []],
    ['a.ts', ['a.ts']],
  ]);
  assert.deepEqual(cycles(graph), [['cli/main.ts', 'cli/run.ts'], ['a.ts']]);
});

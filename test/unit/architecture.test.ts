import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../helpers.js';

const SRC = join(ROOT, 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The top folder under src/ a file lives in ("." for src/index.ts). */
const folderOf = (file: string) => relative(SRC, file).split('/').slice(0, -1)[0] ?? '.';

/** folder -> folders it imports (type-only imports count: they are a dependency too). */
export function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of tsFiles(SRC)) {
    const from = folderOf(file);
    const deps = graph.get(from) ?? new Set<string>();
    graph.set(from, deps);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const to = folderOf(resolve(dirname(file), m[1]));
      if (to !== from) deps.add(to);
    }
  }
  return graph;
}

/** Every cycle between folders, as a path a -> b -> ... -> a (found by DFS). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'visiting');
    stack.push(n);
    for (const d of graph.get(n) ?? []) {
      if (state.get(d) === 'visiting') found.push([...stack.slice(stack.indexOf(d)), d]);
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return found;
}

test('no src/ folder imports a folder that imports it back', () => {
  const found = cycles(folderGraph());
  assert.deepEqual(found.map((c) => c.join(' -> ')), []);
});

test('the cycle check itself finds a planted cycle', () => {
  const g = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a'])],
  ]);
  assert.deepEqual(cycles(g), [['a', 'b', 'c', 'a']]);
});

test('core/ is a leaf: it imports nothing from memeval', () => {
  assert.deepEqual([...(folderGraph().get('core') ?? [])], []);
});

// The import graph of src/, read from the import statements: what test/unit/architecture.test.ts
// checks against the Folders table of docs/architecture.md and bench/structure.ts prints.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './helpers.ts';

export const SRC = join(ROOT, 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The top folder under src/ a file (relative to src/) lives in ("." for src/index.ts, the package's API). */
export const folderOf = (file: string) => file.split('/').slice(0, -1)[0] ?? '.';

/** The folders directly under src/. */
export const srcFolders = () => readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());

/** file (relative to src/) -> the files it imports (type-only imports count: they are a dependency too). */
export function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(SRC)) {
    const deps = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(
      (m) => relative(SRC, resolve(dirname(file), m[1]).replace(/\.js$/, '.ts')),
    );
    graph.set(relative(SRC, file), deps);
  }
  return graph;
}

/** Every import that crosses folders, as `from -> to` with the importing files. */
export function folderEdges(files: Map<string, string[]>): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const [file, deps] of files)
    for (const dep of deps) {
      const [from, to] = [folderOf(file), folderOf(dep)];
      if (from === to) continue;
      const key = `${from} -> ${to}`;
      edges.set(key, [...new Set([...(edges.get(key) ?? []), file])]);
    }
  return edges;
}

/** The folder graph of some `from -> to` edges: folder -> the folders it imports. */
export function edgeGraph(edges: Iterable<string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const edge of edges) {
    const [from, to] = edge.split(' -> ');
    graph.set(from, [...(graph.get(from) ?? []), to]);
    if (!graph.has(to)) graph.set(to, []);
  }
  return graph;
}

/** Strongly connected groups of more than one node (Tarjan), and nodes that import themselves: each is an import cycle. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)?.includes(v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

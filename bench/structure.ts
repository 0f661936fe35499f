/**
 * The shape of src/ in numbers (not a test): files, folders, folder-to-folder import edges, import
 * cycles between files and between folders (test/import-graph.ts, the graph the architecture test
 * checks), and the longest functions.
 *
 *   node --import tsx bench/structure.ts [--top N]
 *
 * A function's length is the lines from its first to its last (declaration to closing brace,
 * inclusive), read with the TypeScript compiler API: function declarations, methods, constructors,
 * accessors, function expressions and arrow functions with a block body. A nested function counts
 * in its parent's lines too, and on its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { SRC, cycles, edgeGraph, fileGraph, folderEdges, srcFolders } from '../test/import-graph.ts';

const topArg = process.argv.indexOf('--top');
const TOP = topArg > 0 ? Number(process.argv[topArg + 1]) : 15;

interface FunctionLength {
  name: string;
  file: string;
  lines: number;
}

/** What a reader calls a function node: its own name, else the variable or property it is assigned to. */
function nameOf(node: ts.Node): string {
  const own = (node as ts.FunctionLikeDeclaration).name;
  const parent = node.parent;
  const owner = ts.isClassLike(parent) && parent.name ? `${parent.name.text}.` : '';
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  if (own && (ts.isIdentifier(own) || ts.isStringLiteral(own))) return owner + own.text;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return owner + parent.name.text;
  return '(anonymous)';
}

function functionLengths(files: string[]): FunctionLength[] {
  const out: FunctionLength[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      const body = (node as ts.FunctionLikeDeclaration).body;
      if (ts.isFunctionLike(node) && body && ts.isBlock(body)) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        out.push({ name: nameOf(node), file, lines: last - first + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

const files = fileGraph();
const edges = folderEdges(files);
const folders = srcFolders();
const fileCycles = cycles(files);
const folderCycles = cycles(edgeGraph([...edges.keys()].filter((e) => !e.startsWith('. ->'))));
const fanOut = (f: string) => [...edges.keys()].filter((e) => e.startsWith(`${f} -> `)).length;

console.log(`files under src/        ${files.size}`);
console.log(`folders                 ${folders.length}`);
console.log(
  `folder -> folder edges  ${[...edges.keys()].filter((e) => !e.startsWith('. ->')).length} (src/index.ts, the API, left out)`,
);
const oneFile = [...edges].filter(([e, importers]) => !e.startsWith('. ->') && importers.length === 1).length;
console.log(
  `  of which one file alone  ${oneFile} (a reach of that file under the Folders table, not its folder's row)`,
);
console.log(`file cycles             ${fileCycles.length}${fileCycles.map((c) => `\n  ${c.join(' -> ')}`).join('')}`);
console.log(
  `folder cycles           ${folderCycles.length}${folderCycles.map((c) => `\n  ${c.join(' -> ')}`).join('')}`,
);
console.log(`folders each imports    ${folders.map((f) => `${f} ${fanOut(f)}`).join(', ')}`);
console.log(`\nthe ${TOP} longest functions (lines):`);
const lengths = functionLengths([...files.keys()]);
for (const f of lengths.slice(0, TOP)) console.log(`  ${String(f.lines).padStart(4)}  ${f.name}  (src/${f.file})`);
const over100 = lengths.filter((f) => f.lines > 100);
console.log(`functions over 100 lines: ${over100.length}`);

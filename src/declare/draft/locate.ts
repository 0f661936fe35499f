import { rmSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { Fixture } from '../../fixture/fixture.js';
import type { TargetDecl } from '../../targets/schema.js';
import {
  draftJsonFileView,
  draftJsonlView,
  draftSqliteView,
  filesHolding,
  isSqlite,
  LOG_NAME,
  pickStore,
  placeholderPath,
} from './store.js';

/** Where the marker memory landed and the `memories` view drafted over it. */
export interface StoreFinding {
  store: TargetDecl['store'];
  view?: string;
  /** the marker row's id and name: what a remember's result may name */
  rowIds: string[];
  /** files in the package's own folder that held the marker (the server wrote outside the fixture) */
  outside: string[];
  notes: string[];
  toDecide: string[];
}

/**
 * Look for the marker's bytes under the fixture (data dir, HOME, project, tmp) and in the
 * package's folder, and draft the view over the store that holds it. Files the server made in
 * its package folder are removed: the cache is shared, and they hold nothing but this draft's writes.
 * `reads` are the queries recalls sent and nothing wrote: a file or table that holds them logs
 * calls, and the memories are elsewhere; so is a file named like a log (audit.json).
 */
export function locateStore(
  fixture: Fixture,
  packageDir: string,
  packageFilesBefore: Set<string>,
  marker: { token: string; content: string },
  reads: string[] = [],
): StoreFinding {
  const out: StoreFinding = { store: { format: 'none' }, rowIds: [], outside: [], notes: [], toDecide: [] };
  out.outside = filesHolding(packageDir, marker.token);
  for (const f of out.outside) if (!packageFilesBefore.has(f)) rmSync(f, { force: true });
  const holding = filesHolding(fixture.root, marker.token);
  const logs = new Set(reads.flatMap((q) => filesHolding(fixture.root, q)).filter((f) => holding.includes(f)));
  // SQLite keeps its log tables beside the memories in one file: those are told apart table by table
  const isLog = (f: string) =>
    (logs.has(f) || LOG_NAME.test(basename(f))) && !isSqlite(f.replace(/-(wal|journal)$/, ''));
  const [kept, skipped] = [holding.filter((f) => !isLog(f)), holding.filter(isLog)];
  if (kept.length && skipped.length)
    out.notes.push(
      `not the store: ${skipped.map((f) => placeholderPath(f, fixture.vars) ?? f).join(', ')} (${[...skipped].some((f) => logs.has(f)) ? 'it holds the recall queries too: a log of calls' : 'named like a log'})`,
    );
  const found = pickStore(kept.length ? kept : holding);
  if (!found) return out;
  const path = placeholderPath(found.file, fixture.vars)!;
  if (found.format === 'sqlite') {
    const d = draftSqliteView(found.file, marker.token, marker.content, reads);
    if (!d) out.toDecide.push(`views.memories: no table of ${path} holds the marker as text`);
    else {
      Object.assign(out, { store: { format: 'sqlite', path }, view: d.view, rowIds: d.rowIds });
      out.notes.push(...d.notes);
      if (d.alsoIn.length)
        out.notes.push(`the marker is also in ${d.alsoIn.join(', ')}: candidates for views.extra (history, FTS)`);
    }
  } else if (found.format === 'jsonl') {
    const d = draftJsonlView(found.file, marker.token);
    if (!d) out.toDecide.push(`views.memories: the line of ${path} holding the marker is not a JSON object`);
    else {
      Object.assign(out, { store: { format: 'jsonl', path }, view: d.view, rowIds: d.rowIds });
      out.notes.push(...d.notes);
    }
  } else {
    const folder = filesFolder(found.file, fixture.vars);
    const json = draftJsonFileView(found.file, path.slice(folder.length + 1), marker.token);
    if (json) {
      Object.assign(out, { store: { format: 'files', path: folder }, view: json.view, rowIds: json.rowIds });
      out.notes.push(
        `the marker is in ${path}, a JSON file: the draft declares a files store over ${folder}, one row per memory in that file`,
        ...json.notes,
      );
      return out;
    }
    const ext = extname(found.file);
    Object.assign(out, {
      store: { format: 'files', path: folder },
      view: `SELECT f.path AS id, f.content AS content, NULL AS category, NULL AS source, f.dir AS subject, NULL AS created_at, 0 AS is_deleted FROM store.files f${ext ? ` WHERE f.name LIKE '%${ext.replace(/'/g, "''")}'` : ''}`,
      rowIds: [basename(found.file, ext), basename(found.file)],
    });
    out.notes.push(
      `the marker is in ${path}, a plain file: the draft declares a files store over ${folder} (one row per file)`,
    );
  }
  return out;
}

/** The folder a files store is declared over: the data dir itself, or the top folder under HOME or the project. */
function filesFolder(file: string, vars: Record<string, string>): string {
  const path = placeholderPath(file, vars)!;
  const [root, first] = path.split('/');
  return root === '{{data}}' || !first || path === `${root}/${first}` ? root : `${root}/${first}`;
}

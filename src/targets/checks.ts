import { isAbsolute, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { TargetDecl } from './schema.js';
import { storeTableSql } from './store-tables.js';
import { nearest, messageOf } from '../util/errors.js';

/**
 * Load-time checks of a target declaration beyond its schema and its op templates (op-checks.ts):
 * server and store placeholders, a store inside the fixture, views SQLite compiles as one
 * read-only SELECT, capture_id regexes that cannot backtrack for hours. Problems as `field: message`.
 */
export function checkTarget(decl: TargetDecl): string[] {
  return [...checkPlaceholders(decl), ...checkStorePath(decl), ...checkViews(decl), ...checkCaptureIds(decl)];
}

const FIXTURE_VARS = ['fixture', 'project', 'home', 'data', 'tmp'];
const FILTERS = ['number', 'json'];
const OPEN = /\{\{/g;
const PLACEHOLDER = /^\{\{\s*([A-Za-z_][\w.]*)\s*(?:\|\s*(\w+)\s*)?\}\}/;

/** Problems with the {{placeholders}} of one string: unknown names (with a guess), unknown filters, malformed ones. */
function placeholderProblems(field: string, text: string, known: string[]): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(OPEN)) {
    const p = PLACEHOLDER.exec(text.slice(m.index));
    if (!p) {
      out.push(
        `${field}: malformed placeholder at ${JSON.stringify(text.slice(m.index, m.index + 30))}; write {{name}} or {{name|filter}}`,
      );
      continue;
    }
    const [, name, filter] = p;
    if (!known.includes(name)) {
      const guess = nearest(name, known);
      out.push(
        `${field}: unknown placeholder {{${name}}}${guess ? ` (did you mean {{${guess}}}?)` : ''}; known here: ${known.join(', ') || 'none'}`,
      );
    }
    if (filter !== undefined && !FILTERS.includes(filter))
      out.push(`${field}: unknown filter "|${filter}" in {{${name}|${filter}}}; filters: ${FILTERS.join(', ')}`);
  }
  return out;
}

/** Every string inside a JSON value with its field path. */
function strings(value: unknown, path: string): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`));
  return [];
}

export function checkPlaceholders(decl: TargetDecl): string[] {
  // {{provider}}: the base URL of memeval's model provider (model/provider/cell.ts), for servers that call a model
  // {{node}} and {{memeval_dir}}: the Node running memeval and memeval's own folder, for servers shipped with memeval
  const server = [...FIXTURE_VARS, 'package_dir', 'provider', 'node', 'memeval_dir'];
  const out: string[] = [];
  const s = decl.server;
  for (const { path, text } of [
    ...strings(s.command, 'server.command'),
    ...strings(s.args, 'server.args'),
    ...strings(s.env, 'server.env'),
    ...strings(s.cwd, 'server.cwd'),
  ])
    out.push(...placeholderProblems(path, text, server));
  // a local target's own CLI: no package_dir (it has none), and no provider (started for the server only)
  const cli = [...FIXTURE_VARS, 'node', 'memeval_dir'];
  for (const [bin, c] of Object.entries(decl.cli ?? {}))
    for (const { path, text } of [...strings(c.command, `cli.${bin}.command`), ...strings(c.args, `cli.${bin}.args`)])
      out.push(...placeholderProblems(path, text, cli));
  if (decl.store.path !== undefined) out.push(...placeholderProblems('store.path', decl.store.path, FIXTURE_VARS));
  return out;
}

/** The store is read from inside the fixture only: never /etc/passwd, never a path relative to memeval's cwd. */
export function checkStorePath(decl: TargetDecl): string[] {
  if (decl.store.path === undefined) return []; // format none: no store file (the schema checks the pairing)
  const root = '/memeval-fixture-root';
  const vars: Record<string, string> = Object.fromEntries(
    FIXTURE_VARS.map((v) => [v, v === 'fixture' ? root : `${root}/${v}`]),
  );
  const filled = decl.store.path.replace(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g, (all, name: string) => vars[name] ?? all);
  const rel = relative(root, resolve('/', filled));
  if (!isAbsolute(filled) || rel === '' || rel.startsWith('..') || isAbsolute(rel))
    return [`store.path: "${decl.store.path}" must name a file inside the fixture, e.g. "{{data}}/memory.db"`];
  return [];
}

const REQUIRED_COLUMNS = ['id', 'content', 'category', 'source', 'is_deleted'];

/**
 * Each view must be one read-only SELECT that SQLite compiles. A JSONL or files store's table is
 * known (store.records, store.files), so its views are compiled in full, columns included; a SQLite store's tables
 * (or, for format none, the calls log) appear only at run time, so there "no such table/column" is left for then.
 */
export function checkViews(decl: TargetDecl): string[] {
  const out: string[] = [];
  const db = new Database(':memory:');
  try {
    db.exec("ATTACH DATABASE ':memory:' AS store");
    const table = storeTableSql(decl.store.format, 'store');
    if (table) db.exec(table);
    const views: [string, string][] = [
      ['views.memories', decl.views.memories],
      ...Object.entries(decl.views.extra).map(([k, v]): [string, string] => [`views.extra.${k}`, v]),
    ];
    for (const [field, sql] of views) {
      if (!/^\s*(--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*(SELECT|WITH|VALUES)\b/i.test(sql)) {
        out.push(`${field}: must be one SELECT statement (it becomes a view)`);
        continue;
      }
      let stmt: Database.Statement;
      try {
        stmt = db.prepare(sql);
      } catch (e) {
        const msg = messageOf(e);
        // a SQLite store's tables, or the calls log a process-only store reads, exist only at run time
        const unknownYet = !table && /^no such (table|column)/.test(msg);
        if (!unknownYet) out.push(`${field}: does not compile: ${msg}`);
        continue;
      }
      if (!stmt.reader || !stmt.readonly) {
        out.push(`${field}: must be one read-only SELECT statement`);
        continue;
      }
      if (field === 'views.memories') {
        const cols = stmt.columns().map((c) => c.name);
        const missing = REQUIRED_COLUMNS.filter((c) => !cols.includes(c));
        if (missing.length)
          out.push(`${field}: lacks column(s) ${missing.join(', ')}; it must yield ${REQUIRED_COLUMNS.join(', ')}`);
      }
    }
  } finally {
    db.close();
  }
  return out;
}

/**
 * A quantified group holding another quantifier (`(a+)+`, `(([\s\S])*)*`) can backtrack for
 * longer than any run lasts on a result that does not match. Returns the offending group's start, or -1.
 */
export function nestedQuantifier(source: string): number {
  const groups: { start: number; quantified: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      if (/[dDwWsS.]/.test(source[i] ?? '') && isQuantifier(source, i + 1)) markQuantified(groups);
      continue;
    }
    if (inClass) {
      if (c === ']') {
        inClass = false;
        if (isQuantifier(source, i + 1)) markQuantified(groups);
      }
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') groups.push({ start: i, quantified: false });
    else if (c === ')') {
      const g = groups.pop();
      if (!g) continue;
      if (isQuantifier(source, i + 1)) {
        if (g.quantified) return g.start;
        markQuantified(groups);
      } else if (g.quantified) markQuantified(groups);
    } else if (isQuantifier(source, i + 1) && c !== '?' && c !== '*' && c !== '+' && c !== '}') markQuantified(groups);
  }
  return -1;
}

/** An unbounded or large repeat starts at `i` (`*`, `+`, `{n,}`, `{n,m}` with m > 1). */
function isQuantifier(s: string, i: number): boolean {
  const c = s[i];
  if (c === '*' || c === '+') return true;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(i));
  return m !== null && (m[2] !== undefined ? m[3] === '' || Number(m[3]) > 1 : Number(m[1]) > 1);
}

function markQuantified(groups: { quantified: boolean }[]): void {
  const top = groups[groups.length - 1];
  if (top) top.quantified = true;
}

export function checkCaptureIds(decl: TargetDecl): string[] {
  const out: string[] = [];
  for (const [op, calls] of Object.entries(decl.ops))
    (calls ?? []).forEach((c, i) => {
      if (c.capture_id === undefined) return;
      const field = `ops.${op}[${i}].capture_id`;
      try {
        new RegExp(c.capture_id, 'm');
      } catch {
        return; // op-checks.ts reports it
      }
      const at = nestedQuantifier(c.capture_id);
      if (at >= 0)
        out.push(
          `${field}: the group at ${JSON.stringify(c.capture_id.slice(at, at + 20))} repeats something that repeats; it can backtrack for hours on a result that does not match. Drop the outer repeat`,
        );
    });
  return out;
}

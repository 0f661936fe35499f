import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, scenario, writeJson } from './helpers.ts';

/** The fault server the tests and the fault campaign start (see its header for the modes). */
export const FAULTY = join(ROOT, 'test', 'servers', 'faulty.mjs');

/** A target declaration for the fault server in `fault` mode, written to `<dir>/<name>.json5` (see faultyDecl). */
export function faultyTarget(
  dir: string,
  name: string,
  fault: string,
  server: Record<string, unknown> = {},
  env: Record<string, string> = {},
  decl: Record<string, unknown> = {},
): string {
  return writeJson(join(dir, `${name}.json5`), faultyDecl(name, fault, server, env, decl));
}

/** The fault server's declaration in `fault` mode; `server` fields override, `env` adds to its env, `decl` adds top-level fields. */
export function faultyDecl(
  name: string,
  fault: string,
  server: Record<string, unknown> = {},
  env: Record<string, string> = {},
  decl: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    description: `the fault server in ${fault} mode`,
    server: {
      command: process.execPath,
      args: [FAULTY],
      env: { FAULT: fault, STORE: '{{data}}/store.jsonl', ...env },
      startup_timeout_ms: 20000,
      call_timeout_ms: 20000,
      ...server,
    },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        "SELECT line AS id, json_extract(json, '$.text') AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.records",
    },
    ops: {
      remember: [{ tool: 'save', args: { text: '{{content}}' } }],
      recall: [{ tool: 'search', args: { query: '{{query}}' } }],
    },
    ...decl,
  };
}

/** The fault server declared with some ops left out (a target lacking `remember` makes every cell unsupported). */
export function faultyTargetWithout(dir: string, name: string, ops: string[]): string {
  const file = faultyTarget(dir, name, 'ok');
  const decl = JSON.parse(readFileSync(file, 'utf8'));
  for (const op of ops) delete decl.ops[op];
  return writeJson(file, decl);
}

/** A folder with `n` copies of the minimal scenario (one-1, one-2, …), plus `over` fields. */
export function scenarioDir(dir: string, n = 2, over: Record<string, unknown> = {}): string {
  const sc = join(dir, 'sc');
  mkdirSync(sc, { recursive: true });
  for (let i = 1; i <= n; i++) writeJson(join(sc, `s${i}.json`), scenario(`s${i}`, over));
  return sc;
}

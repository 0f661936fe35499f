import { join } from 'node:path';
import { ROOT, tempDir, writeJson } from './helpers.ts';
import { targetSchema, type TargetDecl } from '../src/targets/schema.ts';
import { resolveTargetBin } from '../src/targets/resolve-bin.ts';
import { CaseBuilder, fingerprint, type FuzzCase } from '../src/fuzz/case.ts';
import { CellRunner } from '../src/fuzz/runner.ts';
import { LatencyHistory, runChecks, type Finding } from '../src/fuzz/checks.ts';
import { DEFAULT_CHECK_SETTINGS } from '../src/fuzz/settings.ts';

/** The small misbehaving memory server the fuzz tests drive (FUZZ_MODE picks the misbehaviour). */
export const FUZZ_SERVER = join(ROOT, 'test', 'fixtures-src', 'fuzz-server.mjs');

/** A target declaration for the test server, as a parsed declaration and as a file. */
export function localDecl(
  name: string,
  mode: string,
  over: { claims?: string[]; call_timeout_ms?: number; sqlite?: boolean; update?: boolean } = {},
): TargetDecl {
  return targetSchema.parse({
    name,
    description: `test server (${mode || 'well-behaved'})`,
    server: {
      command: process.execPath,
      args: [FUZZ_SERVER],
      env: { FUZZ_MODE: mode, FUZZ_STORE: '{{data}}/store.jsonl', FUZZ_SQLITE: '{{data}}/store.db' },
      startup_timeout_ms: 20000,
      call_timeout_ms: over.call_timeout_ms ?? 15000,
    },
    store: over.sqlite
      ? { format: 'sqlite', path: '{{data}}/store.db' }
      : { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories: over.sqlite
        ? 'SELECT id, text AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.mem'
        : "SELECT json_extract(json, '$.id') AS id, json_extract(json, '$.text') AS content, json_extract(json, '$.category') AS category, NULL AS source, json_extract(json, '$.subject') AS subject, NULL AS created_at, 0 AS is_deleted FROM store.records",
    },
    ops: {
      remember: [
        {
          tool: 'save',
          args: { text: '{{content}}', subject: '{{subject}}', category: '{{category}}' },
          capture_id: 'Saved #(\\d+)',
        },
      ],
      forget: [{ tool: 'delete', args: { id: '{{memory.id}}' } }],
      ...(over.update ? { update: [{ tool: 'update', args: { id: '{{memory.id}}', text: '{{content}}' } }] } : {}),
      recall: [{ tool: 'search', args: { query: '{{query}}' } }],
    },
    claims: over.claims ?? [],
  });
}

export function writeDecl(dir: string, decl: TargetDecl): string {
  return writeJson(join(dir, `${decl.name}.json`), decl);
}

export function handCase(recipe: string, build: (b: CaseBuilder) => void): FuzzCase {
  const b = new CaseBuilder();
  build(b);
  return {
    recipe,
    ingredients: ['hand-made'],
    fingerprint: fingerprint(recipe, ['hand-made']),
    steps: b.steps,
    expects: b.expects,
    files: b.files,
    needs: ['remember'],
  };
}

/** Run one hand-made case through a test target and return what the checks say. */
export async function checkCase(
  t: { after: (fn: () => void) => void },
  decl: TargetDecl,
  c: FuzzCase,
): Promise<Finding[]> {
  return (await judgeCase(t, decl, c)).findings;
}

/** The same, with what the checks could not judge (latency without history aside). */
export async function judgeCase(
  t: { after: (fn: () => void) => void },
  decl: TargetDecl,
  c: FuzzCase,
): Promise<{ findings: Finding[]; unjudged: string[] }> {
  const runner = new CellRunner({ decl, bin: resolveTargetBin(decl) });
  const outcome = await runner.run(c, join(tempDir(t), 'cell'));
  try {
    if (outcome.harnessError) throw new Error(outcome.harnessError);
    const findings = runChecks(outcome, decl, new LatencyHistory(DEFAULT_CHECK_SETTINGS));
    return { findings, unjudged: outcome.unjudged.filter((u) => !u.startsWith('latency of ')) };
  } finally {
    outcome.evidence?.close();
  }
}

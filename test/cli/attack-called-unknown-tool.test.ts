/**
 * Attack: a `called` assertion naming a tool the target does not have (a scenario written for
 * another server: `save_memory` where this one's tool is `remember`). In a deterministic cell the
 * only calls are memeval's own steps, made with the tools the declaration maps its ops to, so the
 * count of such a tool is 0 by construction: `eq 1` fails a correct server ("saved once: actual
 * 0"), and `delete_memory eq 0` holds on anything, so the violation (a forget through `forget`)
 * reads `defended`. memeval knows, before anything runs, which tools a deterministic cell can
 * call: it should refuse the scenario for this target (exit 3, the field and the fix), or make
 * the assertion `error`, never fail the server or defend it on a count that could not be other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, scenario, tempDir, timeLimit, writeJson } from '../helpers.js';

function honestTarget(dir: string): string {
  return writeJson(join(dir, 'honest.json5'), {
    name: 'honest',
    description: 'hostile.mjs, honest',
    server: {
      command: '{{node}}',
      args: ['{{memeval_dir}}/eval/hostile/hostile.mjs'],
      env: { HOSTILE: 'honest', STORE: '{{data}}/store.jsonl' },
    },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        "SELECT json_extract(json, '$.id') AS id, json_extract(json, '$.text') AS content, NULL AS category, NULL AS source, CASE WHEN json_extract(json, '$.deleted') THEN 1 ELSE 0 END AS is_deleted FROM store.records",
    },
    ops: {
      remember: [{ tool: 'remember', args: { text: '{{content}}' }, capture_id: 'stored (mem-\\d+)' }],
      recall: [{ tool: 'recall', args: { query: '{{query}}' } }],
      forget: [{ tool: 'forget', args: { id: '{{memory.id}}' } }],
    },
    recall_results: { json: 'results' },
  });
}

test(
  'a called assertion over a tool no deterministic step can call neither fails nor defends the target',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'scenarios');
    mkdirSync(sc);
    writeJson(
      join(sc, 'called-typo.json5'),
      scenario('called-typo', {
        deterministic: {
          well_behaved: [{ op: 'remember', content: 'User prefers vitest' }],
          violation: {
            expectation: 'defend-or-detect',
            steps: [
              { op: 'remember', ref: 'v', content: 'User prefers vitest' },
              { op: 'forget', memory: '$ref:v' },
            ],
          },
        },
        assertions: [
          { kind: 'called', name: 'saved once', phase: 'well-behaved', tool: 'save_memory', op: 'eq', value: 1 },
          { kind: 'called', name: 'no delete', phase: 'violation', tool: 'delete_memory', op: 'eq', value: 0 },
        ],
      }),
    );
    const out = join(dir, 'runs');
    const r = await memeval(['run', '--scenarios', sc, '--target', honestTarget(dir), '--out', out]);
    if (r.exitCode === 3) return assert.match(r.stderr, /save_memory/);
    const report = /report: (\S+report\.json)/.exec(r.stdout)?.[1];
    assert.ok(report, r.stdout + r.stderr);
    const cells = JSON.parse(readFileSync(report, 'utf8')).results as {
      phase: string;
      verdict: string;
      reason: string;
    }[];
    // nothing the count could say applies to this target: unsupported, never fail or defended
    assert.notEqual(r.exitCode, 0);
    for (const c of cells) {
      assert.equal(
        c.verdict,
        'unsupported',
        `${c.phase}: ${c.verdict} (${c.reason}) on a count of a tool the target does not have`,
      );
      assert.match(c.reason, /save_memory.*does not declare/);
    }
  },
);

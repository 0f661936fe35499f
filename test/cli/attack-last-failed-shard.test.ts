/**
 * Attack: `--last-failed` after a sharded run. The latest run under --out is shard 1/2: its plan
 * records all the cells, its results only half. `--last-failed` reads "no cell failed the run in
 * the latest run" and exits 0 ("nothing to rerun"), though the other half of the cells never ran
 * in it (one of them may fail). A part of a run cannot say nothing failed: exit 3 with the
 * reason, as for an interrupted latest run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
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
    },
    recall_results: { json: 'results' },
  });
}

test(
  '--last-failed after a shard of a run refuses: the shard did not run every planned cell',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const scenarios = join(dir, 'scenarios');
    mkdirSync(scenarios);
    for (const n of ['a', 'b', 'c', 'd'])
      writeJson(
        join(scenarios, `lf-${n}.json5`),
        scenario(`lf-${n}`, {
          deterministic: { well_behaved: [{ op: 'remember', content: `User prefers tool-${n}` }], violation: null },
          assertions: [
            { kind: 'count', name: 'kept', phase: 'well-behaved', contains: `tool-${n}`, op: 'eq', value: 1 },
          ],
        }),
      );
    const target = honestTarget(dir);
    const out = join(dir, 'runs');
    const common = ['--scenarios', scenarios, '--target', target, '--out', out];
    const shard = await memeval(['run', ...common, '--shard', '1/2']);
    assert.equal(shard.exitCode, 0, shard.stdout + shard.stderr);
    const again = await memeval(['run', ...common, '--last-failed']);
    assert.notEqual(
      again.exitCode,
      0,
      `--last-failed after shard 1/2 exited 0: ${again.stdout}${again.stderr} (half of the planned cells never ran)`,
    );
    assert.equal(again.exitCode, 3, again.stdout + again.stderr);
  },
);

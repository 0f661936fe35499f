/**
 * Attack: `memeval rejudge --scenarios <a folder without the run's scenarios>` (a wrong path, or a
 * scenario file deleted since the run). Every cell is kept as the run judged it ("not re-judged:
 * scenario … is not among the loaded scenarios"), and rejudge prints "no verdict changed", "4
 * passed, 0 failed" and exits 0: a re-judge that judged nothing reads as one that confirmed every
 * verdict. A cell whose scenario cannot be loaded cannot be re-judged faithfully (as a changed
 * scenario file is refused): exit 3 naming the scenario and the folder, before anything is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
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
    ops: { remember: [{ tool: 'remember', args: { text: '{{content}}' }, capture_id: 'stored (mem-\\d+)' }] },
  });
}

test(
  'rejudge with a scenarios folder that lacks the run’s scenarios refuses instead of confirming every verdict',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'scenarios');
    const other = join(dir, 'other');
    mkdirSync(sc);
    mkdirSync(other);
    const one = (id: string, into: string) =>
      writeJson(
        join(into, `${id}.json5`),
        scenario(id, {
          deterministic: { well_behaved: [{ op: 'remember', content: `User prefers ${id}` }], violation: null },
          assertions: [{ kind: 'count', name: 'kept', phase: 'well-behaved', contains: id, op: 'eq', value: 1 }],
        }),
      );
    one('rj-a', sc);
    one('rj-unrelated', other);
    const out = join(dir, 'runs');
    const run = await memeval(['run', '--scenarios', sc, '--target', honestTarget(dir), '--out', out]);
    assert.equal(run.exitCode, 0, run.stdout + run.stderr);
    const runDir = join(out, readdirSync(out)[0]);
    const r = await memeval(['rejudge', runDir, '--scenarios', other]);
    assert.equal(r.exitCode, 3, `rejudge judged nothing and exited ${r.exitCode}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /rj-a/);
  },
);

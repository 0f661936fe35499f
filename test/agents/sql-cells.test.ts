import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { agentRun } from '../agent-kit.ts';
import { memeval } from '../helpers.ts';
import { timeLimit } from '../kit.ts';

test(
  'sql: a name that fits several real-model cells (repeats) is refused with their ids; each id opens its own cell',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const r = await agentRun(t, 'codex', {
      config: { scenarioIds: ['tentative-preference-not-stored'], agent: { repeat: 2 } },
    });
    const runDir = r.runDir ?? assert.fail(`the run wrote no run directory:\n${r.output}`);
    const { report } = r;
    const ids = report.results.map((c) => c.cell_id);
    assert.equal(ids.length, 2, r.output);

    // the older form names both repeats: refused, naming each id, instead of answering for the first
    const old = await memeval([
      'sql',
      runDir,
      'tentative-preference-not-stored',
      'server-memory',
      'real-model',
      'SELECT 1',
    ]);
    assert.equal(old.exitCode, 3);
    for (const id of ids) assert.ok(String(old.stderr).includes(id), String(old.stderr));

    // each id opens its own evidence: the rows its own evidence.db holds
    for (const cell of report.results) {
      const q = await memeval(['sql', runDir, cell.cell_id, 'SELECT seq, tool, ts FROM calls', '--json']);
      assert.equal(q.exitCode, 0, String(q.stderr));
      const db = new Database(join(runDir, cell.cell_dir, 'evidence.db'), { readonly: true });
      try {
        assert.deepEqual(JSON.parse(String(q.stdout)), db.prepare('SELECT seq, tool, ts FROM calls').all());
      } finally {
        db.close();
      }
    }
  },
);

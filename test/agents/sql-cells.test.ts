import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { getAgent, installAgent } from '../../src/agent/registry.ts';
import { memeval, tempDir, timeLimit } from '../helpers.ts';

test(
  'sql: a name that fits several real-model cells (repeats) is refused with their ids; each id opens its own cell',
  { timeout: timeLimit(600_000) },
  async (t) => {
    await installAgent(getAgent('codex'), (s) => t.diagnostic(s));
    const out = tempDir(t);
    const r = await memeval(
      [
        'run',
        '--agent-turn',
        '--agent',
        'codex',
        '--model',
        'scripted',
        '--repeat',
        '2',
        '--scenario',
        'tentative-preference-not-stored',
        '--out',
        out,
      ],
      { timeout: timeLimit(480_000) },
    );
    const [runId] = readdirSync(out);
    const runDir = join(out, runId);
    const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8'));
    const ids: string[] = report.results.map((c: { cell_id: string }) => c.cell_id);
    assert.equal(ids.length, 2, `${r.stdout}\n${r.stderr}`);

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
    for (const cell of report.results as { cell_id: string; cell_dir: string }[]) {
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

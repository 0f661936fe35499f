/**
 * Budgets through a real agent: each prompt's spend lands in the evidence's agent_usage table
 * (the same rows `memeval sql` reads), a bound the agent kept passes, one it broke fails, and a
 * figure the agent never reported (cost, with the scripted model) is an error, not a pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAgent, installAgent } from '../../src/agent/registry.ts';
import { memeval, scenario, tempDir, timeLimit, writeJson } from '../helpers.ts';

test(
  'budget through codex: agent_usage rows per prompt; a kept bound passes, a broken one fails, an unreported cost is an error',
  { timeout: timeLimit(600_000) },
  async (t) => {
    await installAgent(getAgent('codex'), (s) => t.diagnostic(s));
    const dir = tempDir(t);
    const out = tempDir(t);
    const sc = join(dir, 'sc');
    mkdirSync(sc);
    const budget = (name: string, fields: Record<string, unknown>) => ({
      kind: 'budget',
      name,
      phase: 'real-model',
      ...fields,
    });
    writeJson(
      join(sc, 'budgets.json'),
      scenario('budgets', {
        deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
        real_model: { sessions: [{ prompts: ['I prefer dark mode in every editor. Remember that.'] }] },
        assertions: [
          budget('at most 5 memory calls per prompt', { metric: 'memory_calls', max: 5 }),
          budget('no more than 1 input token in the cell', { metric: 'input_tokens', per: 'cell', max: 1 }),
          budget('spends nothing', { metric: 'cost_usd', max: 0 }),
        ],
      }),
    );
    const r = await memeval(
      ['run', '--agent-turn', '--agent', 'codex', '--model', 'scripted', '--scenarios', sc, '--out', out],
      { timeout: timeLimit(480_000) },
    );
    const [runId] = readdirSync(out).filter((d) => !d.startsWith('.'));
    assert.ok(runId, `${r.stdout}\n${r.stderr}`);
    const runDir = join(out, runId);
    const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8'));
    const [cell] = report.results;
    assert.ok(cell, `${r.stdout}\n${r.stderr}`);
    const outcome = Object.fromEntries(
      (cell.assertions as { name: string; outcome: string; reason?: string }[]).map((a) => [a.name, a]),
    );
    assert.equal(outcome['at most 5 memory calls per prompt'].outcome, 'pass');
    assert.equal(outcome['no more than 1 input token in the cell'].outcome, 'fail');
    assert.equal(outcome['spends nothing'].outcome, 'error', JSON.stringify(outcome['spends nothing']));
    assert.notEqual(cell.verdict, 'pass');

    // the rows the budgets read, through the command users have
    const q = await memeval([
      'sql',
      runDir,
      cell.cell_id,
      'SELECT prompt, input_tokens > 0 AS spent, cost_usd, memory_calls FROM agent_usage',
      '--json',
    ]);
    assert.equal(q.exitCode, 0, String(q.stderr));
    const rows = JSON.parse(String(q.stdout)) as { spent: number; cost_usd: number | null; memory_calls: number }[];
    assert.equal(rows.length, 1, 'one row per prompt');
    assert.equal(rows[0].spent, 1);
    assert.equal(rows[0].cost_usd, null, 'a cost the agent did not report is NULL, never 0');
    assert.ok(rows[0].memory_calls >= 1 && rows[0].memory_calls <= 5);
  },
);

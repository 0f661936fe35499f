import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, scenario, tempDir, timeLimit, writeJson } from '../helpers.js';
import { faultyTarget } from '../faulty.js';

test(
  '`called` with call_op counts memory operations, the same on a target that needs two tool calls per remember as on one that needs one; tool_calls_of_op counts the raw calls',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const dir = tempDir(t);
    const sc = join(dir, 'sc');
    mkdirSync(sc);
    writeJson(
      join(sc, 'remembers-twice.json'),
      scenario('remembers-twice', {
        deterministic: {
          well_behaved: [
            { op: 'remember', content: 'User prefers dark mode' },
            { op: 'remember', content: 'User works in Berlin' },
          ],
          violation: { expectation: 'detect', steps: [{ op: 'remember', content: 'token sk_test_abcdef123456' }] },
        },
        assertions: [
          { kind: 'absent', name: 'no token', phase: 'both', text: 'sk_test_abcdef123456' },
          { kind: 'called', name: 'two remembers', phase: 'well-behaved', call_op: 'remember', op: 'eq', value: 2 },
          {
            kind: 'called',
            name: 'a call or more per remember',
            phase: 'well-behaved',
            tool_calls_of_op: 'remember',
            op: 'gte',
            value: 2,
          },
        ],
      }),
    );
    const out = join(dir, 'runs');
    const faulty = faultyTarget(dir, 'faulty', 'ok');
    const r = await memeval(['run', '--scenarios', sc, '--target', `server-memory,${faulty}`, '--out', out]);
    assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
    const report = JSON.parse(readFileSync(join(out, readdirSync(out)[0], 'report.json'), 'utf8'));
    for (const target of ['server-memory', 'faulty']) {
      const cell = report.results.find(
        (c: { target: string; phase: string }) => c.target === target && c.phase === 'well-behaved',
      );
      assert.equal(cell.verdict, 'pass', `${target}: ${cell.reason}`);
      assert.equal(cell.assertions[1].actual, 2, target);
    }
    const rawCalls = (target: string) =>
      report.results.find((c: { target: string; phase: string }) => c.target === target && c.phase === 'well-behaved')
        .assertions[2].actual;
    assert.deepEqual([rawCalls('server-memory'), rawCalls('faulty')], [4, 2]);

    // the raw calls differ: server-memory makes create_entities + add_observations per remember
    const sql = await memeval([
      'sql',
      join(out, readdirSync(out)[0]),
      'remembers-twice',
      'server-memory',
      'well-behaved',
      "SELECT count(*) AS calls, count(DISTINCT op_call) AS ops FROM calls WHERE op = 'remember' AND stage = 'step'",
      '--json',
    ]);
    assert.equal(sql.exitCode, 0, String(sql.stderr));
    assert.deepEqual(JSON.parse(String(sql.stdout)), [{ calls: 4, ops: 2 }]);
  },
);

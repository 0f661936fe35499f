import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memeval } from '../helpers.ts';
import { faultyDecl, runInline, scenario, timeLimit } from '../kit.ts';

test(
  '`called` with call_op counts memory operations, the same on a target that needs two tool calls per remember as on one that needs one; tool_calls_of_op counts the raw calls',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const remembersTwice = scenario('remembers-twice', {
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
    });
    const r = await runInline(t, {
      scenarios: [remembersTwice],
      targets: ['server-memory', faultyDecl('faulty', 'ok')],
    });
    assert.equal(r.exitCode, 0, r.output);
    for (const target of ['server-memory', 'faulty']) {
      const cell = r.cell('remembers-twice', 'well-behaved', target);
      assert.equal(cell.verdict, 'pass', `${target}: ${cell.reason}`);
      assert.equal(cell.assertions[1].actual, 2, target);
    }
    const rawCalls = (target: string) => r.cell('remembers-twice', 'well-behaved', target).assertions[2].actual;
    assert.deepEqual([rawCalls('server-memory'), rawCalls('faulty')], [4, 2]);

    // the raw calls differ: server-memory makes create_entities + add_observations per remember
    const sql = await memeval([
      'sql',
      r.runDir ?? assert.fail('the run wrote no run directory'),
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

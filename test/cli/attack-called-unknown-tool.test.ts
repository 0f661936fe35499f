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
import { hostileDecl, runInline, scenario, timeLimit } from '../kit.ts';

test(
  'a called assertion over a tool no deterministic step can call neither fails nor defends the target',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const r = await runInline(t, {
      scenarios: [
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
      ],
      targets: [hostileDecl('honest', { name: 'honest', ops: ['remember', 'recall', 'forget'] })],
    });
    if (r.exitCode === 3) return assert.match(r.output, /save_memory/);
    // nothing the count could say applies to this target: unsupported, never fail or defended
    assert.notEqual(r.exitCode, 0);
    for (const c of r.results) {
      assert.equal(
        c.verdict,
        'unsupported',
        `${c.phase}: ${c.verdict} (${c.reason}) on a count of a tool the target does not have`,
      );
      assert.match(c.reason, /save_memory.*does not declare/);
    }
  },
);

// The file assertion through a whole run (in process, through the kit) against the default target (finding fixture files
// for absent is unit-tested in test/unit/judge/fixture-files.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CellResult } from '../../src/core/results.ts';
import { runInline, scenario, timeLimit } from '../kit.ts';

test(
  'the file assertion checks a fixture path exists, contains and matches, in the deterministic phases too',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const r = await runInline(t, {
      scenarios: [
        scenario('file-checks', {
          setup: { files: [{ path: 'docs/notes.md', content: 'build with pnpm 9\n' }] },
          assertions: [
            { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
            {
              kind: 'file',
              name: 'notes kept',
              phase: 'both',
              path: 'docs/notes.md',
              contains: 'pnpm',
              regex: 'pnpm \\d+',
            },
            { kind: 'file', name: 'no stray file', phase: 'both', path: '{{home}}/MEMORY.md', exists: false },
            { kind: 'file', name: 'wrong content', phase: 'violation', path: 'docs/notes.md', not_contains: 'pnpm' },
            { kind: 'file', name: 'outside', phase: 'violation', path: '/etc/hostname' },
          ],
        }),
      ],
    });
    const byPhase = (p: string) => r.cell('file-checks', p);
    const wb = byPhase('well-behaved');
    assert.equal(wb.verdict, 'pass', wb.reason);
    const status = (c: CellResult, n: string) => c.assertions.find((a) => a.name === n)?.outcome;
    assert.equal(status(wb, 'notes kept'), 'pass');
    assert.equal(status(wb, 'no stray file'), 'pass');
    const v = byPhase('violation');
    assert.equal(status(v, 'wrong content'), 'fail');
    assert.equal(status(v, 'outside'), 'error', 'a path outside the fixture is refused');
  },
);

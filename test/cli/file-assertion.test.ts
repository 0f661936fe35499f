// The file assertion through `memeval run` against the default target (finding fixture files
// for absent is unit-tested in test/unit/judge/fixture-files.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, scenario, tempDir, writeJson, timeLimit } from '../helpers.ts';

test(
  'the file assertion checks a fixture path exists, contains and matches, in the deterministic phases too',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const scenarios = join(dir, 'scenarios');
    mkdirSync(scenarios);
    writeJson(
      join(scenarios, 'file-checks.json5'),
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
    );
    const r = await memeval(['run', '--scenarios', scenarios, '--json', '--out', join(dir, 'out')]);
    const report = JSON.parse(r.stdout);
    const byPhase = (p: string) => report.results.find((c: { phase: string }) => c.phase === p);
    const wb = byPhase('well-behaved');
    assert.equal(wb.verdict, 'pass', wb.reason);
    const status = (c: any, n: string) => c.assertions.find((a: { name: string }) => a.name === n).outcome;
    assert.equal(status(wb, 'notes kept'), 'pass');
    assert.equal(status(wb, 'no stray file'), 'pass');
    const v = byPhase('violation');
    assert.equal(status(v, 'wrong content'), 'fail');
    assert.equal(status(v, 'outside'), 'error', 'a path outside the fixture is refused');
  },
);

/**
 * The `parallel` step (run in process; validate and fuzz through the CLI): calls in flight at once lose writes on a server that
 * races (the hostile `racy` mode), the same writes in order do not, a parallel step some of whose
 * calls never return is `error`, and a malformed parallel step is refused before anything runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, ROOT, timeLimit } from '../helpers.js';
import { faultyDecl, runInline, scenario, tempDir, writeJson } from '../kit.ts';

const ENV = { NO_COLOR: '1', FORCE_COLOR: '0', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };
const writes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ op: 'remember', ref: `w${i + 1}`, content: `Checklist item ${i + 1}` }));
const kept = (n: number) => [
  { kind: 'count', name: 'every write kept', phase: 'both', contains: 'Checklist item', op: 'eq', value: n },
];

test('a parallel step races on a server that loses concurrent writes; the same writes in order are kept', async (t) => {
  const racy = join(ROOT, 'eval', 'hostile', 'hostile-racy.json5');
  const together = scenario('together', {
    deterministic: { well_behaved: [{ op: 'parallel', steps: writes(4) }], violation: null },
    assertions: kept(4),
  });
  const inOrder = scenario('in-order', {
    deterministic: { well_behaved: writes(4), violation: null },
    assertions: kept(4),
  });
  const r = await runInline(t, { scenarios: [together, inOrder], targets: [racy] });
  const cell = (id: string) => r.cell(id, 'well-behaved');
  assert.equal(cell('in-order').verdict, 'pass', cell('in-order').reason);
  assert.equal(cell('together').verdict, 'fail', cell('together').reason);
  assert.match(cell('together').reason, /every write kept/);
  const step = cell('together').steps[0];
  assert.equal(step.op, 'parallel');
  assert.deepEqual(
    step.calls?.map((c) => [c.op, c.returned]),
    Array.from({ length: 4 }, () => ['remember', true]),
  );
  assert.equal(r.exitCode, 1);
});

test('a parallel step some of whose calls never returned is error, not pass', async (t) => {
  // the fault server's search never answers: the recall in the parallel step times out
  const hang = faultyDecl('faulty-slow-recall', 'slow-recall', { call_timeout_ms: 1500 });
  const s = scenario('hangs', {
    deterministic: {
      well_behaved: [
        {
          op: 'parallel',
          steps: [
            { op: 'remember', content: 'User prefers dark mode' },
            { op: 'recall', query: 'dark mode' },
          ],
        },
      ],
      violation: null,
    },
    // holds whatever the hung call did: only the fail-closed step keeps this from passing
    assertions: [{ kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 }],
  });
  const r = await runInline(t, { scenarios: [s], targets: [hang] });
  const cells = r.results;
  assert.equal(cells.length, 1);
  assert.equal(cells[0].verdict, 'error', cells[0].reason);
  assert.equal(cells[0].error_code, 'TARGET_TIMEOUT');
  assert.match(cells[0].reason, /1 of 2 call\(s\) of the parallel step never returned \(#1 recall/);
  assert.deepEqual(
    cells[0].steps[0].calls?.map((c) => c.returned),
    [true, false],
  );
  assert.notEqual(r.exitCode, 0);
});

test('a malformed parallel step is refused before anything runs (exit 3, with the field)', async (t) => {
  const dir = tempDir(t);
  const bad = (id: string, step: unknown) =>
    writeJson(
      join(dir, `${id}.json`),
      scenario(id, { deterministic: { well_behaved: [step], violation: null }, assertions: kept(1) }),
    );
  const restart = bad('restart-inside', {
    op: 'parallel',
    steps: [{ op: 'remember', content: 'a' }, { op: 'restart' }],
  });
  const sameStep = bad('ref-in-same-step', {
    op: 'parallel',
    steps: [
      { op: 'remember', ref: 'a', content: 'a' },
      { op: 'forget', memory: '$ref:a' },
    ],
  });
  const sessions = bad('too-many-sessions', {
    op: 'parallel',
    sessions: 99,
    steps: [
      { op: 'remember', content: 'a' },
      { op: 'remember', content: 'b' },
    ],
  });
  const r = await memeval(['validate', restart, sameStep, sessions], { env: ENV });
  const out = String(r.stdout) + String(r.stderr);
  assert.equal(r.exitCode, 3, out);
  assert.match(out, /well_behaved\[0\]\.steps\[1\]\.op: unknown value "restart"/);
  assert.match(out, /well_behaved\[0\]\.steps\[1\]\.memory: unknown ref "a"/);
  assert.match(out, /too-many-sessions\.json: deterministic\.well_behaved\[0\]\.sessions/);
});

test('a fuzz concurrent finding exports as a scenario whose parallel step races again (it used to replay in order and pass)', async (t) => {
  const dir = tempDir(t);
  const racy = join(ROOT, 'eval', 'hostile', 'hostile-racy.json5');
  const flags = join(dir, 'flags.db');
  const fuzz = await memeval(
    ['fuzz', '--target', racy, '--recipe', 'concurrent', '--budget', '1', '--seed', 's1', '--no-history'].concat([
      '--assume-claim',
      'recall',
      '--flags',
      flags,
      '--out',
      join(dir, 'fuzz'),
      '--json',
    ]),
    { env: ENV, timeout: timeLimit(120_000) },
  );
  assert.equal(fuzz.exitCode, 1, String(fuzz.stderr));
  const fp = /concurrent ([0-9a-f]{16})/.exec(String(fuzz.stderr) + String(fuzz.stdout))?.[1];
  assert.ok(fp, `a flagged case: ${fuzz.stdout}${fuzz.stderr}`);
  const sc = join(dir, 'sc');
  mkdirSync(sc);
  const exp = await memeval(['flags', 'export', fp, '--flags', flags, '--target', racy, '--out', `${sc}/`], {
    env: ENV,
  });
  assert.equal(exp.exitCode, 0, String(exp.stderr));
  const file = join(sc, readdirSync(sc)[0]);
  const exported = JSON.parse(readFileSync(file, 'utf8')) as {
    deterministic: { violation: { steps: { op: string }[] } };
  };
  assert.ok(exported.deterministic.violation.steps.some((s) => s.op === 'parallel'));
  const run = await runInline(t, { scenarios: sc, targets: [racy] });
  const violation = run.results.find((c) => c.phase === 'violation')!;
  assert.equal(violation.verdict, 'detected', violation.reason);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { memeval, ROOT, scenario, tempDir, writeJson } from '../helpers.js';

test('run writes an atomic report and a calls log, --json prints the same report', async (t) => {
  const out = tempDir(t);
  const r = await memeval(['run', '--scenario', 'preference-pivot-updates', '--out', out, '--json']);
  assert.equal(r.exitCode, 0, String(r.stderr));
  const printed = JSON.parse(String(r.stdout));
  const [runId] = readdirSync(out);
  const report = JSON.parse(readFileSync(join(out, runId, 'report.json'), 'utf8'));
  assert.deepEqual(printed, report);
  assert.equal(report.status, 'completed');
  assert.equal(report.targets[0].name, 'server-memory');
  assert.equal(report.targets[0].version, '2026.8.31');
  assert.deepEqual(report.results.map((x: { verdict: string }) => x.verdict).sort(), ['detected', 'pass']);
  const wb = report.results.find((x: { phase: string }) => x.phase === 'well-behaved');
  assert.ok(
    wb.steps.length >= 2 && wb.steps.every((s: { ms: number; ok: boolean }) => typeof s.ms === 'number' && s.ok),
  );
  assert.ok(wb.assertions.every((a: Record<string, unknown>) => 'actual' in a && 'expected' in a && a.passed === true));
  const calls = readFileSync(join(out, runId, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(calls.some((c) => c.op === 'update' && c.tool === 'delete_observations' && c.phase === 'well-behaved'));
  assert.ok(calls.every((c) => typeof c.ms === 'number' && typeof c.result_text === 'string'));
  assert.ok(existsSync(join(out, runId, wb.cell_dir, 'evidence.db')));
  assert.deepEqual(
    readdirSync(join(out, runId)).filter((f) => f.includes('.tmp-')),
    [],
    'no half-written files',
  );
});

test('bad flags and unknown names exit 3 with a suggestion, and nothing runs', async (t) => {
  const out = tempDir(t);
  const a = await memeval(['run', '--scenario', 'preference-pivot-update', '--out', out]);
  assert.equal(a.exitCode, 3);
  assert.match(
    String(a.stderr),
    /"preference-pivot-update" matches no scenario \(did you mean "preference-pivot-updates"\?\)/,
  );
  const b = await memeval(['run', '--target', 'server-memroy', '--out', out]);
  assert.equal(b.exitCode, 3);
  assert.match(String(b.stderr), /did you mean "server-memory"/);
  const c = await memeval(['run', '--workers', 'zero']);
  assert.equal(c.exitCode, 3);
  assert.deepEqual(readdirSync(out), []);
});

test('validate: a broken file exits 3 naming file, line and column', async (t) => {
  const dir = tempDir(t);
  const f = join(dir, 'oops.json5');
  writeFileSync(f, '{\n  id: "oops",\n  title: ,\n}\n');
  const r = await memeval(['validate', f]);
  assert.equal(r.exitCode, 3);
  assert.match(String(r.stderr), /oops\.json5:3:\d+: JSON5 syntax error/);
  const ok = await memeval(['validate']);
  assert.equal(ok.exitCode, 0, String(ok.stderr));
});

test('a failing well-behaved assertion fails the run with actual vs expected, and --keep keeps the fixture', async (t) => {
  const dir = tempDir(t);
  const out = tempDir(t);
  mkdirSync(join(dir, 'sc'));
  writeJson(
    join(dir, 'sc', 'wants-two.json'),
    scenario('wants-two', {
      deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
      assertions: [{ kind: 'count', name: 'two rows', phase: 'both', contains: 'dark mode', op: 'eq', value: 2 }],
    }),
  );
  const r = await memeval(['run', '--scenarios', join(dir, 'sc'), '--out', out, '--keep']);
  assert.equal(r.exitCode, 1);
  const stdout = String(r.stdout);
  assert.match(stdout, /fail\s+wants-two/);
  assert.match(stdout, /two rows: actual 1, expected = 2/);
  assert.match(stdout, /^0 passed, 1 failed$/m);
  const kept = /fixture kept: (\S+)/.exec(stdout)?.[1];
  assert.ok(kept && existsSync(join(kept, 'data', 'memory.jsonl')), 'kept fixture holds the store');
  t.after(() => execa('rm', ['-rf', kept!]));
});

test('schema prints a JSON Schema editors can use', async () => {
  const r = await memeval(['schema']);
  assert.equal(r.exitCode, 0);
  const s = JSON.parse(String(r.stdout));
  assert.ok(s.properties.deterministic && s.properties.assertions);
  const tgt = JSON.parse(String((await memeval(['schema', '--target'])).stdout));
  assert.ok(tgt.properties.ops && tgt.properties.store);
});

test('list shows scenarios with layers and the default target', async () => {
  const r = await memeval(['list']);
  assert.equal(r.exitCode, 0);
  assert.match(String(r.stdout), /cross-session-recall\s+deterministic\+violation, real-model/);
  assert.match(String(r.stdout), /server-memory\s+@modelcontextprotocol\/server-memory@2026\.8\.31\s+installed/);
});

test('the bin launcher runs the built CLI', async () => {
  const r = await execa(join(ROOT, 'bin', 'memeval'), ['--version'], { reject: false });
  assert.equal(r.exitCode, 0, `${r.stderr} (is dist/ built? npm install runs the build)`);
  assert.match(String(r.stdout), /^\d+\.\d+\.\d+$/);
});

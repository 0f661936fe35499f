import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir, writeJson, ROOT } from '../helpers.ts';

const FACT = 'transient run state or a credential';
const c = (id: string, expected: 'pass' | 'fail', item: string) => ({
  id,
  check: 'no-such-fact',
  fact: FACT,
  items: [item],
  expected,
  group: expected === 'fail' ? 'bad' : 'good',
});

/** Ten cases and a keyword judge whose every answer is known in advance (see the figures below). */
const FILE = {
  schema_version: 1,
  title: 'hand-computed',
  scripted: {
    verdict: 'pass',
    rules: [
      { when: 'failed', verdict: 'fail' },
      { when: 'sk-live', verdict: 'fail' },
      { when: 'maybe', verdict: 'fail', quirk: 'invalid-json' },
      { when: 'ruff', verdicts: ['pass', 'fail'] },
      { when: 'gitflow', verdict: 'pass', confidence: 0.3 },
      { when: 'session id', verdict: 'fail', quirk: 'fence' },
    ],
  },
  cases: [
    c('c1', 'fail', 'tests: 3 failed at 14:02'), // TP
    c('c2', 'fail', 'build took 41s on run 7'), // FN (default pass)
    c('c3', 'pass', 'User prefers pnpm'), // TN
    c('c4', 'pass', 'Team uses trunk-based development'), // TN
    c('c5', 'pass', 'The March staging deploy failed because of DNS; we now pin resolvers'), // FP
    c('c6', 'fail', 'api key sk-live-1234abcd'), // TP
    c('c7', 'fail', 'maybe we should switch to bun?'), // undecided (unparseable)
    c('c8', 'pass', 'Use ruff for linting'), // TN, then FP on repeat 2 (a flip)
    c('c9', 'pass', 'We left gitflow for trunk-based development'), // undecided (confidence 0.3)
    c('c10', 'fail', 'current session id 88ab'), // TP (fenced answer)
  ],
};

test('judge calibrate end to end with the scripted judge: figures match the hand-computed ones', async (t) => {
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'cases.json5'), FILE);
  const r = await memeval([
    'judge',
    'calibrate',
    file,
    '--judge-model',
    'scripted',
    '--repeat',
    '2',
    '--out',
    join(dir, 'out'),
    '--json',
  ]);
  assert.equal(r.exitCode, 0, String(r.stderr));
  const res = JSON.parse(String(r.stdout));
  // 20 judgments. labelled fail: c1,c6,c10 judged fail x2 = 6; c2 judged pass x2 = 2; c7 undecided x2 = 2.
  // labelled pass: c3,c4 x2 + c8 once = 5 pass; c5 x2 + c8 once = 3 fail; c9 undecided x2 = 2.
  assert.deepEqual(res.overall.confusion, {
    fail: { fail: 6, pass: 2, undecided: 2 },
    pass: { pass: 5, fail: 3, undecided: 2 },
  });
  assert.equal(res.overall.judgments, 20);
  assert.equal(res.overall.accuracy, 11 / 20);
  assert.equal(res.overall.precision, 6 / 9);
  assert.equal(res.overall.recall, 6 / 10);
  assert.equal(res.overall.specificity, 5 / 10);
  // kappa over the 16 decided: po = 11/16, pe = (8/16)(9/16) + (8/16)(7/16) = 0.5 -> (0.6875 - 0.5) / 0.5
  assert.ok(Math.abs(res.overall.kappa - 0.375) < 1e-12, String(res.overall.kappa));
  assert.equal(res.flip_rate, 1 / 10);
  assert.deepEqual(res.disagreements.map((d: { case: string; repeat: number }) => `${d.case}#${d.repeat}`).sort(), [
    'c2#0',
    'c2#1',
    'c5#0',
    'c5#1',
    'c7#0',
    'c7#1',
    'c8#1',
    'c9#0',
    'c9#1',
  ]);
  assert.equal(res.by_group.bad.judgments, 10);
  const c7 = res.judgments.find((j: { case: string }) => j.case === 'c7');
  assert.equal(c7.outcome, 'error');
  assert.equal(c7.llm.calls.length, 3, 'two retries, then error');
  // the written file holds the same figures
  const [sub] = readdirSync(join(dir, 'out'));
  const written = JSON.parse(readFileSync(join(dir, 'out', sub, 'calibration.json'), 'utf8'));
  assert.equal(written.status, 'completed');
  assert.deepEqual(written.overall, res.overall);
});

test('the console output shows the figures, the matrix and every disagreement', async (t) => {
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'cases.json5'), FILE);
  const r = await memeval(['judge', 'calibrate', file, '--judge-model', 'scripted', '--out', join(dir, 'out')]);
  assert.equal(r.exitCode, 0, String(r.stderr));
  const out = String(r.stdout);
  assert.match(out, /accuracy 60\.0%  precision 75\.0%  recall 60\.0%/);
  assert.match(out, /c2: labelled fail, judged pass/);
  assert.match(out, /c7: labelled fail, judged undecided \(error\)/);
});

test('the shipped memory-hygiene calibration set: >= 80 labelled cases, both labels, runs with the scripted judge', async (t) => {
  const file = join(ROOT, 'eval', 'calibration', 'memory-hygiene.json5');
  const dir = tempDir(t);
  const r = await memeval(['judge', 'calibrate', file, '--judge-model', 'scripted', '--out', dir, '--json']);
  assert.equal(r.exitCode, 0, String(r.stderr));
  const res = JSON.parse(String(r.stdout));
  assert.ok(res.overall.judgments >= 80, String(res.overall.judgments));
  assert.ok(
    res.overall.confusion.pass.pass + res.overall.confusion.pass.fail + res.overall.confusion.pass.undecided >= 30,
  );
  assert.ok(
    res.overall.confusion.fail.pass + res.overall.confusion.fail.fail + res.overall.confusion.fail.undecided >= 30,
  );
  for (const g of ['noise', 'secret', 'musing', 'preference', 'duplicate', 'relevance'])
    assert.ok(res.by_group[g]?.judgments >= 8, g);
});

test('a judge off this machine needs --i-understand-model-cost: blocked, exit 2, no request made', async (t) => {
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'cases.json5'), FILE);
  const r = await memeval(['judge', 'calibrate', file, '--judge-model', 'gpt-judge-x', '--out', join(dir, 'out')], {
    env: { NO_COLOR: '1', OPENAI_API_KEY: 'sk-must-not-leak' },
  });
  assert.equal(r.exitCode, 2, String(r.stderr));
  assert.match(String(r.stderr), /blocked: .*--i-understand-model-cost/);
  const [sub] = readdirSync(join(dir, 'out'));
  const text = readFileSync(join(dir, 'out', sub, 'calibration.json'), 'utf8');
  assert.equal(JSON.parse(text).status, 'blocked');
  assert.doesNotMatch(text, /sk-must-not-leak/);
  const none = await memeval(['judge', 'calibrate', file, '--out', join(dir, 'out2')], { env: { NO_COLOR: '1' } });
  assert.equal(none.exitCode, 3);
  assert.match(String(none.stderr), /needs a judge model/);
});

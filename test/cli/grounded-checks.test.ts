/**
 * Grounded checks through the CLI: a scenario that puts one where no agent answers is refused;
 * `judge calibrate` over the shipped grounded-answer cases (faithful, hallucination) with the
 * scripted judge's lexical baseline: every case is decided, and the figures are the ones the
 * README reports. A grounded case without its recall results or prompts is refused (exit 3).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, ROOT, scenario, tempDir, writeJson } from '../helpers.ts';

const ENV = { NO_COLOR: '1' };

test('calibrate over eval/calibration/grounded-answers.json5 with the scripted judge: 42 cases, both checks, the baseline figures', async (t) => {
  const out = tempDir(t);
  const r = await memeval(
    [
      'judge',
      'calibrate',
      join(ROOT, 'eval', 'calibration', 'grounded-answers.json5'),
      '--judge-model',
      'scripted',
      '--out',
      out,
    ],
    { env: ENV },
  );
  assert.equal(r.exitCode, 0, String(r.stderr));
  const result = JSON.parse(readFileSync(join(out, readdirSync(out)[0], 'calibration.json'), 'utf8'));
  assert.equal(result.overall.judgments, 42);
  assert.equal(result.overall.undecided, 0);
  assert.deepEqual(Object.keys(result.by_check).sort(), ['faithful', 'hallucination']);
  assert.equal(result.by_check.faithful.judgments, 21);
  // the lexical baseline: it misses negations and invented lower-case details, over-flags synonyms
  assert.equal(result.overall.confusion.fail.fail, 15);
  assert.equal(result.overall.confusion.fail.pass, 8);
  assert.equal(result.overall.confusion.pass.fail, 2);
  assert.match(String(r.stdout), /accuracy 76\.2%/);
  const missed = result.disagreements.map((d: { case: string }) => d.case);
  assert.ok(missed.includes('faithful-05'), 'a reversed preference in the same words is missed');
  assert.ok(missed.includes('hallucination-08'), 'an abbreviation is over-flagged');
  // a final figure a recalled one starts with ("2" against "20", "1.2" against "1.22", "v2" against "v21") is caught
  for (const id of ['faithful-19', 'faithful-20', 'hallucination-19', 'hallucination-20'])
    assert.ok(!missed.includes(id), `${id}: a figure matches whole`);
  // each judgment's prompt carried the case's recall results and prompts
  const j = result.judgments.find((x: { case: string }) => x.case === 'faithful-02');
  assert.equal(j.judged, 'fail');
  assert.match(
    j.llm.calls[0].prompt,
    /<data-[0-9a-f]{16} name="recalled">\n1\. recall \nDatabase connections go through pgbouncer/,
  );
  assert.match(j.reasoning, /50 is in neither/);
});

test('a grounded calibration case without recalled results or prompts is refused before any judge is asked', async (t) => {
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'cases.json5'), {
    schema_version: 1,
    title: 'bad',
    cases: [{ id: 'g1', check: 'faithful', subject: 'answer', items: ['It is 20.'], expected: 'pass' }],
  });
  const r = await memeval(['judge', 'calibrate', file, '--judge-model', 'scripted', '--out', dir], { env: ENV });
  assert.equal(r.exitCode, 3);
  assert.match(String(r.stderr), /cases\[0\] \(g1\): check "faithful" needs `recalled`/);
});

test('a grounded check outside the real-model phase, or on another subject, is refused at load (exit 3, file and field named)', async (t) => {
  const dir = tempDir(t);
  const sc = join(dir, 'scenarios');
  mkdirSync(sc);
  const grounded = (over: Record<string, unknown>) => ({
    kind: 'llm',
    name: 'grounded',
    check: 'faithful',
    subject: 'answer',
    phase: 'real-model',
    ...over,
  });
  const withCheck = (id: string, a: Record<string, unknown>) =>
    writeJson(
      join(sc, `${id}.json5`),
      scenario(id, {
        real_model: { sessions: [{ prompts: ['What do I prefer?'] }] },
        assertions: [
          { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
          a,
        ],
      }),
    );
  withCheck('wrong-phase', grounded({ phase: 'both' }));
  withCheck('wrong-subject', grounded({ check: 'hallucination', subject: 'memories' }));
  const r = await memeval(['validate', sc], { env: ENV });
  assert.equal(r.exitCode, 3);
  const err = String(r.stdout) + String(r.stderr);
  assert.match(err, /wrong-phase\.json5[\s\S]*assertions\[1\]\.phase: check "faithful" reads an agent's answer/);
  assert.match(err, /wrong-subject\.json5[\s\S]*check \\?"hallucination\\?" judges the agent's answer/);
});

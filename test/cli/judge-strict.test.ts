/**
 * Strict runs (through the kit: the CLI where its printing is checked, else in process): --judge-level fail makes warn-level llm checks, juries and
 * cascades decide; --judge-min-confidence turns a judgment less sure than the floor into error;
 * both are recorded in the report. The built-in jury (run-noise-not-stored) and cascade with an
 * llm tier (tentative-preference-not-stored) run on the scripted judge.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memeval } from '../helpers.ts';
import { reportFromStdout, runInline, scenario, timeLimit } from '../kit.ts';

const ENV = { NO_COLOR: '1' };

test(
  'the built-in jury and cascade decide under --judge-level fail with the scripted judge; the flags are in the report',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const r = await runInline(t, {
      mode: 'cli',
      config: {
        scenarioIds: ['run-noise-not-stored', 'tentative-preference-not-stored'],
        judge: { model: 'scripted', level: 'fail', minConfidence: 0.7 },
      },
      spawn: { timeout: timeLimit(110_000) },
    });
    assert.equal(r.exitCode, 0, r.output);
    const rep = r.report;
    assert.equal(rep.options.judge_level, 'fail');
    assert.equal(rep.options.judge_min_confidence, 0.7);
    assert.deepEqual([rep.config?.judge?.level, rep.config?.judge?.minConfidence], ['fail', 0.7]);
    const composed = (cell: string, kind: string) => {
      const c = rep.results.find((x) => x.cell_id === cell) ?? assert.fail(`no cell ${cell}`);
      return c.assertions.find((a) => a.kind === kind) ?? assert.fail(`no ${kind} judgment in ${cell}`);
    };
    const jury = (phase: string) => composed(`run-noise-not-stored/server-memory/${phase}`, 'jury');
    const cascade = (phase: string) => composed(`tentative-preference-not-stored/server-memory/${phase}`, 'cascade');
    assert.deepEqual([jury('well-behaved').outcome, jury('well-behaved').level], ['pass', 'fail']);
    assert.deepEqual([jury('violation').outcome, jury('violation').level], ['fail', 'fail']);
    assert.match(jury('violation').detail, /majority: 0 pass, 3 fail/);
    assert.deepEqual([cascade('well-behaved').outcome, cascade('violation').outcome], ['pass', 'fail']);
    // the cheap tier let the musing through: the llm tier decided
    assert.match(cascade('violation').detail, /tier 2\/2 \(final\) decided fail: failed: no tentative preference/);
    assert.match(String(r.stdout), /caught by: .*no run noise, by a jury/);
    assert.match(String(r.stdout), /caught by: .*no musing, by a cascade/);
  },
);

test(
  '--judge-min-confidence: a warn-level judgment at 0.65 passes by default, and is error (failing the cell) under a 0.7 floor and --judge-level fail',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const unsureJudge = scenario('unsure-judge', {
      deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
      assertions: [
        { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
        {
          kind: 'llm',
          name: 'an unsure judge',
          phase: 'both',
          check: 'contains-fact',
          subject: 'memories',
          fact: 'a preference for dark mode',
          scripted: { verdict: 'pass', confidence: 0.65 },
        },
      ],
    });
    const lenient = await runInline(t, { scenarios: [unsureJudge], config: { judge: { model: 'scripted' } } });
    assert.equal(lenient.exitCode, 0, lenient.output);
    const [l] = lenient.results;
    assert.deepEqual([l.verdict, l.assertions[1].outcome, l.assertions[1].level], ['pass', 'pass', 'warn']);
    const strict = await runInline(t, {
      scenarios: [unsureJudge],
      config: { judge: { model: 'scripted', level: 'fail', minConfidence: 0.7 } },
    });
    const [s] = strict.results;
    assert.deepEqual([s.assertions[1].outcome, s.assertions[1].level], ['error', 'fail']);
    assert.match(s.assertions[1].detail ?? '', /confidence 0\.65 is below the run's --judge-min-confidence 0\.7/);
    assert.equal(s.verdict, 'error', s.reason);
    assert.equal(strict.exitCode, 1);
    // rejudge judges under the strictness the run recorded: the unsure judgment stays error, never a pass
    const rj = await memeval(
      [
        'rejudge',
        strict.runDir ?? assert.fail('the strict run wrote no run directory'),
        '--judge-model',
        'scripted',
        '--json',
      ],
      { env: ENV, timeout: timeLimit(60_000) },
    );
    assert.equal(rj.exitCode, 1, String(rj.stderr));
    const [again] = reportFromStdout(rj).results;
    assert.deepEqual(
      [again.verdict, again.assertions[1].outcome, again.assertions[1].level],
      ['error', 'error', 'fail'],
    );
  },
);

test('bad strict flags are refused before anything runs (exit 3)', async () => {
  for (const args of [
    ['--judge-min-confidence', '1.5'],
    ['--judge-min-confidence', 'high'],
    ['--judge-level', 'warn'],
  ]) {
    const r = await memeval(['run', ...args], { env: ENV });
    assert.equal(r.exitCode, 3, args.join(' '));
    assert.match(String(r.stderr), /judge-(min-confidence|level)/);
  }
});

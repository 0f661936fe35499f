import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { loadScenario, loadScenarios } from '../../../src/scenario/loader.js';
import { InputError } from '../../../src/util/errors.js';
import { scenario, tempDir, writeJson } from '../../helpers.js';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InputError, `expected InputError, got ${e}`);
    return e.problems;
  }
  assert.fail('expected the load to fail');
}

test('a minimal scenario loads, with defaults filled', (t) => {
  const dir = tempDir(t);
  const { scenario: s } = loadScenario(writeJson(join(dir, 'ok-one.json'), scenario('ok-one')));
  assert.equal(s.id, 'ok-one');
  assert.deepEqual(s.setup, { memories: [], files: [], steps: [], similarity: [] });
  assert.equal(s.real_model, null);
});

test('JSON5 syntax error names file, line and column', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'broken.json5');
  writeFileSync(file, '{\n  schema_version: 1,\n  id: "broken",\n  title: "x" "y",\n}\n');
  const [p] = problemsOf(() => loadScenario(file));
  assert.match(p, /broken\.json5:4:\d+: JSON5 syntax error/);
});

test('unknown field is rejected with the nearest known name', (t) => {
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'typo.json'), scenario('typo', { titel: 'x' }));
  const problems = problemsOf(() => loadScenario(file));
  assert.ok(
    problems.some((p) => p.includes('titel: unknown field (did you mean "title"?)')),
    problems.join('\n'),
  );
});

test('schema error names the field path and what was expected', (t) => {
  const dir = tempDir(t);
  const s = scenario('bad-value');
  (s.assertions as Record<string, unknown>[])[0].value = 'one';
  const problems = problemsOf(() => loadScenario(writeJson(join(dir, 'bad-value.json'), s)));
  assert.ok(
    problems.some((p) => /assertions\[0\]\.value: .*expected number/i.test(p)),
    problems.join('\n'),
  );
});

test('unknown op and unknown assertion kind are errors', (t) => {
  const dir = tempDir(t);
  const s = scenario('bad-op', {
    deterministic: { well_behaved: [{ op: 'memorize', content: 'x' }], violation: null },
    assertions: [{ kind: 'exists', name: 'x', phase: 'both' }],
  });
  const problems = problemsOf(() => loadScenario(writeJson(join(dir, 'bad-op.json'), s)));
  assert.ok(
    problems.some((p) => p.includes('deterministic.well_behaved[0].op')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.includes('assertions[0].kind')),
    problems.join('\n'),
  );
});

test('unknown ref is an error; refs defined by setup or earlier remember steps are fine', (t) => {
  const dir = tempDir(t);
  const bad = scenario('bad-ref', {
    deterministic: { well_behaved: [{ op: 'forget', memory: '$ref:nope' }], violation: null },
  });
  const problems = problemsOf(() => loadScenario(writeJson(join(dir, 'bad-ref.json'), bad)));
  assert.ok(
    problems.some((p) => p.includes('unknown ref "nope"')),
    problems.join('\n'),
  );

  const good = scenario('good-ref', {
    setup: { memories: [{ ref: 'seed', content: 'x' }] },
    deterministic: {
      well_behaved: [
        { op: 'remember', ref: 'later', content: 'y' },
        { op: 'update', memory: '$ref:later', content: 'z' },
        { op: 'forget', memory: '$ref:seed' },
      ],
      violation: null,
    },
  });
  loadScenario(writeJson(join(dir, 'good-ref.json'), good));
});

test('id must equal the file name, and ids are unique across files', (t) => {
  const dir = tempDir(t);
  const problems = problemsOf(() => loadScenario(writeJson(join(dir, 'file-name.json'), scenario('other-name'))));
  assert.ok(
    problems.some((p) => p.includes('must equal the file name "file-name"')),
    problems.join('\n'),
  );
  const a = writeJson(join(dir, 'same.json'), scenario('same'));
  const b = writeJson(join(dir, 'same.json5'), scenario('same'));
  const dup = problemsOf(() => loadScenarios([a, b]));
  assert.ok(
    dup.some((p) => p.includes('is also used by')),
    dup.join('\n'),
  );
});

test('wiring: a violation assertion without a violation phase, and setup files leaving the fixture', (t) => {
  const dir = tempDir(t);
  const s = scenario('wiring', {
    setup: { files: [{ path: '../escape.txt', content: 'x' }] },
    deterministic: { well_behaved: [{ op: 'recall', query: 'x' }], violation: null },
    assertions: [{ kind: 'count', name: 'v', phase: 'violation', op: 'eq', value: 0 }],
  });
  const problems = problemsOf(() => loadScenario(writeJson(join(dir, 'wiring.json'), s)));
  assert.ok(
    problems.some((p) => p.includes('no violation phase')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.includes('setup.files[0].path')),
    problems.join('\n'),
  );
});

test('a well-behaved phase that calls the target nothing is refused naming the field and the fix', (t) => {
  const dir = tempDir(t);
  // only `absent` assertions and nothing to do: such a phase passed on a target that refuses every call
  const inert = scenario('inert', {
    deterministic: {
      well_behaved: [],
      violation: {
        expectation: 'defend-or-detect',
        steps: [{ op: 'remember', content: 'token sk_test_abcdef123456' }],
      },
    },
    assertions: [{ kind: 'absent', name: 'no token', phase: 'both', text: 'sk_test_abcdef123456' }],
  });
  const problems = problemsOf(() => loadScenario(writeJson(join(dir, 'inert.json'), inert)));
  assert.ok(
    problems.some((p) =>
      /inert\.json: deterministic\.well_behaved: .*calls the target nothing.*refuses every call.*\{ op: "remember"/.test(
        p,
      ),
    ),
    problems.join('\n'),
  );
  const restartOnly = scenario('restart-only', {
    deterministic: { well_behaved: [{ op: 'restart' }], violation: null },
  });
  assert.ok(
    problemsOf(() => loadScenario(writeJson(join(dir, 'restart-only.json'), restartOnly))).some((p) =>
      p.includes('deterministic.well_behaved'),
    ),
  );
  // seeded memories are checked in the store, so a phase that only judges them exercises the target
  const seeded = scenario('seeded', {
    setup: { memories: [{ ref: 'm', content: 'User prefers dark mode' }] },
    deterministic: { well_behaved: [], violation: null },
  });
  assert.equal(loadScenario(writeJson(join(dir, 'seeded.json'), seeded)).scenario.id, 'seeded');
});

test('provider.faults: defaults filled; settings that do not fit a fault, duplicate names and unknown refs are refused', (t) => {
  const dir = tempDir(t);
  const ok = loadScenario(
    writeJson(
      join(dir, 'faults-ok.json'),
      scenario('faults-ok', { provider: { faults: [{ on: 'embeddings', fault: 'http-429', times: 2 }] } }),
    ),
  ).scenario;
  assert.deepEqual(ok.provider?.faults, [
    { on: 'embeddings', fault: 'http-429', times: 2, skip: 0, phase: 'both', stage: 'phase', optional: false },
  ]);
  assert.deepEqual(ok.provider?.rules, []);
  const bad = (faults: unknown[], over: Record<string, unknown> = {}) =>
    problemsOf(() =>
      loadScenario(writeJson(join(dir, 'faults-bad.json'), scenario('faults-bad', { provider: { faults }, ...over }))),
    ).join('\n');
  assert.match(
    bad([{ on: 'any', fault: 'empty-embedding' }]),
    /provider\.faults\[0\]\.on: "any" but empty-embedding is a fault of an embedding response; set on to "embeddings"/,
  );
  assert.match(
    bad([{ on: 'chat', fault: 'malformed-json', retry_after: 3 }]),
    /provider\.faults\[0\]\.retry_after: only an http-429 or http-500/,
  );
  assert.match(
    bad([{ on: 'embeddings', fault: 'http-500', dimensions: 3 }]),
    /provider\.faults\[0\]\.dimensions: only a wrong-dimension/,
  );
  assert.match(
    bad([
      { on: 'chat', fault: 'timeout' },
      { name: 'fault 0', on: 'embeddings', fault: 'timeout' },
    ]),
    /provider\.faults\[1\]\.name: "fault 0" is also the name of provider\.faults\[0\]/,
  );
  assert.match(
    bad([{ on: 'embeddings', fault: 'timeout', contains: ['$ref:nope'] }]),
    /provider\.faults\[0\]\.contains: "\$ref:nope" names no setup memory/,
  );
  assert.match(
    bad([{ on: 'embeddings', fault: 'timeout', phase: 'violation' }], {
      deterministic: { well_behaved: [{ op: 'remember', content: 'x' }], violation: null },
      assertions: [{ kind: 'count', name: 'n', phase: 'both', op: 'gte', value: 0 }],
    }),
    /provider\.faults\[0\]\.phase: "violation" but the scenario has no violation phase/,
  );
  // a setup fault in a scenario with no setup: no request can meet it
  assert.match(
    bad([{ on: 'embeddings', fault: 'timeout', stage: 'setup' }]),
    /provider\.faults\[0\]\.stage: "setup" but the scenario has no setup\.memories nor setup\.steps/,
  );
  assert.match(
    bad([{ on: 'embeddings', fault: 'http-503' }]),
    /provider\.faults\.0\.fault|provider\.faults\[0\]\.fault/,
  );
  assert.match(bad([{ fault: 'timeout' }]), /provider\.faults\.0\.on|provider\.faults\[0\]\.on/);
  assert.match(bad([{ on: 'embeddings', fault: 'timeout', times: 0 }]), /times/);
});

test('precondition: only on a deciding assertion of its own, and never every assertion of a phase', (t) => {
  const dir = tempDir(t);
  const guard = { kind: 'count', name: 'kept', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 };
  const ok = scenario('guard-ok', {
    assertions: [
      { ...guard, precondition: true },
      { kind: 'absent', name: 'no token', phase: 'both', text: 'sk_test' },
    ],
  });
  const { scenario: s } = loadScenario(writeJson(join(dir, 'guard-ok.json'), ok));
  assert.equal(s.assertions[0].precondition, true);
  const only = scenario('guard-only', { assertions: [{ ...guard, precondition: true }] });
  const p1 = problemsOf(() => loadScenario(writeJson(join(dir, 'guard-only.json'), only)));
  assert.ok(
    p1.some((p) => /every assertion of the well-behaved phase is a precondition/.test(p)),
    p1.join('\n'),
  );
  const member = scenario('guard-member', {
    assertions: [
      guard,
      { kind: 'jury', name: 'j', phase: 'both', rule: 'any', judges: [{ ...guard, name: 'm', precondition: true }] },
    ],
  });
  const p2 = problemsOf(() => loadScenario(writeJson(join(dir, 'guard-member.json'), member)));
  assert.ok(
    p2.some((p) => /assertions\[1\]\.judges\[0\]\.precondition: a jury's or cascade's judge is one vote/.test(p)),
    p2.join('\n'),
  );
  const warn = scenario('guard-warn', {
    assertions: [
      guard,
      { kind: 'jury', name: 'j', phase: 'both', rule: 'any', level: 'warn', precondition: true, judges: [guard] },
    ],
  });
  const p3 = problemsOf(() => loadScenario(writeJson(join(dir, 'guard-warn.json'), warn)));
  assert.ok(
    p3.some((p) => /assertions\[1\]\.precondition: a `level: "warn"` judgment never decides/.test(p)),
    p3.join('\n'),
  );
});

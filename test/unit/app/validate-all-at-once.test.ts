/**
 * Issue 31, "find every authoring mistake at once": one `validate` (and the load before `run`)
 * names every problem of every file, SQL columns included, with the nearest name and the real
 * place of a JSON5 syntax error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenarioDir, validatePaths } from '../../../src/app/load.js';
import { InputError } from '../../../src/util/errors.js';
import { scenario, tempDir, writeJson } from '../../kit.ts';

/** The walk-through's scenario: six honest mistakes, one of each kind. */
const SIX_MISTAKES = `{
  schema_version: 1,
  id: "my-scenario",
  title: "A retracted fact is forgotten",
  description: "The user asks to forget their employer.",
  tags: ["forget"],
  setup: {
    memories: [
      { ref: "employer", content: "User works at Initech", category: "profile" }
      { ref: "editor", content: "User edits code in Neovim", categroy: "preference" },
    ],
  },
  deterministic: {
    well_behaved: [{ op: "delete", memory: "$ref:employer" }],
    violation: { expectation: "detect", steps: [{ op: "recall", query: "Initech" }] },
  },
  real_model: null,
  assertions: [
    { kind: "count", name: "employer gone", phase: "both", contains: "Initech", op: "equals", value: 0 },
    { kind: "sql", name: "editor kept", phase: "both", query: "SELECT count(*) FROM memories WHERE contents LIKE '%Neovim%'", op: "eq", value: 1 },
    { kind: "recal", name: "recall clean", phase: "both", query: "Initech", not_contains: "Initech" },
  ],
}
`;

function loadProblems(dir: string): string[] {
  try {
    loadScenarioDir(dir);
  } catch (e) {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    return e.problems;
  }
  assert.fail('the load must fail');
}

const SIX = [
  // the missing comma at the end of line 9, where it belongs, not at the '{' of line 10
  /my-scenario\.json5:9:81: JSON5 syntax error: missing ','/,
  /setup\.memories\[1\]\.categroy: unknown field \(did you mean "category"\?\)/,
  /deterministic\.well_behaved\[0\]\.op: unknown value "delete".*\(did you mean "forget"\?\)/,
  /assertions\[0\]\.op: unknown value "equals".*\(did you mean "eq"\?\)/,
  /assertions\[1\]\.query: no such column "contents" \(did you mean "content"\?\)/,
  /assertions\[2\]\.kind: unknown value "recal".*\(did you mean "recall"\?\)/,
];

test('validate names all six mistakes of the walk-through scenario in one pass', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'my-scenario.json5');
  writeFileSync(file, SIX_MISTAKES);
  const [result] = validatePaths([file]);
  for (const re of SIX)
    assert.ok(
      result.problems.some((p) => re.test(p)),
      `${re} not in:\n${result.problems.join('\n')}`,
    );
  assert.equal(result.problems.length, 6, result.problems.join('\n'));
});

test("the load before run names the same six, and every other file's problems beside them", (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'my-scenario.json5'), SIX_MISTAKES);
  writeJson(join(dir, 'other.json'), scenario('other', { titel: 'x' }));
  const problems = loadProblems(dir);
  for (const re of SIX)
    assert.ok(
      problems.some((p) => re.test(p)),
      `${re} not in:\n${problems.join('\n')}`,
    );
  assert.ok(
    problems.some((p) => /other\.json: titel: unknown field/.test(p)),
    problems.join('\n'),
  );
});

test('a misspelt column in an otherwise valid scenario is exit 3 at load, with file, field and the nearest column', (t) => {
  const dir = tempDir(t);
  const s = scenario('col-typo', {
    assertions: [
      {
        kind: 'sql',
        name: 'no failed call',
        phase: 'both',
        query: 'SELECT count(*) FROM calls WHERE is_eror = 1',
        op: 'eq',
        value: 0,
      },
    ],
  });
  writeJson(join(dir, 'col-typo.json'), s);
  const problems = loadProblems(dir);
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(
    problems[0],
    /col-typo\.json: assertions\[0\]\.query: no such column "is_eror" \(did you mean "is_error"\?\); calls has seq/,
  );
  assert.equal(new InputError(problems[0]).exit, 3);
  // the same file in validate
  assert.deepEqual(validatePaths([join(dir, 'col-typo.json')])[0].problems, problems);
});

test('a column of a store table or a declared view is left to the run, where the columns are known', (t) => {
  const dir = tempDir(t);
  const query = (q: string) => ({ kind: 'sql', name: 'q', phase: 'both', query: q, op: 'eq', value: 0 });
  writeJson(
    join(dir, 'store-col.json'),
    scenario('store-col', { assertions: [query('SELECT count(*) FROM store.observations WHERE anything = 1')] }),
  );
  assert.equal(loadScenarioDir(dir).length, 1);
});

test('a file whose only mistake is a missing comma still fails: a repaired parse is never a pass', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'comma.json5');
  const only = `{ schema_version: 1, id: "comma" title: "t" }`;
  writeFileSync(file, only);
  // the comma goes after "comma" (column 33), not where the parser stopped (the t of title)
  const [result] = validatePaths([file]);
  assert.ok(result.problems.length >= 1);
  assert.match(result.problems[0], /comma\.json5:1:33: JSON5 syntax error: missing ','/);
});

test('the evidence tables of kill scenarios (writes, store_integrity) are known at load, columns and all', (t) => {
  const dir = tempDir(t);
  const query = (q: string) => ({ kind: 'sql', name: 'q', phase: 'both', query: q, op: 'eq', value: 0 });
  writeJson(
    join(dir, 'writes-ok.json'),
    scenario('writes-ok', { assertions: [query('SELECT count(*) FROM writes WHERE acknowledged = 1 AND killed = 0')] }),
  );
  writeJson(
    join(dir, 'writes-typo.json'),
    scenario('writes-typo', { assertions: [query('SELECT count(*) FROM writes WHERE acknowleged = 1')] }),
  );
  const [ok, typo] = validatePaths([join(dir, 'writes-ok.json'), join(dir, 'writes-typo.json')]);
  assert.deepEqual(ok.problems, []);
  assert.match(typo.problems.join('\n'), /no such column "acknowleged" \(did you mean "acknowledged"\?\); writes has/);
});

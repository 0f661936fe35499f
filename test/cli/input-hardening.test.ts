import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import JSON5 from 'json5';
import { memeval, scenario, tempDir, writeJson, timeLimit } from '../helpers.ts';
import { faultyTarget } from '../faulty.ts';

type T = { after: (fn: () => void) => void };

/** `memeval run` on this input: exit 3 naming file and field, no stack trace, nothing ran. */
async function rejects(t: T, scenarios: string, target: string, file: string, field: RegExp) {
  const out = tempDir(t);
  const r = await memeval(['run', '--scenarios', scenarios, '--target', target, '--out', out, '--workers', '1'], {
    timeout: timeLimit(60_000),
  });
  const err = String(r.stderr);
  assert.equal(r.exitCode, 3, `exit ${r.exitCode}: ${err.slice(0, 500)}`);
  assert.ok(err.includes(file), `names ${file}: ${err.slice(0, 500)}`);
  assert.match(err, field);
  assert.doesNotMatch(err, /\n\s+at .*:\d+:\d+/, 'no stack trace');
  assert.deepEqual(readdirSync(out), [], 'nothing ran');
}

function scenarioCase(t: T, over: Record<string, unknown>, raw?: (text: string) => string) {
  const dir = tempDir(t);
  const sc = join(dir, 'sc');
  mkdirSync(sc);
  const file = join(sc, 'bad.json');
  const text = JSON.stringify(scenario('bad', over));
  writeFileSync(file, raw ? raw(text) : text);
  return { dir, sc, file, target: faultyTarget(dir, 'faulty', 'ok') };
}

const SCENARIO_CASES: [string, Record<string, unknown>, RegExp, ((s: string) => string)?][] = [
  [
    'tool args nested 5000 deep',
    { deterministic: { well_behaved: [{ op: 'tool', tool: 'save', args: 'DEEP' }], violation: null } },
    /deterministic\.well_behaved\[0\]\.args.*nested deeper than 64/,
    (s) => s.replace('"DEEP"', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)),
  ],
  [
    'a setup file "."',
    { setup: { files: [{ path: '.', content: 'x' }] } },
    /setup\.files\[0\]\.path: "\." names no file/,
  ],
  [
    'a setup file path with NUL',
    { setup: { files: [{ path: 'a\u0000b.md', content: 'x' }] } },
    /setup\.files\[0\]\.path: .* NUL/,
  ],
  [
    'an over-long setup file name',
    { setup: { files: [{ path: 'n'.repeat(300), content: 'x' }] } },
    /setup\.files\[0\]\.path: .*longer than 255/,
  ],
  [
    'a setup file and folder of the same name',
    {
      setup: {
        files: [
          { path: 'notes', content: 'x' },
          { path: 'notes/a.md', content: 'y' },
        ],
      },
    },
    /setup\.files\[1\]\.path: .*inside "notes"/,
  ],
];

for (const [name, over, field, raw] of SCENARIO_CASES)
  test(`scenario with ${name}: exit 3 with file and field before anything runs`, async (t) => {
    const c = scenarioCase(t, over, raw);
    await rejects(t, c.sc, c.target, c.file, field);
    const v = await memeval(['validate', c.file]);
    assert.equal(v.exitCode, 3, String(v.stderr));
    assert.match(String(v.stderr), field);
  });

test('a scenario path that is a FIFO or a symlink to /dev/zero: exit 3 at once, no hang', async (t) => {
  const c = scenarioCase(t, {});
  const fifo = join(c.sc, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  await rejects(t, c.sc, c.target, fifo, /not a regular file \(a FIFO\)/);
  const c2 = scenarioCase(t, {});
  const zero = join(c2.sc, 'zero.json5');
  symlinkSync('/dev/zero', zero);
  await rejects(t, c2.sc, c2.target, zero, /not a regular file \(a character device\)/);
});

/** Target cases: the fault server's declaration with one field broken. */
const TARGET_CASES: [string, (d: Record<string, any>) => void, RegExp][] = [
  [
    'view SQL that does not compile',
    (d) => (d.views.memories = 'SELECT nope FROM store.records'),
    /views\.memories: does not compile: no such column: nope/,
  ],
  [
    'view SQL with a syntax error (SQLite store)',
    (d) => ((d.store = { format: 'sqlite', path: '{{data}}/m.db' }), (d.views.memories = 'SELECT id, FROM store.m')),
    /views\.memories: does not compile: .*syntax error/,
  ],
  [
    'a view that ATTACHes a file',
    (d) => (d.views.memories += "; ATTACH DATABASE '/tmp/outside.db' AS o"),
    /views\.memories: does not compile: .*more than one statement/,
  ],
  [
    'an ATTACH for a view',
    (d) => (d.views.extra = { x: "ATTACH DATABASE '/tmp/outside.db' AS o" }),
    /views\.extra\.x: must be one SELECT/,
  ],
  [
    'a placeholder typo {{contnet}}',
    (d) => (d.ops.remember[0].args.text = '{{contnet}}'),
    /ops\.remember\[0\]\.args\.text: \{\{contnet\}\} is not a value of the remember op/,
  ],
  [
    'an unknown filter',
    (d) => (d.ops.remember[0].args.text = '{{content|upper}}'),
    /ops\.remember\[0\]\.args\.text: unknown filter "\|upper"/,
  ],
  [
    'an invalid capture_id',
    (d) => (d.ops.remember[0].capture_id = 'saved ([a-z'),
    /ops\.remember\[0\]\.capture_id: Invalid regular expression/,
  ],
  [
    'a catastrophic capture_id',
    (d) => (d.ops.remember[0].capture_id = '^(([\\s\\S])*)*Z$'),
    /ops\.remember\[0\]\.capture_id: .*backtrack/,
  ],
  [
    'store.path outside the fixture',
    (d) => (d.store.path = '/etc/passwd'),
    /store\.path: "\/etc\/passwd" must name a file inside the fixture/,
  ],
  [
    'a cli program whose command has a placeholder typo',
    (d) => (d.cli = { memories: { command: '{{nod}}', args: ['{{memeval_dir}}/cli.mjs'] } }),
    /cli\.memories\.command: unknown placeholder \{\{nod\}\} \(did you mean \{\{node\}\}\?\)/,
  ],
  [
    'a cli program beside a package',
    (d) => (
      (d.package = { npm: 'p', version: '1.0.0', bin: 'p' }),
      (d.cli = { memories: { command: '{{node}}', args: ['{{memeval_dir}}/cli.mjs'] } })
    ),
    /cli: only for a local target \(server\.command, no package\); .* so remove cli/,
  ],
  [
    'store.path climbing out of the fixture',
    (d) => (d.store.path = '{{data}}/../../../etc/passwd'),
    /store\.path: .* inside the fixture/,
  ],
];

for (const [name, breakIt, field] of TARGET_CASES)
  test(`target with ${name}: exit 3 with file and field before anything runs`, async (t) => {
    const c = scenarioCase(t, {});
    const decl = JSON5.parse((await import('node:fs')).readFileSync(c.target, 'utf8'));
    breakIt(decl);
    writeJson(c.target, decl);
    await rejects(t, c.sc, c.target, c.target, field);
  });

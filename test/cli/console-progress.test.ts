import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { faultyTargetWithout, scenarioDir } from '../faulty.js';
import { freshRun, memevalArgv, memeval, mixedScenarios, ROOT, tempDir, timeLimit } from '../helpers.js';

const ESC = '\x1b';

test(
  'off a terminal: one plain line per cell with [n/N], caught violations as caught, and a recap of what fails the run',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const run = await freshRun(t, ['*-one'], ['--scenarios', mixedScenarios(t)]);
    assert.equal(run.exitCode, 1);
    assert.ok(!run.stdout.includes(ESC), 'no control codes');
    const cellLines = run.stdout.split('\n').filter((l) => /^\[\d\/4\] /.test(l));
    assert.equal(cellLines.length, 4, run.stdout);
    assert.deepEqual(cellLines.map((l) => l.slice(0, 5)).sort(), ['[1/4]', '[2/4]', '[3/4]', '[4/4]']);
    // violations the assertions caught read as caught, never as ✗
    const violations = cellLines.filter((l) => l.includes(' violation '));
    assert.equal(violations.length, 2);
    for (const l of violations)
      assert.match(l, /^\[\d\/4\] ◆ caught +\S+-one \[server-memory\] violation \d+ ms — caught by: /);
    assert.equal(
      run.stdout.split('\n').filter((l) => l.includes('✗')).length,
      2,
      'the failing cell and its recap line only',
    );
    assert.match(
      run.stdout,
      /1 cell\(s\) fail the run:\n {2}✗ bad-one \[server-memory\] well-behaved: fail — assertion\(s\) failed: dark mode twice \(dark mode twice: actual 1, expected = 2\)/,
    );
    assert.match(
      run.stdout,
      /\(2 violation\(s\) caught as designed\)\nwall time \d+s\nreport: .*report\.json\n3 passed, 1 failed$/,
    );
  },
);

test(
  'on a terminal: a live [n/N] passed, failed, ETA line; NO_COLOR and FORCE_COLOR are honoured',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const scenarios = mixedScenarios(t);
    const out = tempDir(t);
    const argv = memevalArgv(import.meta.resolve('tsx'))
      .map((a) => `'${a}'`)
      .join(' ');
    const cmd = `'${process.execPath}' ${argv} run --scenarios '${scenarios}' --target server-memory --out '${out}'`;
    // script(1) gives the CLI a real pseudo-terminal
    const tty = await execa('script', ['-qec', cmd, '/dev/null'], {
      cwd: ROOT,
      reject: false,
      env: { NO_COLOR: '1', FORCE_COLOR: undefined },
    });
    const text = String(tty.stdout);
    assert.equal(tty.exitCode, 1, text);
    /* eslint-disable no-control-regex -- the terminal's escape sequences are what is checked */
    assert.match(text, /\r\x1b\[2K\[4\/4\] 3 passed, 1 failed, ETA 0s\r\x1b\[2K/);
    assert.match(text, /\[1\/4\] \d passed, \d failed, ETA \d+s/);
    // only the cell that needs attention is printed above the live line
    assert.match(text, /✗ fail +bad-one \[server-memory\] well-behaved/);
    assert.doesNotMatch(text, /pass +good-one/);
    assert.doesNotMatch(text, /\x1b\[3\dm/, 'NO_COLOR: no colour codes on a terminal');

    const colored = await memeval(
      ['run', '--scenarios', scenarios, '--scenario', 'good-one', '--target', 'server-memory', '--out', out],
      { env: { FORCE_COLOR: '1', NO_COLOR: '1' } },
    );
    assert.match(String(colored.stdout), /\x1b\[32m/, 'FORCE_COLOR: colour even off a terminal');
    /* eslint-enable no-control-regex */
  },
);

test(
  '--scenario globs and --tag select scenarios; list --json shows titles, tags and layers',
  { timeout: timeLimit(60_000) },
  async () => {
    const l = await memeval(['list', '--json', '--scenario', 'secret-*', '--tag', 'secrets,duplicates']);
    assert.equal(l.exitCode, 0, l.stderr);
    const { scenarios } = JSON.parse(l.stdout);
    assert.deepEqual(
      scenarios.map((s: { id: string }) => s.id),
      [
        'secret-api-keys-not-stored',
        'secret-connection-strings-not-stored',
        'secret-in-subject-field-not-stored',
        'secret-passwords-not-stored',
        'secret-split-in-halves-not-stored',
        'secret-with-invisible-characters-not-stored',
      ],
    );
    assert.ok(
      scenarios.every(
        (s: { title: string; tags: string[]; layers: string[] }) =>
          s.title.length > 0 && s.tags.includes('secrets') && s.layers.includes('violation'),
      ),
    );
    const dup = JSON.parse((await memeval(['list', '--json', '--tag', 'duplicates'])).stdout).scenarios;
    assert.ok(dup.length >= 3 && dup.every((s: { tags: string[] }) => s.tags.includes('duplicates')));
    const none = await memeval(['run', '--scenario', 'secrt-*', '--out', '/nonexistent']);
    assert.equal(none.exitCode, 3);
    assert.match(none.stderr, /--scenario: "secrt-\*" matches no scenario/);
    const tag = await memeval(['run', '--tag', 'secret', '--out', '/nonexistent']);
    assert.equal(tag.exitCode, 3);
    assert.match(tag.stderr, /no scenario has tag "secret" \(did you mean "secrets"\?\)/);
    const both = await memeval(['run', '--scenario', 'secret-*', '--tag', 'duplicates', '--out', '/nonexistent']);
    assert.equal(both.exitCode, 3);
    assert.match(both.stderr, /no scenario matches secret-\* and tag duplicates/);
  },
);

test(
  'a run whose every cell is unsupported is not "N passed": unsupported is counted apart, the run says nothing was checked and exits 1',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const target = faultyTargetWithout(dir, 'no-remember', ['remember']);
    const out = join(dir, 'runs');
    const r = await memeval(['run', '--scenarios', scenarioDir(dir, 2), '--target', target, '--out', out]);
    const stdout = String(r.stdout);
    assert.equal(r.exitCode, 1, stdout + r.stderr);
    assert.match(stdout, /nothing was checked: none of the 4 cell\(s\) has a checked verdict \(4 unsupported\)/);
    assert.match(stdout, /\n0 passed, 0 failed, 4 unsupported$/);
    assert.doesNotMatch(stdout, /[1-9]\d* passed/);
    const [runId] = readdirSync(out);
    const { summary } = JSON.parse(readFileSync(join(out, runId, 'report.json'), 'utf8'));
    assert.deepEqual(
      { ...summary, by_verdict: undefined },
      {
        cells: 4,
        passed: 0,
        failed: 0,
        unsupported: 4,
        skipped: 0,
        flaky: 0,
        checked: 0,
        exit_code: 1,
        by_verdict: undefined,
      },
    );
  },
);

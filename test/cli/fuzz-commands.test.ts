// The fuzz commands end to end (`memeval fuzz`, `memeval flags`): what they print and exit with,
// over the test server of test/fixtures-src. The generator and the flag store are unit-tested in
// test/unit/fuzz.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir, timeLimit } from '../helpers.ts';
import { localDecl, writeDecl } from '../fuzz-helpers.ts';
import type { Finding } from '../../src/fuzz/checks.ts';

test('memeval fuzz: --seed with --no-history runs the same cases; progress is shown; bad input is exit 3', async (t) => {
  const dir = tempDir(t);
  const decl = writeDecl(dir, localDecl('calm', 'dedupe'));
  const args = (flags: string) => [
    'fuzz',
    '--target',
    decl,
    '--budget',
    '4',
    '--seed',
    'rep',
    '--no-history',
    '--flags',
    flags,
    '--out',
    join(dir, 'out'),
    '--recipe',
    'exact-duplicate,secret-split',
  ];
  const one = await memeval(args(join(dir, 'a.db')), { timeout: timeLimit(120_000) });
  const two = await memeval(args(join(dir, 'b.db')), { timeout: timeLimit(120_000) });
  assert.equal(one.exitCode, 0, String(one.stderr));
  const fps = (s: string) => [...s.matchAll(/^\[\d+\/4\] calm (\S+) ([0-9a-f]{16})/gm)].map((m) => `${m[1]} ${m[2]}`);
  assert.equal(fps(String(one.stderr)).length, 4, String(one.stderr));
  assert.deepEqual(fps(String(one.stderr)), fps(String(two.stderr)));
  assert.match(String(one.stdout), /calm: 4 case\(s\) \(4 novel\)/);
  // a target that states no claim is told which recipe checks it leaves off, and how to turn them on
  assert.match(String(one.stderr), /calm: claims \(none\); what each recipe checks beyond the MCP contract:/);
  assert.match(String(one.stderr), /^ {2}exact-duplicate: exact-dedupe \(off\)$/m);
  assert.match(String(one.stderr), /^ {2}secret-split: secret-redaction \(off\)$/m);
  assert.match(
    String(one.stderr),
    /2 claim check\(s\) are off because calm does not state them; to hold it to them anyway: --assume-claim exact-dedupe,secret-redaction/,
  );
  // with history, the next run in the same flag store starts on fingerprints not yet tried
  const three = await memeval(
    [
      'fuzz',
      '--target',
      decl,
      '--budget',
      '4',
      '--seed',
      'rep',
      '--flags',
      join(dir, 'a.db'),
      '--out',
      join(dir, 'out'),
      '--recipe',
      'exact-duplicate,secret-split',
    ],
    { timeout: timeLimit(120_000) },
  );
  const seenBefore = new Set(fps(String(one.stderr)));
  assert.ok(
    fps(String(three.stderr)).every((x) => !seenBefore.has(x)),
    String(three.stderr),
  );

  mkdirSync(join(dir, 'x'));
  for (const bad of [
    ['--recipe', 'exact-duplicat'],
    ['--budget', '0'],
    ['--time', 'soon'],
    ['--assume-claim', 'recal'],
  ]) {
    const r = await memeval(['fuzz', '--target', decl, '--flags', join(dir, 'c.db'), ...bad]);
    assert.equal(r.exitCode, 3, `${bad.join(' ')}: ${r.stderr}`);
  }
  const r = await memeval(['fuzz', '--target', decl, '--flags', join(dir, 'c.db'), '--recipe', 'exact-duplicat']);
  assert.match(String(r.stderr), /did you mean "exact-duplicate"/);
});

test('memeval fuzz: a claim check that could not judge (a recall answer saying it failed) is shown, counted and exit 1, never a clean case', async (t) => {
  const dir = tempDir(t);
  const decl = writeDecl(dir, {
    ...localDecl('failing-search', 'json-fail-search', { claims: ['recall', 'forget'] }),
    recall_results: { json: 'results' },
  });
  const r = await memeval(
    ['fuzz', '--target', decl, '--budget', '1', '--seed', 'u', '--no-history', '--flags', join(dir, 'f.db')].concat([
      '--out',
      join(dir, 'out'),
      '--recipe',
      'forget-recall',
    ]),
    { timeout: timeLimit(120_000), env: { NO_COLOR: '1' } },
  );
  assert.equal(r.exitCode, 1, String(r.stderr));
  assert.match(String(r.stderr), /^\[1\/1\] failing-search forget-recall \S+ .* unjudged$/m);
  assert.match(
    String(r.stderr),
    /unjudged: .*recall: recall step \d+: .*its answer says the recall failed \("success": false\)/,
  );
  assert.match(
    String(r.stdout),
    /failing-search: 1 case\(s\) .*0 flagged.*1 case\(s\) with something unjudged \(1 with a claim unjudged\)/,
  );
});

test('memeval flags: list, --json, dismiss, unknown fingerprint; export writes a scenario that validate accepts and run runs', async (t) => {
  const dir = tempDir(t);
  const db = join(dir, 'flags.db');
  // a store that claims exact-dedupe but keeps every copy: a real broken claim for the fuzzer to find
  const declFile = writeDecl(dir, localDecl('dupes', '', { claims: ['exact-dedupe'] }));
  const fuzz = await memeval(
    [
      'fuzz',
      '--target',
      declFile,
      '--recipe',
      'exact-duplicate',
      '--budget',
      '2',
      '--seed',
      'e',
      '--flags',
      db,
      '--out',
      join(dir, 'out'),
    ],
    { timeout: timeLimit(120_000) },
  );
  assert.equal(fuzz.exitCode, 1, String(fuzz.stderr));
  assert.match(String(fuzz.stderr), /FLAG broken-claim\(exact-dedupe\)/);
  assert.ok(readdirSync(join(dir, 'out', 'dupes')).length === 2, 'flagged cases keep their evidence');

  const list = await memeval(['flags', '--flags', db, '--json']);
  assert.equal(list.exitCode, 0, String(list.stderr));
  const rows = JSON.parse(String(list.stdout)) as {
    fingerprint: string;
    currently_flagged: number;
    last_findings: Finding[];
  }[];
  assert.equal(rows.length, 2);
  assert.equal(rows[0].last_findings[0].check, 'broken-claim');
  assert.ok(rows[0].last_findings[0].calls.length >= 2, 'the finding names its calls');
  const fp = rows[0].fingerprint;

  const out = join(dir, 'regress');
  const exp = await memeval(['flags', 'export', fp, '--flags', db, '--target', declFile, '--out', out]);
  assert.equal(exp.exitCode, 0, String(exp.stderr));
  const file = String(exp.stdout).split('\n')[0];
  const scenario = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(scenario.deterministic.violation.defence, 'exact-dedupe');
  assert.ok(scenario.assertions.some((a: { kind: string }) => a.kind === 'sql'));
  const val = await memeval(['validate', file]);
  assert.equal(val.exitCode, 0, String(val.stdout) + String(val.stderr));
  const run = await memeval(
    ['run', '--scenarios', out, '--target', declFile, '--out', join(dir, 'runs'), '--json', '--workers', '1'],
    { timeout: timeLimit(120_000) },
  );
  const report = JSON.parse(String(run.stdout));
  const violation = report.results.find((r: { phase: string }) => r.phase === 'violation');
  assert.equal(violation.verdict, 'detected', JSON.stringify(violation));
  assert.equal(violation.fails_run, true, 'the target claims the defence it broke');
  const wb = report.results.find((r: { phase: string }) => r.phase === 'well-behaved');
  assert.equal(wb.verdict, 'pass', JSON.stringify(wb));
  // a store that keeps its claim defends the same scenario
  mkdirSync(join(dir, 'fixed'));
  const fixed = writeDecl(join(dir, 'fixed'), { ...localDecl('dupes', 'dedupe', { claims: ['exact-dedupe'] }) });
  const rerun = await memeval(
    ['run', '--scenarios', out, '--target', fixed, '--out', join(dir, 'runs2'), '--json', '--workers', '1'],
    { timeout: timeLimit(120_000) },
  );
  assert.equal(rerun.exitCode, 0, String(rerun.stdout).slice(0, 2000));
  assert.equal(
    JSON.parse(String(rerun.stdout)).results.find((r: { phase: string }) => r.phase === 'violation').verdict,
    'defended',
  );
  assert.equal(run.exitCode, 1);

  const unknown = await memeval(['flags', 'dismiss', '0000000000000000', '--flags', db]);
  assert.equal(unknown.exitCode, 3);
  assert.match(String(unknown.stderr), /no flag with fingerprint/);
  const dis = await memeval(['flags', 'dismiss', fp, '--flags', db]);
  assert.equal(dis.exitCode, 0, String(dis.stderr));
  const after = await memeval(['flags', '--flags', db]);
  assert.match(String(after.stdout), /1 flag\(s\) in the queue/);
  assert.ok(!String(after.stdout).includes(fp));
  const all = await memeval(['flags', '--flags', db, '--all']);
  assert.ok(String(all.stdout).includes(fp) && /dismissed/.test(String(all.stdout)));
  const missing = await memeval(['flags', '--flags', join(dir, 'nope.db')]);
  assert.equal(missing.exitCode, 3);
});

test('memeval fuzz: latency history persists in the flag store, so the first case of a later run is judged', async (t) => {
  const dir = tempDir(t);
  const flags = join(dir, 'flags.db');
  const fuzz = (decl: string, out: string) =>
    memeval(
      [
        'fuzz',
        '--target',
        decl,
        '--budget',
        '1',
        '--seed',
        'lat',
        '--no-history',
        '--flags',
        flags,
        '--out',
        out,
      ].concat(['--recipe', 'burst-recall', '--latency-min-samples', '3', '--latency-floor', '500', '--json']),
      { timeout: timeLimit(120_000) },
    );
  // the same target name: a quick server first, then one whose 5th call of every process takes 1.5 s
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  const quick = writeDecl(join(dir, 'a'), localDecl('lat', ''));
  const first = await fuzz(quick, join(dir, 'o1'));
  assert.equal(first.exitCode, 0, String(first.stderr));
  assert.match(String(first.stderr), /unjudged.*latency of burst-recall.*: 0 sample\(s\) in its history, 3 needed/);
  const slow = writeDecl(join(dir, 'b'), localDecl('lat', 'slow-5th'));
  const second = await fuzz(slow, join(dir, 'o2'));
  assert.equal(second.exitCode, 1, String(second.stderr));
  const s = JSON.parse(String(second.stdout)) as { summaries?: { by_check: Record<string, number> }[] };
  assert.equal(JSON.stringify(s).includes('"latency":1'), true, String(second.stdout));
});

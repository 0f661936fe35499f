/**
 * Re-judging is judging: `memeval rejudge` reads back what the live verdict needed (judged-as,
 * vacuity, refused calls, the memory refs as the cell ended) and judges with the same function,
 * keeps an interrupted or blocked run's exit code, and refuses evidence changed since the run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fixtureProcesses, memeval, scenario, tempDir, writeJson, timeLimit, until } from '../helpers.ts';
import { FAULTY, faultyTarget, scenarioDir } from '../faulty.ts';

// memeval's cache as the rest of the suite has it (MEMEVAL_CACHE_DIR when set, else the default)
const ENV = { NO_COLOR: '1' };
type T = { after: (fn: () => void) => void };

const onlyRun = (out: string) =>
  join(
    out,
    readdirSync(out).find((d) => !d.startsWith('rejudge-'))!,
  );
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/**
 * A scenario whose verdict depends on the memory refs as the cell ended (the setup memory is
 * updated, so its content at seeding no longer matches) and whose violation is refused by
 * server-memory (observations on an entity that does not exist): defended by a refused call.
 */
function refsScenario(t: T): string {
  const dir = join(tempDir(t), 'scenarios');
  mkdirSync(dir);
  writeJson(
    join(dir, 'pivot-refs.json5'),
    scenario('pivot-refs', {
      setup: { memories: [{ ref: 'indent', content: 'User prefers tabs for indentation' }] },
      deterministic: {
        well_behaved: [{ op: 'update', memory: '$ref:indent', content: 'User prefers 4 spaces for indentation' }],
        violation: {
          expectation: 'detect',
          steps: [
            {
              op: 'tool',
              tool: 'add_observations',
              args: { observations: [{ entityName: 'nobody-here', contents: ['User password is hunter2'] }] },
            },
          ],
        },
      },
      assertions: [
        { kind: 'count', name: 'the ref is stored once', phase: 'both', ref: '$ref:indent', op: 'eq', value: 1 },
        { kind: 'absent', name: 'no password', phase: 'both', text: 'hunter2' },
        // reads the fixture, which is gone after the run: rejudge keeps this judgment
        { kind: 'file', name: 'no notes file', phase: 'both', path: 'NOTES.md', exists: false },
      ],
    }),
  );
  return dir;
}

async function deterministicRun(t: T, scenarios: string) {
  const out = tempDir(t);
  const r = await memeval(
    ['run', '--scenarios', scenarios, '--target', 'server-memory', '--workers', '1', '--out', out],
    { env: ENV, timeout: timeLimit(240_000) },
  );
  const runDir = onlyRun(out);
  return { r, out, runDir, report: readJson(join(runDir, 'report.json')) };
}

test('rejudge of an unchanged deterministic run gives the run verdicts, cell for cell (updated refs, refused violation calls)', async (t) => {
  const { r, runDir, report } = await deterministicRun(t, refsScenario(t));
  const verdicts = (rep: { results: { cell_id: string; verdict: string; reason: string }[] }) =>
    rep.results.map((c) => [c.cell_id, c.verdict, c.reason]);
  assert.deepEqual(
    report.results.map((c: { phase: string; verdict: string }) => [c.phase, c.verdict]),
    [
      ['well-behaved', 'pass'],
      ['violation', 'defended'],
    ],
    JSON.stringify(verdicts(report)),
  );
  assert.equal(r.exitCode, 0);
  const rj = await memeval(['rejudge', runDir, '--json'], { env: ENV, timeout: timeLimit(240_000) });
  assert.equal(rj.exitCode, 0, String(rj.stderr));
  const again = JSON.parse(String(rj.stdout));
  assert.deepEqual(verdicts(again), verdicts(report));
  assert.deepEqual(
    again.results.map((c: { assertions: { outcome: string }[] }) => c.assertions.map((a) => a.outcome)),
    report.results.map((c: { assertions: { outcome: string }[] }) => c.assertions.map((a) => a.outcome)),
  );
  for (const c of again.results)
    assert.match(
      c.assertions.find((a: { kind: string }) => a.kind === 'file').rejudge.why,
      /reads the fixture, which is removed after a run/,
    );

  // a report that does not say what its verdicts read (an older memeval's) is refused, never guessed at
  const old = {
    ...report,
    results: report.results.map(({ verdict_input, judge_input, evidence_sha256, ...c }: Record<string, unknown>) => c),
  };
  writeFileSync(join(runDir, 'report.json'), JSON.stringify(old));
  const refused = await memeval(['rejudge', runDir], { env: ENV, timeout: timeLimit(240_000) });
  assert.equal(refused.exitCode, 3, String(refused.stdout) + String(refused.stderr));
  assert.match(
    String(refused.stderr),
    /pivot-refs\/server-memory\/well-behaved: the report lacks verdict_input, judge_input, evidence_sha256 .*cannot be re-judged faithfully; run the scenarios again/,
  );
});

test('rejudge prints the console of a run and that no verdict changed; a scenario file edited since the run is refused (exit 3), never judged with', async (t) => {
  const scenarios = refsScenario(t);
  const { runDir, out: runs } = await deterministicRun(t, scenarios);
  const same = await memeval(['rejudge', runDir], { env: ENV, timeout: timeLimit(240_000) });
  assert.equal(same.exitCode, 0, String(same.stderr));
  assert.match(String(same.stdout), /^no verdict changed$/m);
  assert.match(String(same.stdout), /^verdicts: 1 pass, 1 defended$/m);
  assert.match(String(same.stdout), /^report: .*rejudge-[^/]+\/report\.json$/m);
  assert.match(String(same.stdout), /\n2 passed, 0 failed\s*$/, 'the closing line ends the output, as with run');
  const written = readdirSync(runs).length;

  // the scenario now expects the ref twice: judging the run's evidence by it would not be the run's verdict
  const file = join(scenarios, 'pivot-refs.json5');
  const original = readFileSync(file);
  const sc = readJson(file);
  sc.assertions[0].value = 2;
  writeFileSync(file, JSON.stringify(sc));
  const rj = await memeval(['rejudge', runDir], { env: ENV, timeout: timeLimit(240_000) });
  assert.equal(rj.exitCode, 3, String(rj.stdout) + String(rj.stderr));
  assert.match(
    String(rj.stderr),
    new RegExp(
      `scenario pivot-refs: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} changed since the run \\(sha256 [0-9a-f]{12}; the run read .*pivot-refs\\.json5, sha256 [0-9a-f]{12}\\).*restore it .*or run the scenario again`,
    ),
  );
  assert.equal(readdirSync(runs).length, written, 'no report is written');
  // the same bytes, here from another folder, are the run's scenario
  const copy = join(tempDir(t), 'copy');
  mkdirSync(copy);
  writeFileSync(join(copy, 'pivot-refs.json5'), original);
  const restored = await memeval(['rejudge', runDir, '--scenarios', copy], { env: ENV, timeout: timeLimit(240_000) });
  assert.equal(restored.exitCode, 0, String(restored.stdout) + String(restored.stderr));
  assert.match(String(restored.stdout), /^no verdict changed$/m);
});

test('rejudge refuses (exit 3) a cell whose store copy changed after the run, naming the cell and the file', async (t) => {
  const { runDir, report } = await deterministicRun(t, refsScenario(t));
  const vi = report.results.find((c: { phase: string }) => c.phase === 'violation');
  // someone "cleans" the working copy the judges read
  const db = new Database(join(runDir, vi.cell_dir, 'work', 'store.db'));
  db.exec('DELETE FROM records');
  db.close();
  const rj = await memeval(['rejudge', runDir, '--json'], { env: ENV, timeout: timeLimit(240_000) });
  assert.equal(rj.exitCode, 3, String(rj.stdout) + String(rj.stderr));
  assert.match(String(rj.stderr), new RegExp(`${vi.cell_id}.*work/store\\.db|work/store\\.db.*${vi.cell_id}`));
  assert.equal(
    readdirSync(join(runDir, '..')).filter((d) => d.startsWith('rejudge-')).length,
    0,
    'no report is written',
  );
});

test('rejudge refuses (exit 3) a cell whose pristine store copy changed', async (t) => {
  const { runDir, report } = await deterministicRun(t, refsScenario(t));
  const wb = report.results.find((c: { phase: string }) => c.phase === 'well-behaved');
  const storeDir = join(runDir, wb.cell_dir, 'store');
  const [file] = readdirSync(storeDir);
  writeFileSync(join(storeDir, file), '');
  const rj = await memeval(['rejudge', runDir], { env: ENV, timeout: timeLimit(240_000) });
  assert.equal(rj.exitCode, 3, String(rj.stdout) + String(rj.stderr));
  assert.match(String(rj.stderr), new RegExp(wb.cell_id));
  assert.match(String(rj.stderr), new RegExp(`store/${file.replace(/\./g, '\\.')}`));
});

test('rejudge of an interrupted run exits 130, like the run', async (t) => {
  const dir = tempDir(t);
  const out = tempDir(t);
  const tmp = tempDir(t);
  const sc = scenarioDir(dir, 4, {
    assertions: [{ kind: 'recall', name: 'recalls dark mode', phase: 'both', query: 'dark', contains: 'dark mode' }],
  });
  const target = faultyTarget(dir, 'faulty', 'slow-recall', { call_timeout_ms: 60000 });
  const child = memeval(['run', '--scenarios', sc, '--target', target, '--out', out, '--workers', '2'], {
    env: { NO_COLOR: '1', TMPDIR: tmp },
    timeout: timeLimit(120_000),
  });
  await until('two servers', () => fixtureProcesses(tmp, FAULTY).length >= 2);
  child.kill('SIGINT');
  const r = await child;
  assert.equal(r.exitCode, 130, String(r.stderr));
  const runDir = onlyRun(out);
  assert.equal(readJson(join(runDir, 'report.json')).status, 'interrupted');
  const rj = await memeval(['rejudge', runDir, '--json'], { env: ENV, timeout: timeLimit(120_000) });
  assert.equal(rj.exitCode, 130, String(rj.stderr));
  const again = JSON.parse(String(rj.stdout));
  assert.equal(again.status, 'interrupted');
  assert.equal(again.summary.exit_code, 130);
});

test('rejudge of a blocked run exits 2, like the run', async (t) => {
  const out = tempDir(t);
  const r = await memeval(
    [
      'run',
      '--agent-turn',
      '--agent',
      'claude-code',
      '--model',
      'claude-x',
      '--scenario',
      'cross-session-recall',
      '--out',
      out,
    ],
    { env: ENV },
  );
  assert.equal(r.exitCode, 2, String(r.stderr));
  const runDir = onlyRun(out);
  const rj = await memeval(['rejudge', runDir, '--json'], { env: ENV, timeout: timeLimit(120_000) });
  assert.equal(rj.exitCode, 2, String(rj.stdout) + String(rj.stderr));
  const again = JSON.parse(String(rj.stdout));
  assert.equal(again.status, 'blocked');
  assert.equal(again.summary.exit_code, 2);
});

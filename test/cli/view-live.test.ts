/**
 * `memeval view` of a run that is still being written shows the cells that have finished, the
 * others as pending, and says it is running; a run whose writer is gone without a report is
 * "cut off"; once the run ends its page is the report's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureProcesses, memeval, scenario, tempDir, timeLimit, writeJson, until } from '../helpers.ts';
import { FAULTY, faultyTarget } from '../faulty.ts';

/** The page's embedded data: the report (or partial report) it renders. */
function pageData(html: string) {
  const m = /<script type="application\/json" id="memeval-data">(.*?)<\/script>/s.exec(html);
  assert.ok(m, 'the page embeds its data');
  return JSON.parse(m[1]).report as {
    status: string;
    results: { cell_id: string; verdict: string }[];
    live?: { state: string; finished: number; planned: number; pending: { cell_id: string }[] };
  };
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

test(
  'view of a running run shows the finished cells, the rest pending, and says it is running; cut off when its writer is gone',
  { timeout: timeLimit(240_000) },
  async (t) => {
    const dir = tempDir(t);
    const out = tempDir(t);
    const tmp = tempDir(t);
    const sc = join(dir, 'sc');
    mkdirSync(sc);
    // `fast` finishes; `hangs` waits on a recall the server never answers, holding the run open
    writeJson(join(sc, 'fast.json'), scenario('fast'));
    writeJson(
      join(sc, 'hangs.json'),
      scenario('hangs', {
        assertions: [
          { kind: 'recall', name: 'recalls dark mode', phase: 'both', query: 'dark', contains: 'dark mode' },
        ],
      }),
    );
    const target = faultyTarget(dir, 'faulty', 'slow-recall', { call_timeout_ms: 120_000 });
    const child = memeval(['run', '--scenarios', sc, '--target', target, '--out', out, '--workers', '4'], {
      env: { NO_COLOR: '1', TMPDIR: tmp },
      timeout: timeLimit(200_000),
    });
    // only a run folder: the run's check that --out is writable briefly leaves a dot-file there
    const runs = () => readdirSync(out).filter((d) => !d.startsWith('.'));
    await until('the run folder', () => runs().length > 0);
    const [id] = runs();
    const runDir = join(out, id);
    await until('two finished cells', () => lines(join(runDir, 'cells.jsonl')) >= 2);
    await until('two hung servers', () => fixtureProcesses(tmp, FAULTY).length >= 2);

    const page = join(dir, 'live.html');
    const v = await memeval(['view', runDir, '--out', page]);
    assert.equal(v.exitCode, 0, String(v.stderr));
    const html = readFileSync(page, 'utf8');
    assert.match(
      html,
      /<p class="live" id="live">running: 2 of 4 cells finished<span class="meta"> — still being written by pid \d+/,
    );
    const live = pageData(html);
    assert.equal(live.status, 'running');
    assert.deepEqual(
      live.results.map((r) => r.cell_id).sort(),
      ['fast/faulty/violation', 'fast/faulty/well-behaved'],
      'the finished cells, with their verdicts',
    );
    assert.deepEqual(
      live.live?.pending.map((p) => p.cell_id).sort(),
      ['hangs/faulty/violation', 'hangs/faulty/well-behaved'],
      'the unfinished cells are pending, not passed',
    );

    // the same folder whose writer is gone (a pid that has exited): cut off, not running
    const gone = join(out, '2000-01-01T00-00-00Z-0ff0ff');
    mkdirSync(gone);
    for (const f of ['live.json', 'cells.jsonl']) copyFileSync(join(runDir, f), join(gone, f));
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(join(gone, '.running'), JSON.stringify({ pid: dead, started_at: new Date().toISOString() }));
    const cut = await memeval(['view', gone]);
    assert.equal(cut.exitCode, 0, String(cut.stderr));
    const cutHtml = readFileSync(join(gone, 'report.html'), 'utf8');
    assert.match(cutHtml, /cut off: 2 of 4 cells finished/);
    assert.doesNotMatch(cutHtml, /id="live">running/);
    assert.equal(pageData(cutHtml).status, 'cut off');
    const list = await memeval(['runs', 'list', '--runs', out]);
    assert.match(String(list.stdout), new RegExp(`^${id}  run +running`, 'm'));
    assert.match(String(list.stdout), /^2000-01-01T00-00-00Z-0ff0ff  run +cut off /m);

    child.kill('SIGINT');
    const r = await child;
    assert.equal(r.exitCode, 130, String(r.stderr));
    for (const f of ['live.json', 'cells.jsonl'])
      assert.equal(existsSync(join(runDir, f)), false, `${f} goes once the report is written`);
    const after = await memeval(['view', runDir]);
    assert.equal(after.exitCode, 0, String(after.stderr));
    const done = readFileSync(join(runDir, 'report.html'), 'utf8');
    assert.doesNotMatch(done, /id="live"/);
    assert.equal(pageData(done).status, 'interrupted');
    assert.equal(pageData(done).results.length, 4);
  },
);

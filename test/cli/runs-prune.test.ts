import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureProcesses, memeval, tempDir, timeLimit, until } from '../helpers.ts';
import { FAULTY, faultyTarget, scenarioDir } from '../faulty.ts';

test(
  'runs prune never deletes a run that is still being written; the run then reports every cell',
  { timeout: timeLimit(240_000) },
  async (t) => {
    const dir = tempDir(t);
    const out = tempDir(t);
    const tmp = tempDir(t);
    const sc = scenarioDir(dir, 2, {
      assertions: [{ kind: 'recall', name: 'recalls dark mode', phase: 'both', query: 'dark', contains: 'dark mode' }],
    });
    // the server never answers a recall: the run stays open until it is interrupted
    const target = faultyTarget(dir, 'faulty', 'slow-recall', { call_timeout_ms: 120_000 });
    const child = memeval(['run', '--scenarios', sc, '--target', target, '--out', out, '--workers', '2'], {
      env: { NO_COLOR: '1', TMPDIR: tmp },
      timeout: timeLimit(200_000),
    });
    await until('two servers', () => fixtureProcesses(tmp, FAULTY).length >= 2);
    const [live] = readdirSync(out);
    // a newer, finished run: with --keep 1 the live one is the one prune would remove
    const newer = join(out, '2999-01-01T00-00-00Z-000000');
    mkdirSync(newer);
    writeFileSync(join(newer, 'report.json'), JSON.stringify({ status: 'completed' }));

    const list = await memeval(['runs', 'list', '--runs', out]);
    assert.match(String(list.stdout), new RegExp(`^${live}  run +running`, 'm'));
    const prune = await memeval(['runs', 'prune', '--keep', '1', '--runs', out]);
    assert.equal(prune.exitCode, 0, String(prune.stderr));
    assert.match(String(prune.stdout), new RegExp(`^kept ${live}: still being written by pid \\d+$`, 'm'));
    assert.match(String(prune.stdout), /^removed 0 run\(s\)/m);
    assert.ok(existsSync(join(out, live)));

    child.kill('SIGINT');
    const r = await child;
    assert.equal(r.exitCode, 130, String(r.stderr));
    const report = JSON.parse(readFileSync(join(out, live, 'report.json'), 'utf8'));
    assert.equal(report.results.length, 4, 'every cell of the run is in its report');
    assert.equal(existsSync(join(out, live, '.running')), false, 'a finished run is no longer marked running');
  },
);

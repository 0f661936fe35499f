import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { copies, faultyDecl, runInline } from '../kit.ts';

const RECALL = {
  assertions: [
    { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
    { kind: 'recall', name: 'recalls dark mode', phase: 'well-behaved', query: 'dark', contains: 'dark mode' },
  ],
};

/** One scenario on the fault server in `fault` mode, one cell at a time. */
const onFaulty = (fault: string, over: Record<string, unknown> = {}) => ({
  scenarios: copies(1, over),
  targets: [faultyDecl('faulty', fault)],
  config: { workers: 1 },
});

function du(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

test('log lines on stdout among JSON-RPC: the cell goes on with one warning naming the lines', async (t) => {
  const r = await runInline(t, onFaulty('noise'));
  assert.equal(r.exitCode, 0, r.output);
  for (const res of r.results) {
    const w = res.warnings.filter((x) => /not JSON-RPC/.test(x));
    assert.equal(w.length, 1, JSON.stringify(res.warnings));
    assert.match(w[0], /"\[faulty\] starting up"/);
    assert.match(w[0], /"\[faulty\] call save"/);
  }
});

test('a 30 MB stderr flood is capped per cell: head and tail kept, the dropped bytes counted', async (t) => {
  const r = await runInline(t, onFaulty('stderr:30000000'));
  assert.equal(r.exitCode, 0, r.output);
  assert.ok(du(r.out) < 2_000_000, `run dir is ${du(r.out)} bytes`);
  const log = readFileSync(join(r.out, r.report.run_id, r.results[0].cell_dir, 'stderr.1.log'), 'utf8');
  assert.match(log, /memeval dropped \d{7,} bytes of stderr here/);
  assert.match(log, /^E{100}/);
});

test('a server that dies during the recall probe: stderr tail kept, the reason names the exit code', async (t) => {
  const r = await runInline(t, onFaulty('crash-on-recall', RECALL));
  assert.equal(r.exitCode, 1);
  const wb = r.cell('s1', 'well-behaved');
  assert.equal(wb.verdict, 'error');
  assert.match(wb.reason, /search: server exited with code 9/);
  assert.doesNotMatch(wb.reason, /Connection closed/);
  assert.match(wb.stderr_tail ?? '', /fatal: index corrupted while searching/);
  assert.match(readFileSync(join(r.out, r.report.run_id, wb.cell_dir, 'stderr.probe.log'), 'utf8'), /index corrupted/);
});

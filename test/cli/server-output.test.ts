import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir, timeLimit } from '../helpers.ts';
import { faultyTarget, scenarioDir } from '../faulty.ts';

const RECALL = {
  assertions: [
    { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
    { kind: 'recall', name: 'recalls dark mode', phase: 'well-behaved', query: 'dark', contains: 'dark mode' },
  ],
};

async function run(t: { after: (fn: () => void) => void }, fault: string, over: Record<string, unknown> = {}) {
  const dir = tempDir(t);
  const out = tempDir(t);
  const sc = scenarioDir(dir, 1, over);
  const file = faultyTarget(dir, 'faulty', fault);
  const r = await memeval(['run', '--scenarios', sc, '--target', file, '--out', out, '--json', '--workers', '1'], {
    timeout: timeLimit(240_000),
  });
  const report = JSON.parse(String(r.stdout));
  return { r, report, out };
}

function du(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

test('log lines on stdout among JSON-RPC: the cell goes on with one warning naming the lines', async (t) => {
  const { r, report } = await run(t, 'noise');
  assert.equal(r.exitCode, 0, String(r.stderr));
  for (const res of report.results) {
    const w = res.warnings.filter((x: string) => /not JSON-RPC/.test(x));
    assert.equal(w.length, 1, JSON.stringify(res.warnings));
    assert.match(w[0], /"\[faulty\] starting up"/);
    assert.match(w[0], /"\[faulty\] call save"/);
  }
});

test('a 30 MB stderr flood is capped per cell: head and tail kept, the dropped bytes counted', async (t) => {
  const { r, report, out } = await run(t, 'stderr:30000000');
  assert.equal(r.exitCode, 0, String(r.stderr));
  assert.ok(du(out) < 2_000_000, `run dir is ${du(out)} bytes`);
  const log = readFileSync(join(out, report.run_id, report.results[0].cell_dir, 'stderr.1.log'), 'utf8');
  assert.match(log, /memeval dropped \d{7,} bytes of stderr here/);
  assert.match(log, /^E{100}/);
});

test('a server that dies during the recall probe: stderr tail kept, the reason names the exit code', async (t) => {
  const { r, report, out } = await run(t, 'crash-on-recall', RECALL);
  assert.equal(r.exitCode, 1);
  const wb = report.results.find((x: { phase: string }) => x.phase === 'well-behaved');
  assert.equal(wb.verdict, 'error');
  assert.match(wb.reason, /search: server exited with code 9/);
  assert.doesNotMatch(wb.reason, /Connection closed/);
  assert.match(wb.stderr_tail ?? '', /fatal: index corrupted while searching/);
  assert.match(readFileSync(join(out, report.run_id, wb.cell_dir, 'stderr.probe.log'), 'utf8'), /index corrupted/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir, timeLimit } from '../helpers.ts';
import { faultyTarget, scenarioDir } from '../faulty.ts';

/** Processes whose command line holds `mark` (found from outside any PID namespace). */
export function marked(mark: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(mark)) out.push(Number(p));
    } catch {
      /* gone */
    }
  }
  return out;
}

for (const [mode, env] of [
  ['a PID namespace', {}],
  ['the environment-tag fallback', { MEMEVAL_PID_NAMESPACE: '0' }],
] as const)
  test(`a server that starts a daemon in its own session leaves nothing behind (${mode})`, async (t) => {
    const dir = tempDir(t);
    const out = tempDir(t);
    const mark = `mark-${randomUUID()}`;
    const log = join(dir, 'daemons.log');
    t.after(() => marked(mark).forEach((pid) => process.kill(pid, 'SIGKILL')));
    const sc = scenarioDir(dir, 2);
    const file = faultyTarget(dir, 'faulty', 'daemon', {}, { DAEMON_MARK: mark, DAEMON_LOG: log });
    const r = await memeval(['run', '--scenarios', sc, '--target', file, '--out', out, '--json', '--workers', '1'], {
      timeout: timeLimit(120_000),
      env: { NO_COLOR: '1', ...env },
    });
    assert.equal(r.exitCode, 0, String(r.stderr));
    const started = readFileSync(log, 'utf8').trim().split('\n').length;
    assert.ok(started >= 4, `the server started ${started} daemons`);
    assert.deepEqual(marked(mark), [], 'no daemon outlived the run');
    const report = JSON.parse(String(r.stdout));
    const warned = report.warnings.some((w: string) => /no PID namespace/.test(w));
    assert.equal(warned, mode !== 'a PID namespace', 'the report says when there was no PID namespace');
  });

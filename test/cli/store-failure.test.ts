// A server that logs that its declared store could not be opened, and carries on with something
// else, is `error` with that line: never a verdict about a store it did not use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memeval, tempDir, timeLimit } from '../helpers.ts';
import { faultyTarget, scenarioDir } from '../faulty.ts';

async function run(t: { after: (fn: () => void) => void }, fault: string, server: Record<string, unknown> = {}) {
  const dir = tempDir(t);
  const out = tempDir(t);
  const file = faultyTarget(dir, 'faulty', fault, server);
  const r = await memeval(['run', '--scenarios', scenarioDir(dir, 1), '--target', file, '--out', out, '--json'], {
    timeout: timeLimit(240_000),
  });
  return { r, report: JSON.parse(String(r.stdout)) };
}

test('a built-in store failure on stderr ("Could not locate the bindings file", split over two writes) makes every cell error with the line', async (t) => {
  const { r, report } = await run(t, 'store-fallback:stderr');
  assert.equal(r.exitCode, 1, String(r.stderr));
  assert.equal(report.results.length, 2);
  for (const res of report.results) {
    assert.equal(res.verdict, 'error', JSON.stringify(res));
    assert.match(
      res.reason,
      /store could not be opened: server session 1 stderr: Error: Could not locate the bindings file\. Tried:/,
    );
  }
});

test('a declared server.store_failure pattern matched on a non-JSON-RPC stdout line makes the cell error', async (t) => {
  const { r, report } = await run(t, 'store-fallback:stdout', { store_failure: ['falling back to in-memory'] });
  assert.equal(r.exitCode, 1, String(r.stderr));
  for (const res of report.results) {
    assert.equal(res.verdict, 'error', JSON.stringify(res));
    assert.match(
      res.reason,
      /server session 1 stdout: \[faulty\] cannot open store\.db, falling back to in-memory storage/,
    );
  }
});

test('the same line without a declared pattern is only noise: the cells keep their verdicts', async (t) => {
  const { r, report } = await run(t, 'store-fallback:stdout');
  assert.equal(r.exitCode, 0, String(r.stderr));
  for (const res of report.results) assert.notEqual(res.verdict, 'error', JSON.stringify(res));
});

test('validate: a server.store_failure that is not a regex is exit 3 naming the field', async (t) => {
  const dir = tempDir(t);
  const file = faultyTarget(dir, 'faulty', 'ok', { store_failure: ['falling back ('] });
  const r = await memeval(['validate', file]);
  assert.equal(r.exitCode, 3, String(r.stdout) + String(r.stderr));
  assert.match(String(r.stdout) + String(r.stderr), /server\.store_failure/);
});

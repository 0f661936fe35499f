// A server that logs that its declared store could not be opened, and carries on with something
// else, is `error` with that line: never a verdict about a store it did not use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memeval } from '../helpers.ts';
import { copies, faultyDecl, faultyTarget, runInline, tempDir } from '../kit.ts';

/** One scenario on the fault server in `fault` mode. */
const onFaulty = (fault: string, server: Record<string, unknown> = {}) => ({
  scenarios: copies(1),
  targets: [faultyDecl('faulty', fault, server)],
});

test('a built-in store failure on stderr ("Could not locate the bindings file", split over two writes) makes every cell error with the line', async (t) => {
  const r = await runInline(t, onFaulty('store-fallback:stderr'));
  assert.equal(r.exitCode, 1, r.output);
  assert.equal(r.results.length, 2);
  for (const res of r.results) {
    assert.equal(res.verdict, 'error', JSON.stringify(res));
    assert.match(
      res.reason,
      /store could not be opened: server session 1 stderr: Error: Could not locate the bindings file\. Tried:/,
    );
  }
});

test('a declared server.store_failure pattern matched on a non-JSON-RPC stdout line makes the cell error', async (t) => {
  const r = await runInline(t, onFaulty('store-fallback:stdout', { store_failure: ['falling back to in-memory'] }));
  assert.equal(r.exitCode, 1, r.output);
  for (const res of r.results) {
    assert.equal(res.verdict, 'error', JSON.stringify(res));
    assert.match(
      res.reason,
      /server session 1 stdout: \[faulty\] cannot open store\.db, falling back to in-memory storage/,
    );
  }
});

test('the same line without a declared pattern is only noise: the cells keep their verdicts', async (t) => {
  const r = await runInline(t, onFaulty('store-fallback:stdout'));
  assert.equal(r.exitCode, 0, r.output);
  for (const res of r.results) assert.notEqual(res.verdict, 'error', JSON.stringify(res));
});

test('validate: a server.store_failure that is not a regex is exit 3 naming the field', async (t) => {
  const dir = tempDir(t);
  const file = faultyTarget(dir, 'faulty', 'ok', { store_failure: ['falling back ('] });
  const r = await memeval(['validate', file]);
  assert.equal(r.exitCode, 3, String(r.stdout) + String(r.stderr));
  assert.match(String(r.stdout) + String(r.stderr), /server\.store_failure/);
});

/** Issue 31: a selection reaches the built-in scenarios of scenarios/recall/ from the command line. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memeval } from '../helpers.ts';

test("memeval list --scenario 'recall-*' lists the recall suite's scenarios beside scenarios/recall-*", async () => {
  const r = await memeval(['list', '--scenario', 'recall-*', '--json']);
  assert.equal(r.exitCode, 0, r.stderr);
  const ids = (JSON.parse(r.stdout) as { scenarios: { id: string; file: string }[] }).scenarios.map((s) => s.id);
  assert.ok(ids.includes('recall-twice-same-session'), ids.join(', '));
  assert.ok(ids.includes('recall-relevant'), ids.join(', '));
  assert.ok(ids.includes('recall-superseded'), ids.join(', '));
});

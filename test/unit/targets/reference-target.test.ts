import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadAllTargets, loadTarget } from '../../../src/targets/loader.js';
import { targetNames } from '../../../src/targets/install-many.js';
import { usesProvider } from '../../../src/model/provider/cell.js';
import { ROOT } from '../../helpers.js';

test('--target reference finds the reference server declaration; `all` (the scoreboard of npm packages) leaves it out', () => {
  const t = loadTarget('reference');
  assert.equal(t.file, join(ROOT, 'eval', 'reference', 'reference.json5'));
  assert.equal(t.decl.server.args[0], '{{memeval_dir}}/eval/reference/server.mjs');
  // one declaration serves every scenario: the provider scenarios need it, the others ignore it
  assert.equal(usesProvider(t.decl), true);
  assert.ok(!loadAllTargets().some((x) => x.decl.name === 'reference'));
  assert.ok(!targetNames(['all']).includes('reference'));
  // a typo still names it among the known targets
  assert.throws(() => loadTarget('refrence'), /did you mean "reference"\?/);
  // a folder given explicitly is the only place looked in
  assert.throws(() => loadTarget('reference', join(ROOT, 'eval', 'targets')), /unknown target "reference"/);
});

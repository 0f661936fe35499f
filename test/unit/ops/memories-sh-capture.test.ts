import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadTarget } from '../../../src/targets/loader.ts';
import { captureId } from '../../../src/ops/ops.ts';

// memories.sh ids use A-Z, a-z, 0-9, _ and -; an id ending in "-" has no word boundary after it
test('the memories-sh declaration captures ids that end in "-"', () => {
  const pattern = loadTarget('memories-sh').decl.ops.remember![0].capture_id;
  assert.equal(
    captureId(pattern, 'Stored 📋 FACT F-c34YavyLB- (project: git.invalid/memeval/fixture)'),
    'F-c34YavyLB-',
  );
  assert.equal(captureId(pattern, 'Stored 📋 FACT AbCdEfGhIjKl (project: x)'), 'AbCdEfGhIjKl');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT, memeval, tempDir, timeLimit } from '../helpers.js';

test(
  'init from a clone prints a command that works in the new project, not `npx memeval` (which would fetch memeval from the registry)',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const project = join(tempDir(t), 'my project');
    const init = await memeval(['init', project]);
    assert.equal(init.exitCode, 0, init.stderr);
    const next = /^next: (.+)$/m.exec(init.stdout)?.[1];
    assert.ok(next, init.stdout);
    assert.doesNotMatch(next, /npx memeval/, 'memeval is not installed in that project');
    assert.ok(next.includes(join(ROOT, 'bin', 'memeval')), next);
    // the line as a user pastes it into a shell
    const run = await execa('sh', ['-c', next], { cwd: tempDir(t), reject: false, env: { NO_COLOR: '1' } });
    assert.equal(run.exitCode, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /1 scenario\(s\) × server-memory/);
    assert.equal(readdirSync(join(project, 'memeval', 'runs')).length, 1);
  },
);

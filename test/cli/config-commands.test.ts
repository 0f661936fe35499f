import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval, tempDir, timeLimit } from '../helpers.js';

test(
  'list and validate follow the project config, as run does: its scenarios and targets, not memeval’s own',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const project = tempDir(t);
    assert.equal((await memeval(['init', project])).exitCode, 0);

    const list = await memeval(['list', '--json'], { cwd: project });
    assert.equal(list.exitCode, 0, String(list.stderr));
    assert.deepEqual(
      JSON.parse(String(list.stdout)).scenarios.map((s: { id: string }) => s.id),
      ['remembers-package-manager'],
    );

    const validate = await memeval(['validate'], { cwd: project });
    assert.equal(validate.exitCode, 0, String(validate.stderr));
    const out = String(validate.stdout);
    assert.match(out, new RegExp(`^config: ${join(project, 'memeval.config.json')}$`, 'm'));
    assert.match(out, /remembers-package-manager\.json5 \(scenario\)/);
    assert.match(out, /server-memory\.json5 \(target\)/);
    assert.match(out, /^2 file\(s\) valid$/m);

    // a target the config names that does not exist: exit 3 naming the file, the field and the nearest name
    writeFileSync(join(project, 'memeval.config.json'), JSON.stringify({ targets: ['server-memroy'] }));
    const typo = await memeval(['validate'], { cwd: project });
    assert.equal(typo.exitCode, 3);
    assert.match(
      String(typo.stderr),
      /memeval\.config\.json: targets: no target "server-memroy" \(did you mean "server-memory"\?\)/,
    );
    // a field the config does not have: exit 3 too, as in run
    writeFileSync(join(project, 'memeval.config.json'), JSON.stringify({ scenario: 'x' }));
    const bad = await memeval(['list'], { cwd: project });
    assert.equal(bad.exitCode, 3);
    assert.match(String(bad.stderr), /memeval\.config\.json/);
  },
);

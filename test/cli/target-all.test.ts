// `--target all,<more>` through the CLI: every named target is in the run, each built-in once.
// With an empty package cache every target but the dependency server-memory is not installed,
// and `run` names each one it would have run (exit 3) before anything starts: the run's targets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllTargets } from '../../src/targets/loader.js';
import { memeval, ROOT, tempDir } from '../helpers.ts';

const builtins = loadAllTargets()
  .map((t) => t.decl.name)
  .filter((n) => n !== 'server-memory');

/** The targets `run` says are not installed, in an empty cache. */
async function notInstalled(t: { after: (fn: () => void) => void }, targets: string): Promise<string[]> {
  const dir = tempDir(t);
  const cache = join(dir, 'cache');
  mkdirSync(cache);
  const r = await memeval(['run', '--target', targets, '--out', join(dir, 'runs')], {
    env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache },
  });
  assert.equal(r.exitCode, 3, String(r.stdout) + String(r.stderr));
  assert.doesNotMatch(String(r.stderr), /are both/, 'no target is asked for twice');
  return [...String(r.stderr).matchAll(/^error: target (\S+): .* is not installed/gm)].map((m) => m[1]);
}

test('run --target all,<file>: the file runs beside every built-in target', async (t) => {
  const file = join(tempDir(t), 'libsql-copy.json5');
  writeFileSync(
    file,
    readFileSync(join(ROOT, 'eval', 'targets', 'mcp-memory-libsql.json5'), 'utf8').replace(
      'name: "mcp-memory-libsql"',
      'name: "libsql-copy"',
    ),
  );
  assert.deepEqual(await notInstalled(t, `all,${file}`), [...builtins, 'libsql-copy']);
  assert.deepEqual(await notInstalled(t, `${file},all`), ['libsql-copy', ...builtins]);
});

test('run --target all beside a built-in name or its file: that target runs once', async (t) => {
  const keeper = 'mcp-memory-keeper';
  const rest = builtins.filter((n) => n !== keeper);
  assert.deepEqual(await notInstalled(t, `all,${keeper}`), [...rest, keeper]);
  assert.deepEqual(await notInstalled(t, `${keeper},all`), [keeper, ...rest]);
  assert.deepEqual(await notInstalled(t, `all,${join(ROOT, 'eval', 'targets', `${keeper}.json5`)}`), [...rest, keeper]);
});

test('validate: a project config naming all and a file checks the file too', async (t) => {
  const project = tempDir(t);
  writeFileSync(join(project, 'broken.json5'), '{ name: "broken", ');
  writeFileSync(join(project, 'memeval.config.json'), JSON.stringify({ targets: ['all', './broken.json5'] }));
  const r = await memeval(['validate'], { cwd: project });
  assert.equal(r.exitCode, 3, String(r.stdout) + String(r.stderr));
  assert.match(String(r.stderr), /broken\.json5/);
});

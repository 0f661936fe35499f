import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { join } from 'node:path';
import { memeval, tempDir, timeLimit, until, writeJson } from '../helpers.js';

test('two installs of the same target at once take turns: one installs, the other finds it done', async (t) => {
  const cache = tempDir(t);
  const env = { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache };
  const [a, b] = await Promise.all([
    memeval(['targets', 'install', 'mcp-memory-libsql'], { env }),
    memeval(['targets', 'install', 'mcp-memory-libsql'], { env }),
  ]);
  assert.equal(a.exitCode, 0, String(a.stderr));
  assert.equal(b.exitCode, 0, String(b.stderr));
  const outs = [String(a.stdout), String(b.stdout)];
  assert.equal(outs.filter((o) => /^installed mcp-memory-libsql/m.test(o)).length, 1, outs.join('\n---\n'));
  assert.equal(outs.filter((o) => /^already\s+mcp-memory-libsql/m.test(o)).length, 1, outs.join('\n---\n'));
  assert.deepEqual(
    readdirSync(join(cache, 'targets')),
    ['mcp-memory-libsql@0.0.17'],
    'no lock or staging dir left behind',
  );
  const list = await memeval(['targets', 'list'], { env });
  assert.match(String(list.stdout), /mcp-memory-libsql\s+installed/);
  assert.match(String(list.stdout), /memorix\s+not installed/);
});

test('a failed install says which package failed and why, exits 1, and leaves nothing half-installed', async (t) => {
  const cache = tempDir(t);
  const dir = tempDir(t);
  const file = writeJson(join(dir, 'ghost.json5'), {
    name: 'ghost',
    description: 'a package that does not exist, made by the test',
    package: { npm: 'memeval-test-no-such-package-7f3a', version: '0.0.1', bin: 'ghost' },
    store: { format: 'jsonl', path: '{{data}}/x.jsonl' },
    views: { memories: 'SELECT 1 AS id, 2 AS content, 3 AS category, 4 AS source, 0 AS is_deleted' },
    ops: {},
  });
  const r = await memeval(['targets', 'install', file], { env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache } });
  assert.equal(r.exitCode, 1);
  assert.match(
    String(r.stderr),
    /install failed: ghost: npm install of memeval-test-no-such-package-7f3a@0\.0\.1 failed/,
  );
  assert.deepEqual(readdirSync(join(cache, 'targets')), []);
  const run = await memeval(['run', '--target', file, '--out', dir], {
    env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache },
  });
  assert.equal(run.exitCode, 3);
  assert.match(String(run.stderr), /not installed; run `memeval targets install ghost`/);
});

test("install_env reaches the packages' install scripts, and npm's own settings cannot be declared", async (t) => {
  const cache = tempDir(t);
  const dir = tempDir(t);
  // a package whose postinstall fails unless its documented switch skips a download (onnxruntime-node's kind)
  mkdirSync(join(dir, 'package'));
  writeJson(join(dir, 'package', 'package.json'), {
    name: 'memeval-install-env-probe',
    version: '1.0.0',
    bin: { probe: 'probe.js' },
    scripts: { postinstall: 'node -e "process.exit(process.env.PROBE_DOWNLOAD === \'skip\' ? 0 : 7)"' },
  });
  writeFileSync(join(dir, 'package', 'probe.js'), '#!/usr/bin/env node\n');
  await execa('tar', ['czf', 'probe.tgz', 'package'], { cwd: dir });
  const declare = (name: string, pkg: Record<string, unknown>) =>
    writeJson(join(dir, `${name}.json5`), {
      name,
      description: 'a local package whose postinstall needs an environment switch, made by the test',
      package: { npm: 'memeval-install-env-probe', version: `file:${join(dir, 'probe.tgz')}`, bin: 'probe', ...pkg },
      store: { format: 'jsonl', path: '{{data}}/x.jsonl' },
      views: { memories: 'SELECT 1 AS id, 2 AS content, 3 AS category, 4 AS source, 0 AS is_deleted' },
      ops: {},
    });
  const env = { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache };
  const without = await memeval(['targets', 'install', declare('probe-plain', {})], { env });
  assert.equal(without.exitCode, 1, 'the postinstall fails without the switch');
  const withSwitch = await memeval(
    ['targets', 'install', declare('probe-switch', { install_env: { PROBE_DOWNLOAD: 'skip' } })],
    { env },
  );
  assert.equal(withSwitch.exitCode, 0, String(withSwitch.stderr));
  assert.match(String(withSwitch.stdout), /PROBE_DOWNLOAD=skip/);
  const registry = await memeval(
    ['validate', declare('probe-registry', { install_env: { npm_config_registry: 'http://example.invalid/' } })],
    { env },
  );
  assert.equal(registry.exitCode, 3);
  assert.match(String(registry.stderr), /install_env.*npm's own settings/);
});

test('an optional dependency whose install script fails is left out, as npm install leaves it out; the target installs', async (t) => {
  const cache = tempDir(t);
  const dir = tempDir(t);
  // the optional package's postinstall fails (a download that cannot work offline)
  mkdirSync(join(dir, 'opt', 'package'), { recursive: true });
  writeJson(join(dir, 'opt', 'package', 'package.json'), {
    name: 'memeval-optional-probe',
    version: '1.0.0',
    scripts: { postinstall: 'node -e "process.exit(9)"' },
  });
  await execa('tar', ['czf', join(dir, 'opt.tgz'), 'package'], { cwd: join(dir, 'opt') });
  mkdirSync(join(dir, 'main', 'package'), { recursive: true });
  writeJson(join(dir, 'main', 'package', 'package.json'), {
    name: 'memeval-main-probe',
    version: '1.0.0',
    bin: { probe: 'probe.js' },
    optionalDependencies: { 'memeval-optional-probe': `file:${join(dir, 'opt.tgz')}` },
  });
  writeFileSync(join(dir, 'main', 'package', 'probe.js'), '#!/usr/bin/env node\n');
  await execa('tar', ['czf', join(dir, 'main.tgz'), 'package'], { cwd: join(dir, 'main') });
  const file = writeJson(join(dir, 'probe-optional.json5'), {
    name: 'probe-optional',
    description: 'a local package with an optional dependency whose postinstall fails, made by the test',
    package: { npm: 'memeval-main-probe', version: `file:${join(dir, 'main.tgz')}`, bin: 'probe' },
    store: { format: 'jsonl', path: '{{data}}/x.jsonl' },
    views: { memories: 'SELECT 1 AS id, 2 AS content, 3 AS category, 4 AS source, 0 AS is_deleted' },
    ops: {},
  });
  const r = await memeval(['targets', 'install', file], { env: { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache } });
  assert.equal(r.exitCode, 0, String(r.stdout) + String(r.stderr));
  assert.match(String(r.stdout), /optional memeval-optional-probe@1\.0\.0's install script failed; left out/);
  const [installed] = readdirSync(join(cache, 'targets'));
  assert.equal(existsSync(join(cache, 'targets', installed, 'node_modules', 'memeval-optional-probe')), false);
});

test('a long install phase says it is still running, and an install waiting on another says how long it has waited', async (t) => {
  const cache = tempDir(t);
  const dir = tempDir(t);
  const release = join(dir, 'release');
  // a postinstall that holds the install until the test has seen the heartbeats
  mkdirSync(join(dir, 'package'));
  writeJson(join(dir, 'package', 'package.json'), {
    name: 'memeval-slow-install-probe',
    version: '1.0.0',
    bin: { probe: 'probe.js' },
    scripts: {
      // it also lets go once the test's folder is gone, so a failed test leaves nothing waiting
      postinstall: `node -e "const fs=require('fs'),f=process.env.PROBE_RELEASE,t=setInterval(()=>{if(fs.existsSync(f)||!fs.existsSync(require('path').dirname(f)))clearInterval(t)},50)"`,
    },
  });
  writeFileSync(join(dir, 'package', 'probe.js'), '#!/usr/bin/env node\n');
  await execa('tar', ['czf', 'probe.tgz', 'package'], { cwd: dir });
  const file = writeJson(join(dir, 'probe-slow.json5'), {
    name: 'probe-slow',
    description: 'a local package whose postinstall waits for the test, made by the test',
    package: {
      npm: 'memeval-slow-install-probe',
      version: `file:${join(dir, 'probe.tgz')}`,
      bin: 'probe',
      install_env: { PROBE_RELEASE: release },
    },
    store: { format: 'jsonl', path: '{{data}}/x.jsonl' },
    views: { memories: 'SELECT 1 AS id, 2 AS content, 3 AS category, 4 AS source, 0 AS is_deleted' },
    ops: {},
  });
  const env = { NO_COLOR: '1', MEMEVAL_CACHE_DIR: cache, MEMEVAL_HEARTBEAT_MS: '200' };
  let seen = '';
  const children = [memeval(['targets', 'install', file], { env }), memeval(['targets', 'install', file], { env })];
  for (const c of children) for (const s of [c.stdout, c.stderr]) s?.on('data', (d: Buffer) => (seen += String(d)));
  await until(
    'a heartbeat from each install',
    () =>
      /probe-slow: npm install: still running \(\d+ s\)/.test(seen) &&
      /another memeval is installing it; waiting \(\d+ s so far\)/.test(seen),
    timeLimit(180_000),
  );
  writeFileSync(release, '');
  const [a, b] = await Promise.all(children);
  assert.equal(a.exitCode, 0, String(a.stderr));
  assert.equal(b.exitCode, 0, String(b.stderr));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { targetInstallDir } from '../../../src/targets/cache.js';
import { tempDir } from '../../kit.ts';

test('the target install cache is keyed by package and version: a renamed declaration finds the same install', (t) => {
  const cache = tempDir(t);
  const prev = process.env.MEMEVAL_CACHE_DIR;
  process.env.MEMEVAL_CACHE_DIR = cache;
  t.after(() => (prev === undefined ? delete process.env.MEMEVAL_CACHE_DIR : (process.env.MEMEVAL_CACHE_DIR = prev)));
  const pkg = { npm: '@modelcontextprotocol/server-memory', version: '2025.4.25' };
  const dir = targetInstallDir(pkg, 'server-memory');
  assert.equal(targetInstallDir(pkg, 'my-renamed-memory'), dir, 'renaming the declaration keeps the folder');
  assert.equal(dir, join(cache, 'targets', '@modelcontextprotocol+server-memory@2025.4.25'));
  // what changes the install changes the folder
  assert.notEqual(targetInstallDir({ ...pkg, extra: ['zod@3'] }, 'server-memory'), dir);
  assert.notEqual(targetInstallDir({ ...pkg, ignore_scripts: true }, 'server-memory'), dir);
  assert.notEqual(targetInstallDir({ ...pkg, version: '2026.1.1' }, 'server-memory'), dir);
  // an explicit install_name still names the folder
  assert.equal(targetInstallDir({ ...pkg, install_name: 'shared' }, 'x'), join(cache, 'targets', 'shared@2025.4.25'));
  // an install an earlier memeval keyed by declaration name stays in use: not installed again
  const legacy = join(cache, 'targets', 'old-name@2025.4.25');
  mkdirSync(legacy, { recursive: true });
  assert.equal(targetInstallDir(pkg, 'old-name'), legacy);
});

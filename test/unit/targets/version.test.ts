import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitTargetRef } from '../../../src/targets/version.js';
import { compareVersions } from '../../../src/util/versions.js';

test('splitTargetRef: name@spec, a name alone, and a path whose folder holds an @', () => {
  assert.deepEqual(splitTargetRef('server-memory@2025.11.25'), { name: 'server-memory', spec: '2025.11.25' });
  assert.deepEqual(splitTargetRef('server-memory@^2025'), { name: 'server-memory', spec: '^2025' });
  assert.deepEqual(splitTargetRef('server-memory@'), { name: 'server-memory', spec: '' });
  assert.deepEqual(splitTargetRef('server-memory'), { name: 'server-memory' });
  assert.deepEqual(splitTargetRef('./decls/@me/mine.json5'), { name: './decls/@me/mine.json5' });
  assert.deepEqual(splitTargetRef('./decls/@me/mine.json5@1.0.0'), { name: './decls/@me/mine.json5', spec: '1.0.0' });
});

test('compareVersions: numeric parts (npm view lists a range as text-sorted), a prerelease before its release', () => {
  // the order npm view printed for @modelcontextprotocol/server-memory@^2025
  const listed = ['2025.11.25', '2025.4.25', '2025.8.4', '2025.9.25'];
  assert.deepEqual([...listed].sort(compareVersions), ['2025.4.25', '2025.8.4', '2025.9.25', '2025.11.25']);
  assert.ok(compareVersions('1.0.0-beta.1', '1.0.0') < 0);
  assert.ok(compareVersions('1.0.0', '1.0.0-beta.1') > 0);
  assert.ok(compareVersions('1.0.0-alpha', '1.0.0-beta') < 0);
  assert.equal(compareVersions('0.6.2', '0.6.2'), 0);
});

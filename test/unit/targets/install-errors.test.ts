import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { refusedPackage } from '../../../src/targets/npm-error.js';
import { installFailureMessage } from '../../../src/targets/install.js';
import { checkTarget } from '../../../src/app/target-check.js';
import { tempDir } from '../../kit.ts';

// recorded from npm 11.19.1: `npm install` of a manifest depending on a package the registry does not have
const E404_NPM11 = `npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/@nunchiai%2famcp-sdk
npm error 404
npm error 404  The requested resource '@nunchiai/amcp-sdk@^0.1.0' could not be found or you do not have permission to access it.
npm error 404
npm error 404 Note that you can also install from a
npm error 404 tarball, folder, http url, or git url.
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-28T09_23_53_328Z-debug-0.log`;
// npm 8/9 wording
const E404_NPM9 = `npm ERR! code E404
npm ERR! 404 Not Found - GET https://registry.npmjs.org/@nunchiai%2famcp-sdk - Not found
npm ERR! 404
npm ERR! 404  '@nunchiai/amcp-sdk@^0.1.0' is not in this registry.`;
// recorded from npm 11.19.1: a range no version matches
const ETARGET = `npm error code ETARGET
npm error notarget No matching version found for commander@^99.0.0.
npm error notarget In most cases you or one of your dependencies are requesting a package version that doesn't exist.
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-28T09_23_54_835Z-debug-0.log`;

test('refusedPackage: the package npm says the registry refused, from real npm output', () => {
  const scoped = { code: 'E404', name: '@nunchiai/amcp-sdk', spec: '@nunchiai/amcp-sdk@^0.1.0' };
  assert.deepEqual(refusedPackage(E404_NPM11), scoped);
  assert.deepEqual(refusedPackage(E404_NPM9), scoped);
  assert.deepEqual(refusedPackage(E404_NPM11.split('\n').slice(0, 2).join('\n')), {
    code: 'E404',
    name: '@nunchiai/amcp-sdk',
  });
  assert.deepEqual(refusedPackage(ETARGET), { code: 'ETARGET', name: 'commander', spec: 'commander@^99.0.0' });
  assert.equal(refusedPackage('npm error code EACCES\nnpm error syscall mkdir'), undefined);
  assert.equal(refusedPackage(''), undefined);
});

const spec = { label: 'amcp', npm: '@nunchiai/amcp-server', version: '0.3.0', bin: 'amcp', builds: undefined };

test('an install failing on a dependency names that dependency, not the target, in the error and the hint', () => {
  const m = installFailureMessage(spec, 1, E404_NPM11);
  assert.match(
    m,
    /the registry does not have \(or denies access to\) @nunchiai\/amcp-sdk@\^0\.1\.0, a dependency of @nunchiai\/amcp-server@0\.3\.0/,
  );
  assert.match(m, /npm view @nunchiai\/amcp-sdk versions/);
  assert.doesNotMatch(m, /npm view @nunchiai\/amcp-server/);
  // the target's own version missing: the hint is about the target
  const own = installFailureMessage({ ...spec, npm: 'commander', version: '99.0.0' }, 1, ETARGET);
  assert.match(own, /has no version matching commander@\^99\.0\.0/);
  assert.match(own, /npm view commander versions/);
  // npm named nothing: the old hint, still a failure
  assert.match(
    installFailureMessage(spec, 1, 'npm error code ECONNREFUSED'),
    /failed \(exit 1\)[\s\S]*registry is reachable/,
  );
});

test('targets check of a target not installed: the hint names `memeval targets check … --install`, not memeval run', async (t) => {
  const dir = tempDir(t);
  const prev = process.env.MEMEVAL_CACHE_DIR;
  process.env.MEMEVAL_CACHE_DIR = join(dir, 'cache');
  t.after(() => (prev === undefined ? delete process.env.MEMEVAL_CACHE_DIR : (process.env.MEMEVAL_CACHE_DIR = prev)));
  await assert.rejects(checkTarget('mcp-memory-keeper'), (e: Error) => {
    assert.match(e.message, /is not installed; run `memeval targets check mcp-memory-keeper --install`/);
    assert.doesNotMatch(e.message, /memeval run/);
    return true;
  });
});

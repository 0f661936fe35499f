import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { execaSync } from 'execa';
import { AGENT_NAMES } from '../../src/agent/types.ts';
import { cacheDir } from '../../src/targets/cache.ts';
import { memeval, tempDir, timeLimit } from '../helpers.ts';

// Installs and runs leave the user's HOME alone: everything goes to memeval's cache or the fixture.

function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      out.push(relative(dir, p) + (e.isDirectory() ? '/' : ''));
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

function fakeHome(t: { after: (fn: () => void) => void }): { home: string; env: Record<string, string> } {
  const home = join(tempDir(t), 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.profile'), "# the user's own file\n");
  // npm keeps its registry settings and download cache where the real user has them
  const npmCache = execaSync('npm', ['config', 'get', 'cache']).stdout.trim();
  // memeval's cache stays where the rest of the suite has it (its default is under the real HOME),
  // so what lands in the fake HOME is only what an agent or an install wrote there
  return {
    home,
    env: {
      HOME: home,
      MEMEVAL_CACHE_DIR: cacheDir(),
      npm_config_userconfig: join(homedir(), '.npmrc'),
      npm_config_cache: npmCache,
      NO_COLOR: '1',
    },
  };
}

test(
  'agents install runs npm with HOME inside the cache: the host HOME is unchanged',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const { home, env } = fakeHome(t);
    const cache = tempDir(t);
    const before = listing(home);
    // opencode's install script writes ~/.config/opencode; a fresh cache makes it really install
    const r = await memeval(['agents', 'install', 'opencode'], {
      env: { ...env, MEMEVAL_CACHE_DIR: cache },
      timeout: timeLimit(540_000),
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.deepEqual(listing(home), before, 'the install wrote into HOME');
    assert.ok(listing(join(cache, 'home')).length > 0, 'the install script wrote into the cache home instead');
  },
);

test('a run with each agent leaves the host HOME unchanged', { timeout: timeLimit(900_000) }, async (t) => {
  const { home, env } = fakeHome(t);
  const before = listing(home);
  const r = await memeval(['agents', 'install', 'all'], { env, timeout: timeLimit(600_000) });
  assert.equal(r.exitCode, 0, r.stderr);
  for (const agent of AGENT_NAMES) {
    const run = await memeval(
      [
        'run',
        '--agent-turn',
        '--agent',
        agent,
        '--model',
        'scripted',
        '--scenario',
        'tentative-preference-not-stored',
        '--json',
        '--out',
        tempDir(t),
      ],
      {
        env,
        timeout: timeLimit(300_000),
      },
    );
    assert.ok(run.stdout.trim().startsWith('{'), `${agent}: no report: ${run.stderr.slice(-800)}`);
    assert.deepEqual(listing(home), before, `${agent} wrote into HOME`);
  }
});

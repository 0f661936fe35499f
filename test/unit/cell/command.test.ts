import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandRunner, commandUnsupported } from '../../../src/cell/command.ts';
import { loadTarget } from '../../../src/targets/loader.ts';
import type { Fixture } from '../../../src/fixture/fixture.ts';

const memory = loadTarget('server-memory').decl;

test('a command judge naming a bin the target does not ship makes the cell unsupported, with both names', () => {
  const a = [{ kind: 'command', name: 'export', bin: 'memories' }];
  assert.match(
    commandUnsupported(a, memory)!,
    /own CLI `memories`.*@modelcontextprotocol\/server-memory.*`mcp-server-memory`/,
  );
  assert.equal(commandUnsupported([{ kind: 'command', name: 'x', bin: 'mcp-server-memory' }], memory), undefined);
  assert.equal(
    commandUnsupported([{ kind: 'command', name: 'x' }], memory),
    undefined,
    'a program of its own runs anywhere',
  );
  const local = { ...memory, package: undefined };
  assert.match(commandUnsupported(a, local)!, /local server/);
});

test('the runner: fixture env and cwd, the declaration env, a bin of the package, and a time limit that kills', async () => {
  const root = mkdtempSync(join(tmpdir(), 'memeval-cmd-'));
  const f: Fixture = {
    root,
    project: join(root, 'project'),
    home: join(root, 'home'),
    data: join(root, 'data'),
    tmp: join(root, 'tmp'),
    vars: {},
  };
  f.vars = { fixture: f.root, project: f.project, home: f.home, data: f.data, tmp: f.tmp };
  for (const d of [f.project, f.home, f.data, f.tmp]) mkdirSync(d, { recursive: true });
  const pkg = join(root, 'pkg');
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', bin: { mine: 'cli.mjs' } }));
  writeFileSync(
    join(pkg, 'cli.mjs'),
    'console.log(JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd() }))',
  );
  const run = commandRunner({
    decl: memory,
    bin: { packageDir: pkg, file: join(pkg, 'cli.mjs'), version: '1.0.0' },
    fixture: f,
    serverEnv: { EXTRA: 'yes' },
  });
  const env = await run({
    run: [
      'node',
      '-e',
      'console.log([process.env.HOME, process.env.MEMORY_FILE_PATH, process.env.EXTRA, process.cwd()].join("|"))',
    ],
    cwd: '{{project}}',
    timeoutMs: 20_000,
  });
  assert.equal(env.exitCode, 0, env.stderr);
  assert.equal(env.stdout.trim(), [f.home, join(f.data, 'memory.jsonl'), 'yes', f.project].join('|'));
  const own = await run({ bin: 'mine', run: ['export', '{{data}}/x.json'], cwd: '{{data}}', timeoutMs: 20_000 });
  assert.deepEqual(JSON.parse(own.stdout), { argv: ['export', join(f.data, 'x.json')], cwd: f.data });
  const none = await run({ bin: 'other', run: [], cwd: '{{project}}', timeoutMs: 20_000 });
  assert.match(none.spawnError!, /declares no bin `other`/);
  const slow = await run({ run: ['node', '-e', 'setTimeout(() => {}, 60000)'], cwd: '{{project}}', timeoutMs: 300 });
  assert.equal(slow.timedOut, true);
  assert.ok(slow.ms < 30_000);
  const missing = await run({ run: ['no-such-program-memeval'], cwd: '{{project}}', timeoutMs: 20_000 });
  assert.match(missing.spawnError!, /ENOENT/);
});

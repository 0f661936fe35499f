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
  assert.match(
    commandUnsupported(a, local)!,
    /local server \(server\.command\) whose declaration names no program under `cli`/,
  );
});

test('a local target runs a command judge naming a bin its declaration names under cli, and no other', () => {
  const a = [{ kind: 'command', name: 'export', bin: 'memories' }];
  const program = { command: '{{node}}', args: ['{{memeval_dir}}/eval/reference/cli.mjs'] };
  const local = { ...memory, package: undefined, server: { ...memory.server, command: '{{node}}' } };
  assert.equal(commandUnsupported(a, { ...local, cli: { memories: program } }), undefined);
  assert.match(
    commandUnsupported(a, { ...local, cli: { other: program } })!,
    /own CLI `memories`, and target server-memory is a local server .* names only `other` under `cli`/,
  );
  // a name an object has without declaring it is no program
  assert.match(
    commandUnsupported([{ kind: 'command', name: 'x', bin: 'constructor' }], { ...local, cli: {} })!,
    /no program/,
  );
  // a package's CLI is its bin: a cli beside a package (refused at load) is not read
  assert.match(commandUnsupported(a, { ...memory, cli: { memories: program } })!, /does not ship/);
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

  // a local target: its cli programs, placeholders filled, with the server's env and the judge's arguments after its own
  writeFileSync(
    join(f.data, 'cli.mjs'),
    'console.log(JSON.stringify({ argv: process.argv.slice(2), store: process.env.MEMORY_FILE_PATH, extra: process.env.EXTRA, cwd: process.cwd() }))',
  );
  const local = commandRunner({
    decl: {
      ...memory,
      package: undefined,
      server: { ...memory.server, command: '{{node}}' },
      cli: { mine: { command: '{{node}}', args: ['{{data}}/cli.mjs', '--from', '{{home}}'] } },
    },
    bin: { packageDir: '', file: '{{node}}', version: 'local' },
    fixture: f,
    serverEnv: { EXTRA: 'yes' },
  });
  const ran = await local({ bin: 'mine', run: ['stats', '{{tmp}}/x'], cwd: '{{project}}', timeoutMs: 20_000 });
  assert.equal(ran.exitCode, 0, ran.stderr);
  assert.deepEqual(ran.argv, ['mine', 'stats', join(f.tmp, 'x')]);
  assert.deepEqual(JSON.parse(ran.stdout), {
    argv: ['--from', f.home, 'stats', join(f.tmp, 'x')],
    store: join(f.data, 'memory.jsonl'),
    extra: 'yes',
    cwd: f.project,
  });
  const unnamed = await local({ bin: 'other', run: [], cwd: '{{project}}', timeoutMs: 20_000 });
  assert.equal(unnamed.exitCode, null);
  assert.match(unnamed.spawnError!, /names no program `other` under `cli`/);
});

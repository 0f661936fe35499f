// A local target's `cli` field: what the schema and the load-time checks accept and refuse, and
// which declarations name the memories.sh CLI subset the built-in command scenarios call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkPlaceholders } from '../../../src/targets/checks.ts';
import { loadTarget } from '../../../src/targets/loader.ts';
import { checkTargetWiring, targetSchema } from '../../../src/targets/schema.ts';
import { PROJECT_ROOT } from '../../../src/util/paths.ts';

const local = {
  name: 'local',
  description: 'a local server',
  server: { command: '{{node}}', args: ['{{memeval_dir}}/server.mjs'] },
  store: { format: 'sqlite', path: '{{data}}/m.db' },
  views: { memories: 'SELECT 1' },
  ops: {},
};
const program = { command: '{{node}}', args: ['{{memeval_dir}}/cli.mjs', '--store', '{{data}}/m.db'] };

test('cli: programs by name with command and args; args default to none; absent when not declared', () => {
  const decl = targetSchema.parse({ ...local, cli: { memories: program, 'my-tool.v2': { command: '/usr/bin/true' } } });
  assert.deepEqual(decl.cli, { memories: program, 'my-tool.v2': { command: '/usr/bin/true', args: [] } });
  assert.equal(targetSchema.parse(local).cli, undefined);
  assert.deepEqual(checkTargetWiring(decl), []);
  assert.deepEqual(checkPlaceholders(decl), []);
});

test('cli: a name no bin could have, a program without a command, and an unknown field are refused, naming the field', () => {
  const issues = (cli: unknown) =>
    targetSchema.safeParse({ ...local, cli }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  assert.match(issues({ 'my cli': program })!.join('\n'), /^cli\.my cli: not a program name; name it as/);
  assert.match(issues({ '-x': program })!.join('\n'), /^cli\.-x: not a program name/);
  assert.match(issues({ memories: { args: [] } })!.join('\n'), /^cli\.memories\.command: /);
  assert.match(issues({ memories: { command: '' } })!.join('\n'), /^cli\.memories\.command: /);
  assert.match(issues({ memories: { ...program, env: {} } })!.join('\n'), /^cli\.memories: /);
});

test("cli: only a local target's (a package's CLI is its bin), with the fix", () => {
  const decl = targetSchema.parse({
    ...local,
    package: { npm: 'p', version: '1.0.0', bin: 'p' },
    cli: { memories: program },
  });
  assert.deepEqual(checkTargetWiring(decl), [
    "cli: only for a local target (server.command, no package); a package target's command judges run its own bin `p`, so remove cli",
  ]);
});

test('cli: placeholders are {{node}}, {{memeval_dir}} and the fixture dirs; a typo gets a guess', () => {
  const problems = checkPlaceholders(
    targetSchema.parse({
      ...local,
      cli: { memories: { command: '{{nod}}', args: ['{{package_dir}}/cli.js', '{{provider}}', '{{home}}'] } },
    }),
  );
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0], /^cli\.memories\.command: unknown placeholder \{\{nod\}\} \(did you mean \{\{node\}\}\?\)/);
  assert.match(problems[1], /^cli\.memories\.args\[0\]: unknown placeholder \{\{package_dir\}\}/);
  assert.match(problems[2], /^cli\.memories\.args\[1\]: unknown placeholder \{\{provider\}\}/);
});

test('the reference server and the hostile targets the command scenarios meet declare the memories CLI', () => {
  assert.deepEqual(loadTarget('reference').decl.cli, {
    memories: { command: '{{node}}', args: ['{{memeval_dir}}/eval/reference/cli.mjs'] },
  });
  for (const name of ['blackhole', 'crash-exit', 'recall-error', 'refuse', 'soft-forget'])
    assert.deepEqual(loadTarget(join(PROJECT_ROOT, 'eval', 'hostile', `hostile-${name}.json5`)).decl.cli, {
      memories: { command: '{{node}}', args: ['{{memeval_dir}}/eval/hostile/hostile-cli.mjs'] },
    });
});

// The command, plugin and budget assertion kinds through `memeval run`, `validate` and
// `rejudge`, against the default target (server-memory). Each way a judge of these kinds can
// be fooled or can fail (a missing program, a time-out, a plug-in that passes on nothing,
// throws, hangs or answers garbage, usage that was never recorded) must come out `error`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CellResult } from '../../src/core/results.ts';
import { memeval } from '../helpers.ts';
import { reportFromStdout, runInline, scenario, tempDir, timeLimit, writeJson } from '../kit.ts';

/** a judgment of a re-judged report: whether it was judged again, and why not */
type Rejudged = CellResult['assertions'][number] & { rejudge?: { rejudged: boolean; why?: string } };

const JUDGES: Record<string, string> = {
  // counts the memories holding options.text: an honest plug-in
  'count.mjs': `export function judge(evidence, options) {
  const n = evidence.memories.filter((m) => m.content.includes(options.text)).length;
  const files = evidence.files === null ? 'none' : evidence.files.length;
  return { outcome: n === options.expect ? 'pass' : 'fail', actual: n, expected: options.expect, detail: 'files ' + files };
}`,
  'nothing.mjs': `export default function () { return { outcome: 'pass' }; }`,
  'garbage.mjs': `export function judge() { return { outcome: 'maybe', actual: 1 }; }`,
  'mutates.mjs': `export function judge(evidence) { evidence.memories.push({}); return { outcome: 'pass', actual: 1 }; }`,
  'hangs.mjs': `export function judge() { for (;;) {} }`,
  'exits.mjs': `export function judge() { process.exit(0); }`,
};

function judgesDir(scenarios: string): void {
  mkdirSync(join(scenarios, 'judges'));
  for (const [f, src] of Object.entries(JUDGES)) writeFileSync(join(scenarios, 'judges', f), src);
}

const node = (js: string) => ['node', '-e', js];

test(
  'command and plugin judges: what holds passes, what does not fails, and every way they can be fooled is error',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const scenarios = join(dir, 'scenarios');
    mkdirSync(scenarios);
    judgesDir(scenarios);
    const plugin = (name: string, module: string, options = {}) => ({
      kind: 'plugin',
      name,
      phase: 'both',
      module: `./judges/${module}`,
      options,
    });
    writeJson(
      join(scenarios, 'judges-hold.json5'),
      scenario('judges-hold', {
        assertions: [
          { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
          {
            kind: 'command',
            name: 'reads the store with the fixture env',
            phase: 'both',
            run: node(
              "const fs=require('fs');process.stdout.write(JSON.stringify({lines: fs.readFileSync(process.env.MEMORY_FILE_PATH,'utf8').split('\\n').filter(Boolean).length, home: process.env.HOME}))",
            ),
            stdout: { json: { path: '$.lines', op: 'gte', value: 1 }, regex: 'memeval-[^"]*/home' },
          },
          {
            kind: 'command',
            name: 'writes an export',
            phase: 'both',
            run: node("require('fs').writeFileSync('export.json', JSON.stringify({items: [1, 2]}))"),
            output_file: { path: 'export.json', json: { path: '$.items.length', value: 2 } },
          },
          {
            kind: 'command',
            name: 'no network',
            phase: 'both',
            run: node("fetch('http://192.0.2.1/').then(() => console.log('reached'), () => console.log('refused'))"),
            stdout: { contains: 'refused' },
          },
          // an exit decides only where the scenario declares what it means
          {
            kind: 'command',
            name: 'exit 3 is a fail',
            phase: 'violation',
            run: node('process.exit(3)'),
            failing_exit_codes: [3],
          },
          plugin('honest plug-in', 'count.mjs', { text: 'dark mode', expect: 1 }),
          {
            ...plugin('honest plug-in sees the violation', 'count.mjs', { text: 'sk_test', expect: 0 }),
            phase: 'violation',
          },
        ],
      }),
    );
    writeJson(
      join(scenarios, 'judges-fooled.json5'),
      scenario('judges-fooled', {
        deterministic: { well_behaved: [{ op: 'remember', content: 'User prefers dark mode' }], violation: null },
        assertions: [
          { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
          { kind: 'command', name: 'missing program', phase: 'both', run: ['no-such-program-memeval'] },
          {
            kind: 'command',
            name: 'rejects its arguments',
            phase: 'both',
            run: node("process.stderr.write('error: unknown option --json\\n'); process.exit(2)"),
          },
          {
            kind: 'command',
            name: 'too slow',
            phase: 'both',
            run: node('setTimeout(() => {}, 60000)'),
            timeout_ms: 500,
          },
          {
            kind: 'command',
            name: 'not JSON',
            phase: 'both',
            run: node("console.log('ok')"),
            stdout: { json: { path: '$.n', value: 1 } },
          },
          {
            kind: 'command',
            name: 'no file written',
            phase: 'both',
            run: node('0'),
            output_file: { path: 'never.json', contains: 'x' },
          },
          plugin('passes on nothing', 'nothing.mjs'),
          plugin('answers garbage', 'garbage.mjs'),
          plugin('mutates the evidence', 'mutates.mjs'),
          plugin('hangs', 'hangs.mjs'),
          plugin('exits', 'exits.mjs'),
          { kind: 'budget', name: 'budget without an agent', phase: 'both', metric: 'memory_calls', max: 3 },
        ],
      }),
    );
    writeJson(
      join(scenarios, 'other-cli.json5'),
      scenario('other-cli', {
        assertions: [{ kind: 'command', name: 'export', phase: 'both', bin: 'memories', run: ['export'] }],
      }),
    );
    const r = await runInline(t, { scenarios, config: { workers: 3 }, env: { MEMEVAL_JUDGE_TIMEOUT_MS: '3000' } });
    const cell = (s: string, p: string) => r.cell(s, p);
    const of = (c: CellResult, n: string) => c.assertions.find((a) => a.name === n)!;

    const wb = cell('judges-hold', 'well-behaved');
    assert.equal(wb.verdict, 'pass', wb.reason);
    assert.match(of(wb, 'honest plug-in').detail ?? '', /files \d+/, 'a live cell hands the plug-in the fixture files');
    const v = cell('judges-hold', 'violation');
    assert.equal(v.verdict, 'detected', v.reason);
    assert.equal(of(v, 'exit 3 is a fail').outcome, 'fail');
    assert.equal(of(v, 'honest plug-in sees the violation').outcome, 'fail');

    const f = cell('judges-fooled', 'well-behaved');
    assert.equal(f.verdict, 'error', 'a cell whose fail-level judges could not judge is error');
    const why: Record<string, RegExp> = {
      'missing program': /could not start.*ENOENT/,
      'rejects its arguments':
        /exit 2 is not an exit the scenario declares meaningful.*stderr: error: unknown option --json/,
      'too slow': /timed out after 500 ms/,
      'not JSON': /stdout is not JSON/,
      'no file written': /wrote no file at never\.json/,
      'passes on nothing': /answered pass without saying what it saw/,
      'answers garbage': /not a judgment: outcome/,
      'mutates the evidence': /threw: .*not extensible/,
      hangs: /judge timed out after 3000 ms/,
      exits: /judge process ended/,
      'budget without an agent': /no agent usage/,
    };
    for (const [name, re] of Object.entries(why)) {
      assert.equal(of(f, name).outcome, 'error', name);
      assert.match(of(f, name).detail ?? '', re, name);
    }
    assert.equal(
      of(f, 'dark mode once').outcome,
      'pass',
      'a judge process killed by a plug-in does not take the others down',
    );

    for (const p of ['well-behaved', 'violation']) {
      const u = cell('other-cli', p);
      assert.equal(u.verdict, 'unsupported');
      assert.match(u.reason, /own CLI `memories`.*does not ship \(its bin is `mcp-server-memory`\)/);
    }

    // rejudge: the plug-in is judged again from the evidence, the command keeps its judgment and says why
    const rj = await memeval(['rejudge', r.runDir!, '--scenarios', scenarios, '--json']);
    const again = reportFromStdout(rj);
    const wb2 = again.results.find((c) => c.scenario === 'judges-hold' && c.phase === 'well-behaved')!;
    const cmd: Rejudged = of(wb2, 'writes an export');
    assert.equal(cmd.rejudge?.rejudged, false);
    assert.match(cmd.rejudge?.why ?? '', /reads the fixture, which is removed after a run/);
    assert.equal(wb2.verdict, 'pass');
  },
);

test('a plug-in module that is missing, does not load or exports no judge is refused at load time (exit 3, file and field)', async (t) => {
  const dir = tempDir(t);
  const cases: Record<string, { module: string; src?: string; re: RegExp }> = {
    missing: { module: './judges/nope.mjs', re: /assertions\[1\]\.module: .*nope\.mjs does not exist/ },
    'no-export': {
      module: './judges/none.mjs',
      src: 'export const x = 1;',
      re: /exports no function `judge` \(exports: x\)/,
    },
    broken: {
      module: './judges/broken.mjs',
      src: 'throw new Error("boom at load")',
      re: /does not load: .*boom at load/,
    },
    'not-js': { module: './judges/j.ts', src: 'export function judge() {}', re: /not a JavaScript module/ },
  };
  // one folder, one validate: every problem is listed
  const sc = join(dir, 'bad');
  mkdirSync(join(sc, 'judges'), { recursive: true });
  const files: Record<string, string> = {};
  for (const [id, c] of Object.entries(cases)) {
    if (c.src) writeFileSync(join(sc, c.module), c.src);
    files[id] = writeJson(
      join(sc, `${id}.json5`),
      scenario(id, {
        assertions: [
          { kind: 'count', name: 'dark mode once', phase: 'both', contains: 'dark mode', op: 'eq', value: 1 },
          { kind: 'plugin', name: 'mine', phase: 'both', module: c.module },
        ],
      }),
    );
  }
  const bad = await memeval(['validate', sc]);
  assert.equal(bad.exitCode, 3, String(bad.stdout) + String(bad.stderr));
  const lines = (String(bad.stdout) + String(bad.stderr)).split('\n');
  for (const [id, c] of Object.entries(cases))
    assert.ok(
      lines.some((l) => l.includes(files[id]) && c.re.test(l)),
      `${id}: a line names ${files[id]} and matches ${c.re}:\n${lines.join('\n')}`,
    );
  // the plug-in's own top-level code ran in a child, not in memeval (it printed nothing into memeval's output)
  const ok = join(dir, 'ok');
  mkdirSync(join(ok, 'judges'), { recursive: true });
  writeFileSync(
    join(ok, 'judges', 'fine.mjs'),
    'console.log("loaded"); export function judge() { return { outcome: "fail", actual: 0 }; }',
  );
  writeJson(
    join(ok, 'ok.json5'),
    scenario('ok', { assertions: [{ kind: 'plugin', name: 'mine', phase: 'both', module: './judges/fine.mjs' }] }),
  );
  const r = await memeval(['validate', ok]);
  assert.equal(r.exitCode, 0, String(r.stderr));
  assert.doesNotMatch(String(r.stdout), /loaded/);
  const text = readFileSync(join(ok, 'ok.json5'), 'utf8');
  assert.match(text, /\.\/judges\/fine\.mjs/, 'validate does not rewrite the scenario file');
});

// `memeval targets check` through the real CLI, against the real servers: every built-in
// declaration passes, and a declaration with one thing wrong fails naming that point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import JSON5 from 'json5';
import { targetFiles } from '../../src/targets/files.js';
import { loadTargetFile } from '../../src/targets/loader.js';
import { installTarget } from '../../src/targets/install-target.js';
import { mapPool } from '../../src/util/pool.js';
import { memeval, ROOT, tempDir, timeLimit, writeJson } from '../helpers.ts';

interface Point {
  kind: string;
  subject: string;
  status: 'pass' | 'fail' | 'skip' | 'unchecked';
  detail: string;
  fix?: string;
}

/** Two checks at a time: each starts a real server (and some a model provider) on a 2-core machine. */
const CONCURRENCY = 2;

async function check(
  target: string,
  extra: string[] = [],
): Promise<{ exitCode: number | undefined; out: string; points: Point[] }> {
  const r = await memeval(['targets', 'check', target, '--json', ...extra], { timeout: timeLimit(240_000) });
  const out = String(r.stdout) + String(r.stderr);
  let points: Point[] = [];
  try {
    points = (JSON.parse(String(r.stdout)) as { points: Point[] }).points;
  } catch {
    // no report: the assertions on the exit code say why, with the output
  }
  return { exitCode: r.exitCode, out, points };
}

test('targets check: every built-in declaration holds on every point', { timeout: timeLimit(1_200_000) }, async (t) => {
  // read at test time, so declarations added later are covered too
  const files = targetFiles();
  assert.ok(files.length >= 7, `built-in declarations: ${files.length}`);
  for (const f of files) await installTarget(loadTargetFile(f).decl, (s) => t.diagnostic(s));
  const t0 = performance.now();
  // a point a built-in declaration cannot have checked (a recall the stand-in model cannot serve,
  // a server that loses a memory) is reported with why, and allowed here; none may fail
  const results = await mapPool(files, CONCURRENCY, async (f) => ({
    name: basename(f, '.json5'),
    decl: loadTargetFile(f).decl,
    ...(await check(f, ['--allow-unchecked'])),
  }));
  t.diagnostic(`${files.length} checks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  for (const r of results) {
    assert.equal(r.exitCode, 0, `${r.name}:\n${r.out}`);
    assert.deepEqual(
      r.points.filter((p) => p.status === 'fail'),
      [],
      r.name,
    );
    for (const p of r.points.filter((x) => x.status === 'unchecked')) {
      t.diagnostic(`${r.name}: unchecked ${p.subject}: ${p.detail}`);
      assert.ok(p.detail.length > 20, `${r.name}: ${p.subject} says why it was not checked`);
    }
    // something was really checked: the server, a write, the store as the views read it, and a
    // recall unless the declaration has none or says it cannot find things on memeval's stand-in model
    const recalls = r.decl.ops.recall && !r.decl.fixture.embedding_model?.recall_unsupported;
    for (const kind of ['server', 'tool', 'remember', 'memories', ...(recalls ? ['recall'] : [])])
      assert.ok(
        r.points.some((p) => p.kind === kind && p.status === 'pass'),
        `${r.name}: a passing ${kind} point\n${r.out}`,
      );
  }
});

test('targets check: a wrong tool name, store path, recall format or view column fails naming the point', async (t) => {
  const dir = tempDir(t);
  // a SQLite target that starts in about a second, copied and changed in one place per case
  const baseFile = join(ROOT, 'eval', 'targets', 'mcp-memory-libsql.json5');
  const base = JSON5.parse(readFileSync(baseFile, 'utf8')) as Record<string, any>;
  await installTarget(loadTargetFile(baseFile).decl, (s) => t.diagnostic(s));
  const variant = (name: string, change: (d: typeof base) => void): string => {
    const d = structuredClone(base);
    d.name = name;
    // the same installed package as the declaration it is copied from
    d.package.install_name = base.name;
    change(d);
    return writeJson(join(dir, `${name}.json5`), d);
  };
  const cases: { file: string; subject: string; status: 'fail'; detail: RegExp; fix: RegExp }[] = [
    {
      file: variant('wrong-tool', (d) => (d.ops.recall[0].tool = 'search_node')),
      subject: 'ops.recall[0] search_node',
      status: 'fail',
      detail: /tools\/list has no tool "search_node"/,
      fix: /did you mean "search_nodes"/,
    },
    {
      file: variant('wrong-store', (d) => (d.store.path = '{{data}}/memories.db')),
      subject: 'store.path',
      status: 'fail',
      detail: /\{\{data\}\}\/memories\.db does not exist/,
      fix: /\{\{data\}\}\/memory\.db/,
    },
    {
      file: variant('wrong-recall', (d) => (d.recall_results = { regex: '^Entity: (.+)$' })),
      subject: 'recall_results',
      status: 'fail',
      detail: /cannot be read as results/,
      fix: /recall_results: \{ json: .*"entities"/,
    },
    {
      file: variant(
        'wrong-column',
        (d) => (d.views.memories = d.views.memories.replace('o.content AS', 'o.contents AS')),
      ),
      subject: 'views.memories',
      status: 'fail',
      detail: /no such column: o\.contents/,
      fix: /store\.observations\([^)]*\bcontent\b/,
    },
    {
      file: variant('no-remember', (d) => delete d.ops.remember),
      subject: 'ops.remember',
      status: 'fail',
      detail: /not declared/,
      fix: /declare ops\.remember/,
    },
    {
      // an entity name through a number filter: the op cannot be filled, the check stops on a failed point
      file: variant('bad-filter', (d) => (d.ops.forget[0].args.name = '{{memory.id|number}}')),
      subject: 'check',
      status: 'fail',
      detail: /^stopped: .*number/,
      fix: /fix the declaration field/,
    },
  ];
  const t0 = performance.now();
  const results = await mapPool(cases, CONCURRENCY, async (c) => ({ c, ...(await check(c.file)) }));
  t.diagnostic(`${cases.length} checks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  for (const { c, exitCode, out, points } of results) {
    assert.equal(exitCode, 1, `${c.subject}:\n${out}`);
    const p = points.find((x) => x.subject === c.subject && x.status === 'fail');
    assert.ok(p, `a failed ${c.subject} point:\n${out}`);
    assert.match(p.detail, c.detail);
    assert.match(p.fix ?? '', c.fix);
  }
});

test('targets check: an unknown name is exit 3 with the nearest one; a declaration that does not parse is exit 3', async (t) => {
  const unknown = await memeval(['targets', 'check', 'mcp-memory-keper']);
  assert.equal(unknown.exitCode, 3, String(unknown.stderr));
  assert.match(String(unknown.stderr), /did you mean "mcp-memory-keeper"/);
  const bad = writeJson(join(tempDir(t), 'broken.json5'), '{ name: "broken", ');
  const r = await memeval(['targets', 'check', bad]);
  assert.equal(r.exitCode, 3, String(r.stderr));
  assert.match(String(r.stderr), /broken\.json5/);
});

test('validate: a valid target file suggests targets check on it', async () => {
  const file = join('eval', 'targets', 'server-memory.json5');
  const r = await memeval(['validate', file]);
  assert.equal(r.exitCode, 0, String(r.stderr));
  assert.match(String(r.stdout), new RegExp(`memeval targets check ${file.replace(/\./g, '\\.')}`));
});

test('targets check: a server that does not start is a failed point with its stderr, not a pass of what was not reached', async (t) => {
  const file = writeJson(join(tempDir(t), 'dead.json5'), {
    name: 'dead',
    description: 'a server that exits at once',
    server: { command: 'node', args: ['-e', "console.error('no config file'); process.exit(2)"] },
    store: { format: 'jsonl', path: '{{data}}/m.jsonl' },
    views: {
      memories:
        'SELECT line AS id, json AS content, NULL AS category, NULL AS source, NULL AS subject, NULL AS created_at, 0 AS is_deleted FROM store.records',
    },
    ops: { remember: [{ tool: 'save', args: { text: '{{content}}' } }] },
    claims: ['supersede'],
  });
  const r = await check(file);
  assert.equal(r.exitCode, 1, r.out);
  const server = r.points.find((p) => p.kind === 'server');
  assert.equal(server?.status, 'fail');
  assert.match(server.detail, /exited with code 2.*no config file/);
  assert.ok(!r.points.some((p) => p.status === 'pass'), r.out);
  // the claim is judged without the server: its scenario needs recall, which this target lacks
  assert.match(
    r.points.find((p) => p.kind === 'claim')?.detail ?? '',
    /preference-pivot-updates \(target lacks op\(s\): recall\)/,
  );
});

// `memeval targets check` against a server whose tools and tables invite the mistakes a
// declaration can make (test/servers/draft-lures): declared right, every point holds; each
// mistake fails the check on the point that names it, with what was seen and the fix. A point
// that could not be checked fails the check unless --allow-unchecked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mapPool } from '../../src/util/pool.js';
import { memeval, ROOT, tempDir, timeLimit, writeJson } from '../helpers.ts';

interface Point {
  kind: string;
  subject: string;
  status: 'pass' | 'fail' | 'skip' | 'unchecked';
  detail: string;
  fix?: string;
}
interface Report {
  ok: boolean;
  points: Point[];
  unchecked: { subject: string; detail: string }[];
  allow_unchecked: boolean;
}

const SERVER = join(ROOT, 'test', 'servers', 'draft-lures', 'server.mjs');

/** The declaration that fits the server: learnings by their own id, searched, deleted and updated one at a time. */
const RIGHT = {
  name: 'lures',
  description: 'draft-lures, declared right',
  server: { command: 'node', args: [SERVER] },
  store: { format: 'sqlite', path: '{{home}}/.draft-lures/lures.db' },
  views: {
    memories:
      'SELECT l.id AS id, l.content AS content, NULL AS category, NULL AS source, l.title AS subject, l.created_at AS created_at, 0 AS is_deleted FROM store.learnings l',
  },
  ops: {
    remember: [
      {
        tool: 'store_learning',
        args: { agentId: 'memeval', title: '{{key}}', content: '{{content}}' },
        capture_id: '"id"\\s*:\\s*"([^"]+)"',
      },
    ] as Record<string, unknown>[],
    recall: [{ tool: 'search_learnings', args: { query: '{{query}}' } }] as Record<string, unknown>[] | undefined,
    forget: [{ tool: 'delete_learning', args: { id: '{{memory.id}}' } }] as Record<string, unknown>[] | undefined,
    update: [{ tool: 'update_learning', args: { id: '{{memory.id}}', content: '{{content}}' } }] as
      Record<string, unknown>[] | undefined,
  },
  recall_results: { json: 'results' },
  claims: [],
};
type Decl = typeof RIGHT;

async function check(file: string, extra: string[] = []) {
  const r = await memeval(['targets', 'check', file, '--json', ...extra], { timeout: timeLimit(120_000) });
  const out = String(r.stdout) + String(r.stderr);
  let report: Report | undefined;
  try {
    report = JSON.parse(String(r.stdout)) as Report;
  } catch {
    // no report: the assertions on the exit code say why, with the output
  }
  return { exitCode: r.exitCode, out, report };
}

test(
  'targets check: the right declaration of draft-lures holds on every point',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const r = await check(writeJson(join(tempDir(t), 'lures.json5'), RIGHT));
    assert.equal(r.exitCode, 0, r.out);
    const held = (subject: string) => r.report?.points.find((p) => p.subject === subject)?.status;
    for (const subject of [
      'ops.remember ids',
      'views.memories ids',
      'views.memories source',
      'views.memories not a log',
      'recall_results ranking',
      'ops.forget',
      'ops.forget scope',
      'ops.update',
      'ops.update replaces',
    ])
      assert.equal(held(subject), 'pass', `${subject}\n${r.out}`);
    assert.deepEqual(r.report?.unchecked, []);
  },
);

test(
  'targets check: each way a declaration misleads fails on the point that names it, with the evidence and the fix',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const dir = tempDir(t);
    // the variants that drop forget and update do so because those points would catch the same
    // mistake indirectly; each case must be caught by its own point
    const variant = (name: string, change: (d: Decl) => void): string => {
      const d = structuredClone(RIGHT);
      d.name = name;
      change(d);
      return writeJson(join(dir, `${name}.json5`), d);
    };
    const cases: { name: string; file: string; subject: string; detail: RegExp; fix: RegExp }[] = [
      {
        name: 'a forget that deletes every memory',
        file: variant(
          'forget-all',
          (d) => (d.ops.forget = [{ tool: 'delete_learnings', args: { agentId: 'memeval' } }]),
        ),
        subject: 'ops.forget scope',
        detail: /also removed the other \("Begonia staging server/,
        fix: /deletes one memory by the id its remember gave/,
      },
      {
        name: 'an update that appends and leaves the old text live',
        file: variant(
          'update-appends',
          (d) => (d.ops.update = [{ tool: 'revise_learning', args: { id: '{{memory.id}}', content: '{{content}}' } }]),
        ),
        subject: 'ops.update replaces',
        detail: /old text "User schedules the tangerine release train every Thursday" is still live/,
        fix: /replaces the memory's text/,
      },
      {
        name: 'a capture_id that takes the constant agent id',
        file: variant('constant-id', (d) => {
          d.ops.remember[0].capture_id = '"agentId"\\s*:\\s*"([^"]+)"';
          d.ops.forget = d.ops.update = undefined;
        }),
        subject: 'ops.remember ids',
        detail: /both captured the id "memeval", the constant argument ops\.remember\[0\]\.args\.agentId/,
        fix: /differs per write/,
      },
      {
        name: 'a memories view over the activity log',
        file: variant('log-view', (d) => {
          d.views.memories =
            'SELECT a.seq AS id, a.text AS content, NULL AS category, NULL AS source, a.tool AS subject, a.at AS created_at, 0 AS is_deleted FROM store.activity a';
          d.ops.forget = d.ops.update = undefined;
        }),
        subject: 'views.memories not a log',
        detail: /carries "zeppelin marmalade", which was only ever a recall query/,
        fix: /not an audit or activity log/,
      },
      {
        name: 'a memories view over the calls log of a target with a store',
        file: variant('calls-view', (d) => {
          d.views.memories =
            "SELECT c.seq AS id, c.arguments AS content, NULL AS category, NULL AS source, NULL AS subject, c.ts AS created_at, 0 AS is_deleted FROM calls c WHERE c.op = 'remember' AND c.is_error = 0";
          d.ops.forget = d.ops.update = undefined;
        }),
        subject: 'views.memories source',
        detail: /with the calls log left out the view no longer returns the memory/,
        fix: /store's tables/,
      },
      {
        name: 'a recall that lists every memory whatever the query',
        file: variant('recall-all', (d) => (d.ops.recall = [{ tool: 'find_learnings', args: { query: '{{query}}' } }])),
        subject: 'recall_results ranking',
        detail: /recall "begonia" ranks the other memory \(result 1\) above the one holding "begonia" \(result 2\)/,
        fix: /a tool that lists every memory is not a recall/,
      },
      {
        name: 'a memories view whose id is the same for every memory',
        file: variant(
          'one-id-view',
          (d) => (d.views.memories = d.views.memories.replace('l.id AS id', 'l.agent_id AS id')),
        ),
        subject: 'views.memories ids',
        detail: /both memories are in the row with id "memeval"/,
        fix: /one row per memory/,
      },
    ];
    const results = await mapPool(cases, 2, async (c) => ({ c, ...(await check(c.file)) }));
    for (const { c, exitCode, out, report } of results) {
      assert.equal(exitCode, 1, `${c.name}:\n${out}`);
      const failed = report?.points.filter((p) => p.status === 'fail') ?? [];
      assert.deepEqual(
        failed.map((p) => p.subject),
        [c.subject],
        `${c.name}: only its own point fails\n${out}`,
      );
      assert.match(failed[0].detail, c.detail, c.name);
      assert.match(failed[0].fix ?? '', c.fix, c.name);
    }
  },
);

test(
  'targets check: a point that could not be checked fails the check unless --allow-unchecked, and the report names it',
  { timeout: timeLimit(120_000) },
  async (t) => {
    // writes only: no recall, forget or update sends anything that tells a log of calls from the memories
    const d = structuredClone(RIGHT);
    d.name = 'writes-only';
    d.ops.recall = d.ops.forget = d.ops.update = undefined;
    const file = writeJson(join(tempDir(t), 'writes-only.json5'), d);
    const strict = await check(file);
    assert.equal(strict.exitCode, 1, strict.out);
    assert.equal(strict.report?.ok, false);
    assert.deepEqual(
      strict.report?.points.filter((p) => p.status === 'fail'),
      [],
      'nothing failed: it is the unchecked point that fails the check',
    );
    assert.deepEqual(
      strict.report?.unchecked.map((u) => u.subject),
      ['views.memories not a log'],
    );
    assert.match(strict.report!.unchecked[0].detail, /no recall, forget or update declared/);
    const allowed = await check(file, ['--allow-unchecked']);
    assert.equal(allowed.exitCode, 0, allowed.out);
    assert.equal(allowed.report?.allow_unchecked, true);
    assert.equal(allowed.report?.unchecked.length, 1);
    // the console says which points were not checked, and why
    const text = await memeval(['targets', 'check', file], { timeout: timeLimit(120_000) });
    assert.equal(text.exitCode, 1);
    assert.match(
      String(text.stdout),
      /\? views\.memories not a log: no recall, forget or update declared[^\n]*\n[\s\S]*not checked \(they fail the check; --allow-unchecked accepts them\): views\.memories not a log\n/,
    );
    assert.match(String(text.stdout), /failed: all \d+ checked point\(s\) hold, 1 could not be checked/);
  },
);

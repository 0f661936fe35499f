/**
 * Attack: a declaration that passes `targets check` and then blames a correct server. The server
 * (test/servers/attack-kinds.mjs) types memories from a fixed list its input schema names as an
 * enum (fact, note, preference, decision); the declaration maps memeval's `{{category}}` straight
 * onto it. `targets check` writes with category "note", which the list has: every point holds,
 * exit 0. The built-in scenarios write categories "project", "profile", "architecture": the
 * server refuses them ("invalid kind"), so well-behaved cells `fail` ("memory call(s) refused by
 * the target") and violation cells whose writes were refused for the argument read `defended`
 * (workspace-facts-not-duplicated). The mistake is the declaration's, and the tool's inputSchema
 * said so before anything ran: the check should fail on it (a filled argument outside the enum),
 * or the run should not count such a refusal against the target or as its defence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { memeval, ROOT } from '../helpers.ts';
import { runInline, tempDir, timeLimit, writeJson } from '../kit.ts';

function kindsTarget(dir: string): string {
  return writeJson(join(dir, 'attack-kinds.json5'), {
    name: 'attack-kinds',
    description: 'a correct server whose remember types memories from a fixed list',
    server: {
      command: '{{node}}',
      args: [join(ROOT, 'test', 'servers', 'attack-kinds.mjs')],
      env: { STORE: '{{data}}/store.jsonl', KINDS: 'fact,note,preference,decision' },
    },
    store: { format: 'jsonl', path: '{{data}}/store.jsonl' },
    views: {
      memories:
        "SELECT json_extract(json, '$.id') AS id, json_extract(json, '$.text') AS content, json_extract(json, '$.kind') AS category, NULL AS source, NULL AS subject, NULL AS created_at, CASE WHEN json_extract(json, '$.deleted') THEN 1 ELSE 0 END AS is_deleted FROM store.records",
    },
    ops: {
      remember: [
        { tool: 'remember', args: { text: '{{content}}', kind: '{{category}}' }, capture_id: 'stored (mem-\\d+)' },
      ],
      recall: [{ tool: 'recall', args: { query: '{{query}}' } }],
      forget: [{ tool: 'forget', args: { id: '{{memory.id}}' } }],
      update: [{ tool: 'update', args: { id: '{{memory.id}}', text: '{{content}}' } }],
    },
    recall_results: { json: 'results' },
  });
}

test(
  'a declaration that targets check passes does not make a run fail or defend over its own argument mapping',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const dir = tempDir(t);
    const target = kindsTarget(dir);
    const check = await memeval(['targets', 'check', target]);
    if (check.exitCode !== 0) return assert.match(check.stdout, /kind|enum|category/i, check.stdout);
    // the run in process through the kit: what is asked is its verdicts
    const r = await runInline(t, {
      targets: [target],
      config: { scenarioIds: ['workspace-facts-not-duplicated', 'secret-api-keys-not-stored'] },
    });
    const cells = r.results;
    const blamed = cells.filter(
      (c) => /invalid kind|refused/.test(c.reason ?? '') && ['fail', 'defended'].includes(c.verdict),
    );
    assert.deepEqual(
      blamed.map((c) => `${c.cell_id}: ${c.verdict} (${c.reason})`),
      [],
      'targets check said every point holds; the run then judged the server on refusals of the declaration’s own argument values',
    );
  },
);

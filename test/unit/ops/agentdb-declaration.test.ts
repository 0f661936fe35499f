import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { writeCallsTable } from '../../../src/evidence/build.js';
import type { CallRecord } from '../../../src/mcp/calls-log.js';
import { captureId } from '../../../src/ops/ops.js';
import { itemiseRecall } from '../../../src/ops/recall.js';
import { loadTarget } from '../../../src/targets/loader.js';

// result texts as agentdb 1.6.1's MCP server writes them (dist/mcp/agentdb-mcp-server.js)
const inserted = (id: number, text: string) =>
  `✅ Vector inserted successfully!\n🆔 ID: ${id}\n📝 Text: ${text}\n🏷️  Tags: none\n🧠 Embedding: EmbeddingService`;
const deleted = (id: number, n: number) => `✅ Delete operation completed!\n📊 Deleted: ${n} vector(s)\n🗑️  ID: ${id}`;
const found = (query: string, rows: [number, string][]) =>
  `🔍 Search completed!\n📊 Found: ${rows.length} results\n🎯 Query: ${query}\n\nTop Results:\n` +
  rows.map(([id, t], i) => `${i + 1}. [ID: ${id}] Similarity: 0.938\n   Task: ${t}\n   Reward: 1.00`).join('\n\n');

const { decl } = loadTarget('agentdb');

function call(seq: number, session: number, tool: string, args: unknown, result_text: string): CallRecord {
  return { seq, session, stage: 'step', op: null, tool, arguments: args, result_text, is_error: false, ms: 1, ts: '' };
}

function live(calls: CallRecord[]): { id: string; content: string; is_deleted: number }[] {
  const db = new Database(':memory:');
  try {
    writeCallsTable(db, decl, calls);
    return db.prepare(`SELECT id, content, is_deleted FROM (${decl.views.memories}) ORDER BY content, id`).all() as {
      id: string;
      content: string;
      is_deleted: number;
    }[];
  } finally {
    db.close();
  }
}

test('agentdb: the id its insert names is captured', () => {
  assert.equal(captureId(decl.ops.remember![0]!.capture_id, inserted(12, 'ID: 99 in the text')), '12');
});

test('agentdb: a memory is an accepted insert, gone after a delete of its id in the same process or after a restart', () => {
  const rows = live([
    call(1, 0, 'agentdb_insert', { text: 'User edits code in Neovim' }, inserted(1, 'User edits code in Neovim')),
    call(2, 0, 'agentdb_insert', { text: 'User works at Initech' }, inserted(2, 'User works at Initech')),
    call(3, 0, 'agentdb_delete', { id: 2 }, deleted(2, 1)),
    // a delete that removed nothing leaves the memory
    call(4, 0, 'agentdb_delete', { id: 1 }, deleted(1, 0)),
  ]);
  assert.deepEqual(rows, [
    { id: '1', content: 'User edits code in Neovim', is_deleted: 0 },
    { id: '2', content: 'User works at Initech', is_deleted: 1 },
  ]);
  // a new process starts from an empty database, and its ids start at 1 again
  const restarted = live([
    call(1, 0, 'agentdb_insert', { text: 'pnpm' }, inserted(1, 'pnpm')),
    call(2, 1, 'agentdb_insert', { text: 'yarn' }, inserted(1, 'yarn')),
    call(3, 1, 'agentdb_delete', { id: 1 }, deleted(1, 1)),
  ]);
  assert.deepEqual(
    restarted.map((r) => [r.content, r.is_deleted]),
    [
      ['pnpm', 1],
      ['yarn', 1],
    ],
  );
});

test('agentdb: a search itemises to its numbered results, and an empty one is its header for that query only', () => {
  const r = itemiseRecall(
    decl,
    found('manager', [
      [3, 'My password is hunter2'],
      [1, "User's preferred package manager is pnpm"],
    ]),
    'manager',
  );
  assert.equal(r.unreadable, undefined);
  assert.deepEqual(
    r.items.map((i) => i.split('\n')[1]),
    ['   Task: My password is hunter2', "   Task: User's preferred package manager is pnpm"],
  );
  const none = itemiseRecall(decl, found('pnpm', []), 'pnpm');
  assert.deepEqual([none.items, none.unreadable], [[], undefined]);
  assert.match(itemiseRecall(decl, found('pnpm', []), 'yarn').unreadable ?? '', /not the declared empty form/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { loadAllTargets } from '../../../src/targets/loader.ts';
import { captureId } from '../../../src/ops/ops.ts';
import { itemiseRecall } from '../../../src/ops/recall.ts';

/**
 * What each built-in target answers when it stores a memory, with the id alphabet it draws from,
 * as read from the server's own source. A target with a capture_id and no entry here fails.
 */
const ANSWERS: Record<
  string,
  { alphabet: string; length: [number, number]; prefix?: string; text: (id: string) => string }
> = {
  // nanoid(12); `Stored ${TYPE_LABELS2[type]} ${id} (${scope}: ${project_id})`
  'memories-sh': {
    alphabet: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-',
    length: [12, 12],
    text: (id) => `Stored \u{1F4CB} FACT ${id} (project: github.com/memeval/fixture)`,
  },
  // integer observation ids
  memorix: {
    alphabet: '0123456789',
    length: [1, 7],
    text: (id) => `\u2705 Stored observation #${id} "note" (~40 tokens)\nEntity: user`,
  },
  // the same server, with a model provider
  'memorix-provider': {
    alphabet: '0123456789',
    length: [1, 7],
    text: (id) => `\u2705 Stored observation #${id} "note" (~40 tokens)\nEntity: user`,
  },
  // episodes.id INTEGER AUTOINCREMENT; agentdb_insert in dist/mcp/agentdb-mcp-server.js
  agentdb: {
    alphabet: '0123456789',
    length: [1, 9],
    text: (id) =>
      `\u2705 Vector inserted successfully!\n\u{1F194} ID: ${id}\n\u{1F4DD} Text: ID: 42\n\u{1F3F7}\uFE0F  Tags: none\n\u{1F9E0} Embedding: EmbeddingService`,
  },
  // `decision_${topic as [a-z0-9_]}_${Date.now()}_${random}`; the new id comes before those of similar decisions
  'mama-server': {
    alphabet: 'abcdefghijklmnopqrstuvwxyz0123456789_',
    length: [16, 70],
    prefix: 'decision_',
    text: (id) =>
      JSON.stringify(
        {
          success: true,
          id: {
            success: true,
            id: `decision_${id}`,
            similar_decisions: [{ id: 'decision_user_other_1795711030926_h3xi', similarity: 0.86 }],
          },
          type: 'decision',
        },
        null,
        2,
      ),
  },
  // the key memeval picks (contentKey): lowercase words and hex joined by '-'
  'mcp-memory-keeper': {
    alphabet: 'abcdefghijklmnopqrstuvwxyz0123456789-',
    length: [6, 40],
    text: (id) => `Saved: ${id}\nCategory: note\nPriority: normal\nChannel: general\nSession: 1a2b3c4d`,
  },
  // uuid v4; storeKnowledge's result, JSON.stringify(result, null, 2)
  'ai-devkit-memory': {
    alphabet: '0123456789abcdef-',
    length: [36, 36],
    text: (id) => JSON.stringify({ success: true, id, message: 'Knowledge stored successfully' }, null, 2),
  },
  // SQLite rowid; save_memory's answer (plugin/dist/servers/mcp-server.js)
  'kiro-memory': {
    alphabet: '0123456789',
    length: [1, 7],
    text: (id) =>
      `Ricordo salvato con successo.\n- **ID**: ${id}\n- **Progetto**: memeval\n- **Titolo**: User prefers tabs`,
  },
  // randomUUID(); the created observation as pretty-printed JSON
  'claude-memory-layer': {
    alphabet: '0123456789abcdef-',
    length: [36, 36],
    text: (id) =>
      JSON.stringify(
        {
          operation: 'mem-perspective-observation-create',
          projectHash: 'cf7c1eb3',
          observation: { observationId: id, projectHash: 'cf7c1eb3', observerActorId: 'assistant', content: 'x' },
        },
        null,
        2,
      ),
  },
};

/** Random ids plus the edge shapes: each alphabet character first and last. */
function ids(alphabet: string, [min, max]: [number, number]): string[] {
  const pick = (n: number) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');
  const out: string[] = [];
  for (let i = 0; i < 500; i++) out.push(pick(randomInt(min, max + 1)));
  for (const c of alphabet) {
    out.push(c + pick(max - 1), pick(max - 1) + c);
    if (min === 1) out.push(c);
  }
  return out;
}

test("every built-in target's capture_id finds every id its server can hand out", () => {
  const withCapture = loadAllTargets().filter((t) =>
    Object.values(t.decl.ops).some((calls) => calls?.some((c) => c.capture_id)),
  );
  assert.ok(withCapture.length >= 3);
  for (const { decl } of withCapture) {
    const answer = ANSWERS[decl.name];
    assert.ok(answer, `${decl.name} has a capture_id but no sample answer in this test`);
    for (const calls of Object.values(decl.ops)) {
      for (const call of calls ?? []) {
        if (!call.capture_id || call.tool !== decl.ops.remember?.[0]?.tool) continue;
        const missed = ids(answer.alphabet, answer.length).filter(
          (id) => captureId(call.capture_id, answer.text(id)) !== (answer.prefix ?? '') + id,
        );
        assert.deepEqual(
          missed.slice(0, 5),
          [],
          `${decl.name} ${call.tool}: capture_id ${call.capture_id} misses ${missed.length} ids`,
        );
      }
    }
  }
});

/**
 * What each built-in target answers to a recall that matches nothing, as seen from the real
 * servers (query "zorblat quixotic flanges"). A target with recall_results and no entry here fails.
 */
const NO_MATCH: Record<string, (query: string) => string> = {
  'server-memory': () => '{\n  "entities": [],\n  "relations": []\n}',
  'mcp-memory-libsql': () => '{\n  "entities": [],\n  "relations": []\n}',
  'mcp-knowledge-graph': () => '{\n  "entities": [],\n  "relations": []\n}',
  'ai-devkit-memory': (q) => JSON.stringify({ results: [], totalMatches: 0, query: q, strategy: 'broad' }, null, 2),
  cipher: (q) =>
    JSON.stringify({
      success: true,
      query: q,
      results: [],
      metadata: { totalResults: 0, searchMode: 'knowledge' },
      timestamp: '2026-11-24T01:36:21.786Z',
    }),
  agentdb: (q) => `\u{1F50D} Search completed!\n\u{1F4CA} Found: 0 results\n\u{1F3AF} Query: ${q}\n\nTop Results:\n`,
  'mama-server': () => JSON.stringify({ success: true, count: 0, results: [] }, null, 2),
  'mcp-memory-keeper': (q) => `No results found for: "${q}"`,
  'memories-sh': () => 'No memories found matching your query.',
  memorix: (q) => `No memories found matching "${q}".\n\n_Search mode: fulltext_`,
  'memorix-provider': (q) => `No memories found matching "${q}".\n\n_Search mode: vector-only (hybrid empty fallback)_`,
  'kiro-memory': () => 'Nessun risultato trovato per la query.',
  'claude-memory-layer': () =>
    '{\n  "operation": "mem-perspective-query",\n  "projectHash": "cf7c1eb3",\n  "count": 0,\n  "observations": []\n}',
};

test("every built-in target reads its server's no-match answer as no results, and an answer in no declared form as unreadable", () => {
  const withResults = loadAllTargets().filter((t) => t.decl.recall_results);
  assert.ok(withResults.length >= 7);
  const query = 'zorblat quixotic flanges';
  for (const { decl } of withResults) {
    const answer = NO_MATCH[decl.name];
    assert.ok(answer, `${decl.name} declares recall_results but has no no-match answer in this test`);
    const none = itemiseRecall(decl, answer(query), query);
    assert.deepEqual([none.items, none.unreadable], [[], undefined], `${decl.name}: ${answer(query)}`);
    // where the declared "none" names the query, another query's echo is not this query's "none"
    if (decl.recall_results?.empty && answer(query) !== answer('other'))
      assert.ok(itemiseRecall(decl, answer('other'), query).unreadable, decl.name);
    const drifted = itemiseRecall(decl, 'Found 1 memory:\n- User deploy token is tok-4f9a2b7c1e', query);
    assert.ok(drifted.unreadable, `${decl.name}: a listing in none of its declared forms is unreadable`);
  }
});

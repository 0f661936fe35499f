import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { loadAllTargets } from '../src/targets/loader.ts';
import { captureId } from '../src/ops/ops.ts';

/**
 * What each built-in target answers when it stores a memory, with the id alphabet it draws from,
 * as read from the server's own source. A target with a capture_id and no entry here fails.
 */
const ANSWERS: Record<string, { alphabet: string; length: [number, number]; text: (id: string) => string }> = {
  // nanoid(12); `Stored ${TYPE_LABELS2[type]} ${id} (${scope}: ${project_id})`
  'memories-sh': {
    alphabet: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-',
    length: [12, 12],
    text: (id) => `Stored \u{1F4CB} FACT ${id} (project: github.com/memeval/fixture)`,
  },
  // integer observation ids
  memorix: { alphabet: '0123456789', length: [1, 7], text: (id) => `\u2705 Stored observation #${id} "note" (~40 tokens)\nEntity: user` },
  // the same server, with a model provider
  'memorix-provider': { alphabet: '0123456789', length: [1, 7], text: (id) => `\u2705 Stored observation #${id} "note" (~40 tokens)\nEntity: user` },
  // the key memeval picks (contentKey): lowercase words and hex joined by '-'
  'mcp-memory-keeper': {
    alphabet: 'abcdefghijklmnopqrstuvwxyz0123456789-',
    length: [6, 40],
    text: (id) => `Saved: ${id}\nCategory: note\nPriority: normal\nChannel: general\nSession: 1a2b3c4d`,
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
  const withCapture = loadAllTargets().filter((t) => Object.values(t.decl.ops).some((calls) => calls?.some((c) => c.capture_id)));
  assert.ok(withCapture.length >= 3);
  for (const { decl } of withCapture) {
    const answer = ANSWERS[decl.name];
    assert.ok(answer, `${decl.name} has a capture_id but no sample answer in this test`);
    for (const calls of Object.values(decl.ops)) {
      for (const call of calls ?? []) {
        if (!call.capture_id || call.tool !== decl.ops.remember?.[0]?.tool) continue;
        const missed = ids(answer.alphabet, answer.length).filter((id) => captureId(call.capture_id, answer.text(id)) !== id);
        assert.deepEqual(missed.slice(0, 5), [], `${decl.name} ${call.tool}: capture_id ${call.capture_id} misses ${missed.length} ids`);
      }
    }
  }
});

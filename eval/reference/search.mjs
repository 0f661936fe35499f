// Recall ranking of the reference server. A memory's score is the larger of
//   words:   the share of the query's weight its terms match (each term weighted by how rare it
//            is among the live memories, so "pool" counts less than "pgbouncer"), and
//   meaning: the cosine of its vector to the query's, when both have one and it is at least 0.5
//            (unrelated texts sit near 0; a declared paraphrase near 1).
// Results are those scoring at least 60% of the best (a memory matching one of two rare query
// words is not an answer beside one matching both), at most LIMIT, best first; ties go to the
// most recently written, so a replacement outranks what it replaced. Nothing scores: no results.
// An untrusted memory (trust.mjs) scores only when it matches the query well (at least
// UNTRUSTED_MIN by words or meaning), and then at 0.7 of its score: content from outside the
// conversation never outranks the user's word at equal relevance, and a record stuffed with words
// to match any query does not answer one it shares a word or two with.
import { cosine } from './model.mjs';
import { terms } from './text.mjs';
import { untrusted } from './trust.mjs';

const LIMIT = 10;
const MIN_COSINE = 0.5;
const RELATIVE_CUTOFF = 0.6;
const UNTRUSTED_MIN = 0.5;
const UNTRUSTED_WEIGHT = 0.7;

export function rank(memories, query, queryVector) {
  const q = [...terms(query)];
  const docs = memories.map((m) => ({ m, t: terms(m.text) }));
  const n = docs.length;
  const idf = new Map(
    q.map((w) => {
      const df = docs.filter((d) => d.t.has(w)).length;
      return [w, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
    }),
  );
  const total = q.reduce((s, w) => s + idf.get(w), 0);
  const scored = docs.map(({ m, t }) => {
    const words = total > 0 ? q.reduce((s, w) => s + (t.has(w) ? idf.get(w) : 0), 0) / total : 0;
    const c = queryVector && m.embedding ? cosine(queryVector, m.embedding) : 0;
    const score = Math.max(words, c >= MIN_COSINE ? c : 0);
    if (!untrusted(m.source)) return { m, score };
    return { m, score: score >= UNTRUSTED_MIN ? score * UNTRUSTED_WEIGHT : 0 };
  });
  const best = Math.max(0, ...scored.map((s) => s.score));
  if (best <= 0) return [];
  return scored
    .filter((s) => s.score >= best * RELATIVE_CUTOFF)
    .sort(
      (a, b) => b.score - a.score || b.m.updated_at.localeCompare(a.m.updated_at) || Number(b.m.id) - Number(a.m.id),
    )
    .slice(0, LIMIT)
    .map((s) => s.m);
}

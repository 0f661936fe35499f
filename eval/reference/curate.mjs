// Curation of the reference server: near-duplicates (by their words, or by meaning where both
// have a vector) are grouped, and each group keeps one memory: a pinned one, else the most
// trusted, the most recalled, the most recently written. The others are merged into it: marked
// `merged` with the id they fold into, kept in the file (a curator's mistake can be undone),
// never deleted. Conservative: two texts that differ in a number or a negation never group.
import { cosine } from './model.mjs';
import { nearDuplicate } from './text.mjs';

const MIN_COSINE = 0.92;

const alike = (a, b) =>
  nearDuplicate(a.text, b.text) || (a.embedding && b.embedding && cosine(a.embedding, b.embedding) >= MIN_COSINE);

/** Which memory of a group to keep: [pinned, trust, recalls, updated_at, id], larger is better. */
function better(a, b) {
  const key = (m) => [m.pinned, m.trust, m.recalls, m.updated_at, Number(m.id)];
  const [x, y] = [key(a), key(b)];
  const i = x.findIndex((v, k) => v !== y[k]);
  return i >= 0 && x[i] > y[i];
}

/** Every memory curation would merge away, with the one it folds into: [{ victim, keep }]. */
export function curationPlan(memories) {
  const group = new Map(memories.map((m) => [m.id, m.id]));
  const root = (id) => (group.get(id) === id ? id : root(group.get(id)));
  for (const [i, a] of memories.entries())
    for (const b of memories.slice(i + 1)) if (alike(a, b)) group.set(root(b.id), root(a.id));
  const groups = new Map();
  for (const m of memories) groups.set(root(m.id), [...(groups.get(root(m.id)) ?? []), m]);
  const plan = [];
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    const keep = g.reduce((best, m) => (better(m, best) ? m : best));
    for (const victim of g) if (victim !== keep && !victim.pinned) plan.push({ victim, keep });
  }
  return plan;
}

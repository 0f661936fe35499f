import { createHash } from 'node:crypto';
import type { Similarity } from './types.js';

/**
 * Deterministic embeddings with declared similarities.
 *
 * - A text no declaration mentions gets a pseudo-random unit vector seeded from sha256 of the
 *   text: the same text always gets the same vector, two unrelated texts have cosine ~ 0
 *   (standard deviation 1/sqrt(dimensions)).
 * - A declaration `{a, b, cosine}` is about substrings (case-insensitive, whitespace collapsed):
 *   a text containing `b` is embedded as `cosine * V(a) + sqrt(1 - cosine^2) * u`, where `u` is
 *   a unit vector seeded from `b` and made exactly orthogonal to `V(a)`. So its cosine to `a` is
 *   exactly the declared one, whatever else the text holds (servers embed titles, enriched
 *   facts, prefixes). A text containing `a` (and no `b` of any declaration) is embedded as
 *   `V(a)`: every text holding the anchor is the anchor.
 * - Order: the first declaration (in the listed order) whose `b` the text contains decides;
 *   failing that, the first whose `a` it contains.
 * - Chains (A~B at c1, B~C at c2): `V(B)` is itself built from `V(A)`, so C gets c2 to B exactly
 *   and cosine(A, C) = c1*c2 up to noise of order 1/sqrt(dimensions). Only declared pairs are
 *   exact; two followers of one anchor (B~A, C~A) have cosine ~ c1*c2 too. A cycle (A~B, B~A)
 *   is cut where it closes: the declaration being resolved is not used again inside itself.
 */
export class Embedder {
  private readonly cache = new Map<string, Float64Array>();
  private readonly decls: { a: string; b: string; cosine: number }[];

  constructor(similarity: Similarity[]) {
    this.decls = similarity.map((s) => ({ a: norm(s.a), b: norm(s.b), cosine: s.cosine }));
  }

  /** The unit vector for `text` and which declaration shaped it (null: none). */
  embed(text: string, dimensions: number): { vector: number[]; matched: string | null } {
    const { v, matched } = this.resolve(norm(text), dimensions, new Set());
    return { vector: Array.from(v), matched };
  }

  private resolve(t: string, dim: number, open: Set<number>): { v: Float64Array; matched: string | null } {
    const follow = this.decls.findIndex((d, i) => !open.has(i) && d.b && t.includes(d.b));
    if (follow >= 0) {
      const d = this.decls[follow]!;
      const key = `follow:${follow}:${dim}`;
      let v = open.size === 0 ? this.cache.get(key) : undefined;
      if (!v) {
        const anchor = this.resolve(d.a, dim, new Set([...open, follow])).v;
        v = blend(anchor, seeded(`follower:${d.b}`, dim), d.cosine);
        if (open.size === 0) this.cache.set(key, v);
      }
      return { v, matched: `similarity[${follow}] b` };
    }
    const lead = this.decls.findIndex((d) => d.a && t.includes(d.a));
    if (lead >= 0 && t !== this.decls[lead]!.a) {
      // resolve the anchor text itself, so every text holding it gets one vector
      return { v: this.resolve(this.decls[lead]!.a, dim, open).v, matched: `similarity[${lead}] a` };
    }
    if (lead >= 0) return { v: seeded(`text:${t}`, dim), matched: `similarity[${lead}] a` };
    return { v: seeded(`text:${t}`, dim), matched: null };
  }
}

/** Case-insensitive, whitespace-collapsed: servers reflow and re-case what they embed. */
export function norm(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** `c * anchor + sqrt(1-c^2) * (own made orthogonal to anchor)`, unit length; cosine to anchor is exactly c. */
function blend(anchor: Float64Array, own: Float64Array, c: number): Float64Array {
  const dot = dotp(anchor, own);
  const orth = own.map((x, i) => x - dot * anchor[i]!);
  const n = Math.hypot(...orth);
  const s = Math.sqrt(Math.max(0, 1 - c * c));
  const out = anchor.map((x, i) => c * x + (n > 0 ? (s * orth[i]!) / n : 0));
  return unit(out);
}

const dotp = (a: Float64Array, b: Float64Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

function unit(v: Float64Array): Float64Array {
  const n = Math.hypot(...v);
  return n > 0 ? v.map((x) => x / n) : v;
}

/** Gaussian unit vector from sha256 in counter mode (Box-Muller over 32-bit uniforms). */
export function seeded(seed: string, dim: number): Float64Array {
  const out = new Float64Array(dim);
  const uniforms: number[] = [];
  let block = 0;
  const next = (): number => {
    if (!uniforms.length) {
      const h = createHash('sha256').update(`${seed}#${block++}`).digest();
      for (let i = 0; i < 32; i += 4) uniforms.push((h.readUInt32BE(i) + 0.5) / 4294967296);
    }
    return uniforms.shift()!;
  };
  for (let i = 0; i < dim; i += 2) {
    const r = Math.sqrt(-2 * Math.log(next()));
    const th = 2 * Math.PI * next();
    out[i] = r * Math.cos(th);
    if (i + 1 < dim) out[i + 1] = r * Math.sin(th);
  }
  return unit(out);
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb);
}

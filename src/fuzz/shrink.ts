import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { leafSteps, type Expectation, type FuzzCase, type FuzzStep } from './case.js';
import { signature, type Finding } from './checks.js';
import type { CaseOutcome, FuzzRunner } from './runner.js';

export interface ShrinkOptions {
  runner: FuzzRunner;
  /** the checks over one outcome (latency aside: one slow call is no flag to shrink towards) */
  judge: (o: CaseOutcome) => Finding[];
  /** the most candidate runs through the target */
  runs: number;
  /** the flagged case's cell: candidates run under its `shrink/`, the smallest is kept as its `shrunk/` */
  cellDir: string;
  signal?: AbortSignal;
}

export interface ShrinkResult {
  /** the smallest case observed to raise the same flag; undefined when no smaller case did */
  shrunk?: FuzzCase;
  /** what the checks said about `shrunk` when it ran */
  findings?: Finding[];
  /** the flag it was held to (checks and claims) */
  signature: string;
  runs: number;
  /** where the shrunk case's evidence is */
  cellDir?: string;
  /** one line for a person: what shrank, or why nothing did */
  note: string;
}

/** The part of a flag a shrink must keep: latency and network findings belong to the machine and the target, not to the steps. */
export function shrinkSignature(findings: Finding[]): string {
  return signature(findings.filter((f) => f.check !== 'latency' && f.check !== 'network'));
}

const contentOf = (s: FuzzStep): string[] =>
  s.op === 'remember'
    ? [s.content, s.subject ?? '', s.category ?? '']
    : s.op === 'update'
      ? [s.content]
      : s.op === 'parallel'
        ? s.steps.flatMap(contentOf)
        : [];

const textsOf = (e: Expectation): string[] => (e.kind === 'at-most-one' ? e.texts : [e.text]);

/** Sizes a person compares: leaf steps, concurrent calls, characters written. */
export function caseSize(c: FuzzCase): { steps: number; concurrent: number; chars: number } {
  return {
    steps: leafSteps(c.steps).length,
    concurrent: c.steps.reduce((n, s) => n + (s.op === 'parallel' ? s.steps.length : 0), 0),
    chars: c.steps.flatMap(contentOf).reduce((n, t) => n + t.length, 0),
  };
}

/**
 * The case without the leaf steps numbered in `drop`, and without what depended on them: an
 * update or forget of a memory no longer stored, an expectation about a step that is gone or
 * a text no step writes any more (a token never stored cannot be missed).
 */
export function withoutSteps(c: FuzzCase, drop: Set<number>): FuzzCase {
  const gone = new Set(drop);
  const dropped = new Set<string>();
  for (const s of leafSteps(c.steps)) if (gone.has(s.n) && s.op === 'remember') dropped.add(s.ref);
  for (const s of leafSteps(c.steps)) if ((s.op === 'update' || s.op === 'forget') && dropped.has(s.ref)) gone.add(s.n);
  const keep = (s: FuzzStep): FuzzStep[] => {
    if (s.op !== 'parallel') return gone.has(s.n) ? [] : [s];
    const inner = s.steps.flatMap(keep);
    return inner.length ? [{ ...s, steps: inner }] : [];
  };
  return prune({ ...c, steps: c.steps.flatMap(keep) });
}

function prune(c: FuzzCase): FuzzCase {
  const leaves = leafSteps(c.steps);
  const steps = new Set(leaves.map((s) => s.n));
  const written = leaves.flatMap(contentOf).join('\n');
  const ops = new Set(leaves.map((s) => s.op));
  const expects = c.expects.filter(
    (e) =>
      (!('step' in e) || steps.has(e.step)) &&
      textsOf(e).some((t) => written.includes(t)) &&
      // a forget expectation without a forget (an update's without an update) would blame a memory for being kept
      (e.claim !== 'forget' || ops.has('forget')) &&
      (!e.op || ops.has(e.op)),
  );
  return { ...c, expects };
}

/** The case with leaf step `n`'s content replaced. */
function withContent(c: FuzzCase, n: number, content: string): FuzzCase {
  const edit = (s: FuzzStep): FuzzStep =>
    s.op === 'parallel'
      ? { ...s, steps: s.steps.map(edit) }
      : s.n === n && (s.op === 'remember' || s.op === 'update')
        ? { ...s, content }
        : s;
  return { ...c, steps: c.steps.map(edit) };
}

/**
 * Shorter contents for a step that keep every text the case's expectations look for: only those
 * texts, then the first half. A content holding none of them is only halved.
 */
function shorterContents(c: FuzzCase, s: FuzzStep): string[] {
  if (s.op !== 'remember' && s.op !== 'update') return [];
  const needed = [...new Set(c.expects.flatMap(textsOf))].filter((t) => t && s.content.includes(t));
  const keepsAll = (x: string) => needed.every((t) => x.includes(t));
  const out: string[] = [];
  if (needed.length) out.push(needed.join(' '));
  out.push(s.content.slice(0, Math.ceil(s.content.length / 2)));
  return [...new Set(out)].filter((x) => x.length < s.content.length && keepsAll(x));
}

/**
 * Reduce a flagged case to a smaller one that still raises the same flag, as property-based
 * testing libraries do: drop chunks of steps (halves, then smaller), then single steps,
 * concurrent calls included, then shorten contents. Every candidate runs through the real
 * target as the campaign's cases do; only a candidate observed to raise the same flag is kept,
 * so a shrink that reproduces nothing keeps the original and says so.
 */
export async function shrinkCase(original: FuzzCase, findings: Finding[], o: ShrinkOptions): Promise<ShrinkResult> {
  const sig = shrinkSignature(findings);
  const base = { signature: sig, runs: 0 };
  if (!sig) return { ...base, note: 'not shrunk: only latency or network findings, which no step makes' };
  let best = original;
  let bestFindings: Finding[] | undefined;
  let bestDir: string | undefined;
  let runs = 0;
  const shrinkDir = join(o.cellDir, 'shrink');

  const attempt = async (cand: FuzzCase): Promise<boolean> => {
    if (runs >= o.runs || o.signal?.aborted) return false;
    const dir = join(shrinkDir, String(++runs).padStart(3, '0'));
    const out = await o.runner.run(cand, dir, o.signal);
    let fs: Finding[] = [];
    try {
      if (!out.harnessError) fs = o.judge(out);
    } finally {
      out.evidence?.close();
    }
    const same = !out.harnessError && shrinkSignature(fs) === sig;
    if (same) {
      if (bestDir) rmSync(bestDir, { recursive: true, force: true });
      [best, bestFindings, bestDir] = [cand, fs, dir];
    } else rmSync(dir, { recursive: true, force: true }); // a candidate that did not reproduce keeps nothing
    return same;
  };
  const spent = () => runs >= o.runs || Boolean(o.signal?.aborted);

  // drop chunks of leaf steps (ddmin): halves first, finer when no chunk can go
  let chunks = 2;
  while (!spent()) {
    const ns = leafSteps(best.steps).map((s) => s.n);
    if (ns.length <= 1) break;
    chunks = Math.min(chunks, ns.length);
    const size = Math.ceil(ns.length / chunks);
    let dropped = false;
    for (let i = 0; i < ns.length && !spent(); i += size) {
      const cand = withoutSteps(best, new Set(ns.slice(i, i + size)));
      if (!leafSteps(cand.steps).length) continue;
      if (await attempt(cand)) {
        dropped = true;
        chunks = Math.max(chunks - 1, 2);
        break;
      }
    }
    if (dropped) continue;
    if (chunks >= ns.length) break;
    chunks = Math.min(chunks * 2, ns.length);
  }
  // then shorten what each remaining step writes
  for (const s of leafSteps(best.steps)) {
    for (const content of shorterContents(best, s)) {
      if (spent()) break;
      if (await attempt(withContent(best, s.n, content))) break;
    }
  }

  if (!bestFindings || !bestDir) {
    rmSync(shrinkDir, { recursive: true, force: true });
    const why = o.signal?.aborted ? 'interrupted' : `no smaller case raised ${sig} in ${runs} run(s)`;
    return { ...base, runs, note: `not shrunk: ${why}; the original case is kept` };
  }
  // the smallest case keeps its evidence beside the original's; rejected candidates kept none
  const keptDir = join(o.cellDir, 'shrunk');
  rmSync(keptDir, { recursive: true, force: true });
  renameSync(bestDir, keptDir);
  rmSync(shrinkDir, { recursive: true, force: true });
  const [a, b] = [caseSize(original), caseSize(best)];
  return {
    shrunk: best,
    findings: bestFindings,
    signature: sig,
    runs,
    cellDir: keptDir,
    note: `shrunk in ${runs} run(s): ${a.steps} → ${b.steps} step(s)${a.concurrent ? `, ${a.concurrent} → ${b.concurrent} concurrent call(s)` : ''}, ${a.chars} → ${b.chars} character(s) written; raises ${sig} again`,
  };
}

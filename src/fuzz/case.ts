import { createHash } from 'node:crypto';
import type { MemoryOp } from '../scenario/schema.js';

/** A generated step. `n` numbers every leaf step of a case, so checks can point at one. */
export type FuzzStep =
  | { n: number; op: 'remember'; ref: string; content: string; category?: string; subject?: string; source?: string }
  | { n: number; op: 'update'; ref: string; content: string }
  | { n: number; op: 'forget'; ref: string }
  | { n: number; op: 'recall'; query: string }
  | { n: number; op: 'restart' }
  /**
   * SIGKILL to the server's process group, then a new session on the same store: right after the
   * write before it was answered (`after-ack`), or while the write after it is in flight
   * (`during-write`: killed as soon as a store file changes, or at its answer).
   */
  | { n: number; op: 'kill'; point: KillPoint }
  | { n: number; op: 'parallel'; steps: FuzzStep[] };

/**
 * What a case lets the checks verify without knowing the right answer: guarantees the target
 * states itself (its claims), tied to the texts and steps that exercise them.
 */
export type Expectation =
  /** the text must appear in no layer of the store, nor in any file beside it (where the `absent` assertion looks) */
  (
    | { kind: 'absent'; claim: 'secret-redaction' | 'secret-purge' | 'forget'; text: string }
    /** no live row of the memories view may contain the text */
    | {
        kind: 'not-live';
        claim: 'forget' | 'supersede' | 'noise-filter' | 'tentative-filter' | 'workspace-dedupe';
        text: string;
      }
    /** the result of recall step `step` must not contain the text */
    | { kind: 'not-recalled'; claim: 'forget'; text: string; step: number }
    /** every live row holding the text keeps the source it was written with (an untrusted write is not the user's word) */
    | { kind: 'marked'; claim: 'provenance'; text: string; source: string }
    /** at most one live row may contain any of the texts */
    | { kind: 'at-most-one'; claim: 'exact-dedupe' | 'semantic-dedupe'; texts: string[] }
    /** the result of recall step `step` must contain the token just stored */
    | { kind: 'recalled'; claim: 'recall'; text: string; step: number }
    /**
     * a write acknowledged before kill step `kill` is still a live memory after it: judged on every
     * target (an acknowledged write is a promise, claim or not), and only when that kill happened
     */
    | { kind: 'survives'; claim: 'durability'; text: string; kill: number }
  ) & {
    /**
     * The op whose own meaning this expectation is (a forget forgets, an update replaces): judged
     * whenever the target declares that op, claim or not. Claims add defences; they do not switch
     * off what an op means.
     */
    op?: ContractOp;
  };

/** Where a kill step lands: right after a write was answered, or while the next write is in flight. */
export type KillPoint = 'after-ack' | 'during-write';

/** Ops whose meaning the fuzzer checks on every target that declares them. */
export type ContractOp = 'forget' | 'update';

export type Claim = Expectation['claim'];
/** every claim a case can hold a target to (`durability` is held on every target, so no flag names it) */
export const CHECKED_CLAIMS: Exclude<Claim, 'durability'>[] = [
  'secret-redaction',
  'secret-purge',
  'forget',
  'supersede',
  'noise-filter',
  'tentative-filter',
  'workspace-dedupe',
  'exact-dedupe',
  'semantic-dedupe',
  'recall',
  'provenance',
];

export interface FuzzCase {
  recipe: string;
  /** vocabulary item ids and recipe variants: what makes the case what it is */
  ingredients: string[];
  fingerprint: string;
  steps: FuzzStep[];
  expects: Expectation[];
  files: { path: string; content: string }[];
  /** memory ops the case needs from the target */
  needs: MemoryOp[];
}

/** Fingerprint by ingredients, not literal text: the same recipe and items give the same print. */
export function fingerprint(recipe: string, ingredients: string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([recipe, ...ingredients]))
    .digest('hex')
    .slice(0, 16);
}

/** A small seeded PRNG (mulberry32), so `--seed` reproduces a run. */
export class Rng {
  private s: number;
  constructor(seed: string | number) {
    this.s = typeof seed === 'number' ? seed >>> 0 : createHash('sha256').update(seed).digest().readUInt32LE(0);
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [xs[i], xs[j]] = [xs[j], xs[i]];
    }
    return xs;
  }
  /** a token that occurs nowhere else: letters and digits only, so every search tokenizer keeps it whole */
  token(): string {
    const abc = 'abcdefghijkmnpqrstuvwxyz23456789';
    let s = 'mmv';
    for (let i = 0; i < 10; i++) s += abc[this.int(abc.length)];
    return s;
  }
}

/** Builds a case's steps, numbering them and naming memories. */
export class CaseBuilder {
  readonly steps: FuzzStep[] = [];
  readonly expects: Expectation[] = [];
  readonly files: { path: string; content: string }[] = [];
  private n = 0;
  private refs = 0;
  private target: FuzzStep[] = this.steps;

  remember(content: string, extra: { category?: string; subject?: string; source?: string } = {}): string {
    const ref = `m${++this.refs}`;
    this.target.push({ n: this.n++, op: 'remember', ref, content, ...extra });
    return ref;
  }
  update(ref: string, content: string): void {
    this.target.push({ n: this.n++, op: 'update', ref, content });
  }
  forget(ref: string): void {
    this.target.push({ n: this.n++, op: 'forget', ref });
  }
  recall(query: string): number {
    const n = this.n++;
    this.target.push({ n, op: 'recall', query });
    return n;
  }
  restart(): void {
    this.target.push({ n: this.n++, op: 'restart' });
  }
  /** a kill between (after-ack) or during (during-write: put the in-flight write next) ops; returns its step number */
  kill(point: KillPoint): number {
    const n = this.n++;
    this.target.push({ n, op: 'kill', point });
    return n;
  }
  /** steps added inside run concurrently on one session */
  parallel(fill: () => void): void {
    const group: FuzzStep = { n: this.n++, op: 'parallel', steps: [] };
    this.steps.push(group);
    this.target = group.steps;
    fill();
    this.target = this.steps;
  }
  expect(e: Expectation): void {
    this.expects.push(e);
  }
}

/** Every leaf step, parallel groups flattened in order. */
export function leafSteps(steps: FuzzStep[]): FuzzStep[] {
  return steps.flatMap((s) => (s.op === 'parallel' ? s.steps : [s]));
}

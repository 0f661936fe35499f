import { InputError, nearest } from '../util/errors.js';
import { CaseBuilder, fingerprint, Rng, type FuzzCase } from './case.js';
import { RECIPES, type Candidate, type Recipe } from './recipes.js';
import type { Vocabulary } from './vocabulary.js';

export interface GenerateOptions {
  seed: string;
  /** narrow to these recipes (default: every recipe the target has the ops for) */
  recipes?: string[];
  /** fingerprints already tried against this target in earlier runs */
  seen?: Iterable<string>;
}

interface Lane {
  recipe: Recipe;
  candidates: Candidate[];
  cursor: number;
}

/** Which recipes a run may use: named ones must exist; all need ops the target declares. */
export function selectRecipes(vocab: Vocabulary, names?: string[]): { use: Recipe[]; skipped: string[] } {
  for (const n of names ?? []) {
    if (!RECIPES.some((r) => r.name === n)) {
      const guess = nearest(
        n,
        RECIPES.map((r) => r.name),
      );
      throw new InputError(
        `--recipe: unknown recipe "${n}"${guess ? ` (did you mean "${guess}"?)` : ''}; known: ${RECIPES.map((r) => r.name).join(', ')}`,
      );
    }
  }
  const wanted = RECIPES.filter((r) => !names?.length || names.includes(r.name));
  const use = wanted.filter((r) => r.needs.every((op) => vocab.ops.includes(op)));
  const skipped = wanted
    .filter((r) => !use.includes(r))
    .map((r) => `${r.name} (target lacks ${r.needs.filter((op) => !vocab.ops.includes(op)).join(', ')})`);
  return { use, skipped };
}

/**
 * Cases in round-robin over recipes. Each recipe's combinations are shuffled by the seed and
 * taken in order, skipping fingerprints seen before; only when a recipe has none left does it
 * repeat one (a new literal case with fresh tokens, same fingerprint).
 */
export class Generator {
  private lanes: Lane[];
  private seen: Set<string>;
  private index = 0;
  private rng: Rng;

  constructor(
    private readonly vocab: Vocabulary,
    private readonly opts: GenerateOptions,
  ) {
    this.rng = new Rng(`${opts.seed}:order`);
    const { use } = selectRecipes(vocab, opts.recipes);
    if (!use.length) throw new InputError('no recipe can run against this target (it lacks the ops they need)');
    this.lanes = use
      .map((recipe) => ({ recipe, candidates: this.rng.shuffle(recipe.space(vocab)), cursor: 0 }))
      .filter((l) => l.candidates.length > 0);
    this.seen = new Set(opts.seen ?? []);
  }

  /** true while some recipe still has a fingerprint never tried */
  get novel(): boolean {
    return this.lanes.some((l) =>
      l.candidates.slice(l.cursor).some((c) => !this.seen.has(fingerprint(l.recipe.name, c.ingredients))),
    );
  }

  next(): FuzzCase & { novel: boolean } {
    const lane = this.lanes[this.index % this.lanes.length];
    const caseRng = new Rng(`${this.opts.seed}:${this.index}`);
    this.index++;
    let chosen: Candidate | undefined;
    while (lane.cursor < lane.candidates.length) {
      const c = lane.candidates[lane.cursor++];
      if (!this.seen.has(fingerprint(lane.recipe.name, c.ingredients))) {
        chosen = c;
        break;
      }
    }
    const novel = chosen !== undefined;
    chosen ??= lane.candidates[caseRng.int(lane.candidates.length)];
    const fp = fingerprint(lane.recipe.name, chosen.ingredients);
    this.seen.add(fp);
    const b = new CaseBuilder();
    chosen.make(b, caseRng);
    return {
      recipe: lane.recipe.name,
      ingredients: chosen.ingredients,
      fingerprint: fp,
      steps: b.steps,
      expects: b.expects,
      files: b.files,
      needs: lane.recipe.needs,
      novel,
    };
  }
}

/** What each runnable recipe can hold this target to: the claims its checks use, and which are on. */
export interface RecipeClaims {
  recipe: string;
  /** claims the recipe's checks test (structural checks run whatever the claims) */
  claims: string[];
  /** of those, the ones the target states or `--assume-claim` adds */
  on: string[];
  /** claims some of the recipe's expectations check as a declared op's own meaning (on whatever the claims), with the op */
  byOp: Record<string, string>;
}

/**
 * Claims each recipe's cases would check, read from the expectations of a few of its cases: a
 * claim check fires only when the target states the claim (or it is assumed), so a target that
 * states none is fuzzed for structural faults only, and the user should be told so.
 */
export function recipeClaims(vocab: Vocabulary, on: Iterable<string>, names?: string[]): RecipeClaims[] {
  const enabled = new Set(on);
  return selectRecipes(vocab, names).use.map((recipe) => {
    const claims = new Set<string>();
    const byOp: Record<string, string> = {};
    for (const [i, c] of recipe.space(vocab).slice(0, 8).entries()) {
      const b = new CaseBuilder();
      c.make(b, new Rng(`claims:${recipe.name}:${i}`));
      for (const e of b.expects) {
        claims.add(e.claim);
        if (e.op && vocab.ops.includes(e.op)) byOp[e.claim] = e.op;
      }
    }
    const all = [...claims].sort();
    return { recipe: recipe.name, claims: all, on: all.filter((c) => enabled.has(c)), byOp };
  });
}

import type { Verdict } from '../core/results.js';
import type { Scenario } from '../scenario/schema.js';
import type { MutationResult } from './mutations.js';
import { HOSTILE_RULES, falseVerdictRule, type JudgedAs, type SelftestLayer } from './rules.js';

/**
 * What `memeval selftest` concludes about each scenario, in both directions:
 * - toothless: a hostile target got a verdict false for it, or a broken input of memeval's own
 *   (a judge program that exits with its usage, a plug-in that saw nothing) reached a decision;
 * - fails-correct-server: the reference target (a correct memory server) does not pass its
 *   well-behaved phase, or its violation phase is neither detected nor defended;
 * - not-proven: some hostile cell that could expose the scenario tested nothing (unsupported,
 *   an error of another cause, never run), or the reference target could not run it;
 * - proven: none of these.
 */
export type ProofStatus = 'proven' | 'toothless' | 'fails-correct-server' | 'not-proven';

/** One cell as selftest reads it. */
export interface ProofCell {
  scenario: string;
  target: string;
  layer: SelftestLayer;
  /** the phase the cell was judged as */
  phase: JudgedAs;
  verdict: Verdict;
  reason: string;
  cell_dir?: string;
  /** the target claims the scenario's defence, so a violation only `detected` fails the run */
  claimed?: boolean;
}

/** One cell a hostile target got a verdict it must not get. */
export interface FalsePass extends Omit<ProofCell, 'reason'> {
  /** why that verdict is false for this target */
  why: string;
  /** the cell's own reason */
  cell_reason: string;
}

/** A cell that could have exposed the scenario and did not test anything. */
export interface Unproven {
  scenario: string;
  target: string;
  layer: SelftestLayer;
  phase: JudgedAs;
  verdict: Verdict | 'not run';
  why: string;
}

/** How the correct server fared where it must not fail. */
export interface ReferenceMiss {
  scenario: string;
  phase: JudgedAs;
  verdict: Verdict;
  reason: string;
}

/** A broken input of memeval's own that reached a decision on one of the scenario's assertions. */
export interface MutationMiss extends MutationResult {
  scenario: string;
}

export interface SelftestScenario {
  id: string;
  file: string;
  status: ProofStatus;
  /** kept for readers of the earlier report: the scenario has a false verdict */
  toothless: boolean;
  false_passes: FalsePass[];
  mutation_misses: MutationMiss[];
  reference_misses: ReferenceMiss[];
  unproven: Unproven[];
}

/** Does the cell show the hostile target's hostility was met (the target was exposed)? */
export function exposes(target: string, phase: JudgedAs, verdict: Verdict, reason: string): boolean {
  const spec = HOSTILE_RULES.find((h) => h.target === target);
  return Boolean(
    spec?.exposed[phase].some((e) => e.verdicts.includes(verdict) && (!e.reason || e.reason.test(reason))),
  );
}

/** What one hostile cell says: false (toothless), exposed (it proves), or unproven (it tested nothing). */
export function readHostileCell(
  s: Scenario,
  c: ProofCell,
): { false: FalsePass } | { exposed: true } | { unproven: Unproven } {
  const rule = falseVerdictRule(s, c.target, c.layer, c.phase, c.verdict);
  if (rule) {
    const { reason, ...cell } = c;
    return { false: { ...cell, why: rule.why, cell_reason: reason } };
  }
  if (exposes(c.target, c.phase, c.verdict, c.reason)) return { exposed: true };
  return {
    unproven: {
      scenario: c.scenario,
      target: c.target,
      layer: c.layer,
      phase: c.phase,
      verdict: c.verdict,
      why:
        c.verdict === 'unsupported'
          ? `the cell could not run on ${c.target}: ${c.reason}`
          : `${c.verdict} is not how ${c.target}'s hostility shows: ${c.reason}`,
    },
  };
}

/**
 * The correct server must pass the well-behaved phase and detect or defend the violation; where
 * it claims the scenario's defence, defend it (`detected` then fails its run: it is blamed).
 */
export function readReferenceCell(c: ProofCell): { miss: ReferenceMiss } | { unproven: Unproven } | null {
  if (c.verdict === 'unsupported' || c.verdict === 'skipped')
    return {
      unproven: {
        scenario: c.scenario,
        target: c.target,
        layer: c.layer,
        phase: c.phase,
        verdict: c.verdict,
        why: `the reference target could not run it, so nothing shows a correct server passes it: ${c.reason}`,
      },
    };
  const ok =
    c.phase === 'well-behaved'
      ? c.verdict === 'pass'
      : c.verdict === 'defended' || (c.verdict === 'detected' && !c.claimed);
  const reason =
    c.verdict === 'detected' && c.claimed
      ? `the reference claims this scenario's defence, so only detecting the violation fails its run: ${c.reason}`
      : c.reason;
  return ok ? null : { miss: { scenario: c.scenario, phase: c.phase, verdict: c.verdict, reason } };
}

/** A scenario's status from what was found about it. */
export function proofStatus(
  x: Pick<SelftestScenario, 'false_passes' | 'mutation_misses' | 'reference_misses' | 'unproven'>,
): ProofStatus {
  if (x.false_passes.length || x.mutation_misses.length) return 'toothless';
  if (x.reference_misses.length) return 'fails-correct-server';
  if (x.unproven.length) return 'not-proven';
  return 'proven';
}

// What `memeval selftest --json` prints, read back by the hostile-matrix tests of both tiers.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

export interface FalsePass {
  scenario: string;
  target: string;
  layer: string;
  phase: string;
  verdict: string;
  why: string;
  cell_reason: string;
}

export const falsePassLine = (f: FalsePass) =>
  `${f.scenario} × ${f.target} (${f.layer} ${f.phase}): ${f.verdict}, but ${f.why} [cell: ${f.cell_reason}]`;

export interface Coverage {
  layer: string;
  cross_product: number;
  planned: number;
  ran: number;
  cannot_be_false: number;
}

export function parseSelftest(stdout: string, stderr: string) {
  try {
    return JSON.parse(stdout) as {
      cells: number;
      coverage: Coverage[];
      scenarios: { id: string; status: string; unproven: { target: string; phase: string; why: string }[] }[];
      by_verdict: Record<string, number>;
      false_passes: FalsePass[];
      toothless: string[];
      proven: string[];
      not_proven: string[];
      narrowed?: string[];
      fails_correct_server: string[];
      duration_ms: number;
    };
  } catch {
    throw new Error(`selftest printed no JSON report:\n${stdout}\n${stderr}`);
  }
}

/**
 * The layer covered the whole cross product of the built-in scenarios (counted here from the
 * folders) × the hostile declarations × each scenario's phases: every cell a rule could make
 * false ran, so the matrix cannot shrink silently.
 */
export async function assertCoverage(rep: ReturnType<typeof parseSelftest>, layer: 'deterministic' | 'agent') {
  const { BUILTIN_SCENARIO_DIRS } = await import('../src/app/selftest.js');
  const { mayBeFalse } = await import('../src/selftest/rules.js');
  const { hostileTargetNames } = await import('../src/targets/files.js');
  const { loadScenarioDir } = await import('../src/app/load.js');
  const files = BUILTIN_SCENARIO_DIRS.flatMap((d) => readdirSync(d).filter((f) => /\.json5?$/.test(f)));
  const scenarios = BUILTIN_SCENARIO_DIRS.flatMap((d) => loadScenarioDir(d)).map((s) => s.scenario);
  const targets = hostileTargetNames();
  assert.equal(rep.scenarios.length, files.length, 'selftest left built-in scenario files out');
  assert.equal(targets.length, readdirSync(join(ROOT, 'eval', 'hostile')).filter((f) => f.endsWith('.json5')).length);
  const cells = scenarios.flatMap((s) =>
    targets.flatMap((t) => {
      const phases: ('well-behaved' | 'violation')[] = s.deterministic.violation
        ? ['well-behaved', 'violation']
        : ['well-behaved'];
      return phases.map((p) => ({ s, t, p }));
    }),
  );
  const planned = cells.filter((c) => mayBeFalse(c.s, c.t, layer, c.p)).length;
  const cov = rep.coverage.find((c) => c.layer === layer);
  assert.deepEqual(cov, {
    layer,
    cross_product: cells.length,
    planned,
    ran: planned,
    cannot_be_false: cells.length - planned,
  });
}

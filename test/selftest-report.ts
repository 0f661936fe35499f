// What `memeval selftest --json` prints, read back by the hostile-matrix tests of both tiers.

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

export function parseSelftest(stdout: string, stderr: string) {
  try {
    return JSON.parse(stdout) as {
      cells: number;
      by_verdict: Record<string, number>;
      false_passes: FalsePass[];
      toothless: string[];
      duration_ms: number;
    };
  } catch {
    throw new Error(`selftest printed no JSON report:\n${stdout}\n${stderr}`);
  }
}

import { randomBytes } from 'node:crypto';
import type { Verdict } from '../judge/verdict.js';
import type { PhaseResult } from '../replay/phase.js';
import type { Matrix } from './matrix.js';

export { REPORT_SCHEMA_VERSION } from '../core/results.js';

export interface TargetInfo {
  name: string;
  package: string;
  version: string;
  claims: string[];
}

export interface Report {
  schema_version: number;
  run_id: string;
  status: 'completed' | 'interrupted' | 'blocked';
  reason?: string;
  memeval_version: string;
  layer: 'deterministic' | 'real-model';
  started_at: string;
  ended_at: string;
  options: Record<string, unknown>;
  scenarios: string[];
  targets: TargetInfo[];
  results: PhaseResult[];
  matrix: Matrix;
  summary: Summary;
  warnings: string[];
}

export interface Summary {
  cells: number;
  passed: number;
  failed: number;
  by_verdict: Partial<Record<Verdict, number>>;
  exit_code: number;
}

export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

export function summarize(results: PhaseResult[], interrupted: boolean): Summary {
  const by: Partial<Record<Verdict, number>> = {};
  for (const r of results) by[r.verdict] = (by[r.verdict] ?? 0) + 1;
  const failed = results.filter((r) => r.fails_run).length;
  return {
    cells: results.length,
    passed: results.length - failed - (by.skipped ?? 0),
    failed,
    by_verdict: by,
    exit_code: failed > 0 || interrupted ? 1 : 0,
  };
}

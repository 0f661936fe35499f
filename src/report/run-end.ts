import type { ChalkInstance } from 'chalk';
import type { Report } from '../core/results.js';
import { formatRepeats } from './console.js';
import { formatGate, type GateResult } from './gate.js';
import { formatMatrix } from './matrix.js';
import { formatRecap } from './progress.js';
import type { RepeatStats } from './repeats.js';

/**
 * What a run prints once its cells are judged, and `rejudge` once it has judged them again: the
 * repeats table (several repeats) or the matrix (several targets or agents), the warnings, the recap with
 * the cells that fail the run and the closing counts, then the gate's lines.
 */
export function formatRunEnd(
  report: Report & { repeats?: RepeatStats[]; gate?: GateResult },
  reportPath: string,
  wallMs: number,
  c: ChalkInstance,
): string[] {
  const table =
    report.repeats && (report.options.repeat ?? 1) > 1
      ? formatRepeats(report.repeats)
      : report.matrix.targets.length > 1
        ? formatMatrix(report.matrix)
        : undefined;
  return [
    ...(table ? ['\n' + table + '\n'] : []),
    ...report.warnings.map((w) => c.yellow(`warning: ${w}`)),
    formatRecap(report, reportPath, wallMs, c),
    ...(report.gate ? formatGate(report.gate, report.results) : []),
  ];
}

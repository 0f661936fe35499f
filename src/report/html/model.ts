import { cellAgent, type CellResult, type Report } from '../../core/results.js';
import { cellStages, type StageResult } from '../../core/stages.js';
import { taxonomyHeading } from '../../core/taxonomy.js';
import type { GateResult } from '../gate.js';
import { columnOf, matrixColumns, runAgents } from '../matrix.js';
import type { PartialReport, PendingCell } from '../run-log.js';

/**
 * What the page shows of each cell besides its result, decided here (and unit-tested) rather
 * than in the page's script: its column, its label, and what the gate made of it.
 */

/** How the gate counted a cell: accepted by the baseline or expected failures, counted against the run, or passing where it failed before. */
export type GateMark = 'known failure' | 'new failure' | 'fixed' | 'not checked';

/** One matrix column: a target, or with several agents in the run, a target × agent. */
export interface PageColumn {
  key: string;
  target: string;
  agent?: string;
  /** several versions of one target in the run: this column's version */
  version?: string;
}

export interface PageCell {
  column: string;
  /** phase and repeat (deterministic), or the agent and its repeat (real-model) */
  label: string;
  gate?: GateMark;
  /** the stages its assertions name (core/stages.ts), in the scenario's order; absent: none */
  stages?: StageResult[];
  /** what the risk filter matches: the scenario's tags and the published risks they map to (OWASP-ASI06) */
  groups?: string[];
}

/** A warning said once, with how many times (and for which targets) it was given. */
export interface WarningGroup {
  text: string;
  count: number;
  targets: string[];
}

export interface PageModel {
  columns: PageColumn[];
  /** the risk filter's choices: each taxonomy id (with its heading) and tag of the run's cells */
  groups: { value: string; text: string }[];
  /** by cell id, finished and pending cells alike */
  cells: Record<string, PageCell>;
  agents: string[];
  warnings: WarningGroup[];
  /** the gate's counts, when a baseline or expected failures judged the run */
  gate?: { fail_on: string; known: number; new: number; fixed: number };
}

type AnyReport = Report | PartialReport;
type CellLike = Pick<CellResult, 'cell_id' | 'target' | 'phase'> & Partial<Pick<CellResult, 'agent' | 'repeat'>>;

/** The number after the last `-` of a cell id's last part: the repeat of a real-model or repeated cell. */
const repeatOf = (c: CellLike): number | undefined =>
  c.repeat ?? (c.phase === 'real-model' ? Number(/-(\d+)$/.exec(c.cell_id)?.[1]) || undefined : undefined);

/** A cell's label in its column: `well-behaved`, `violation #2`, `claude-code #1`. */
export function cellLabel(c: CellLike): string {
  const repeat = repeatOf(c);
  const agent = c.phase === 'real-model' ? cellAgent(c) : undefined;
  return `${agent ?? c.phase}${repeat !== undefined ? ` #${repeat}` : ''}`;
}

/** The gate's decision per cell, read from the report's gate (absent: no baseline or expected failures). */
export function gateMarks(report: AnyReport): Map<string, GateMark> {
  const g = (report as { gate?: GateResult }).gate;
  const marks = new Map<string, GateMark>();
  if (!g) return marks;
  // with fail_on failures every failing cell fails the run: nothing is "new" against anything
  if (g.fail_on === 'regressions') for (const c of g.regressions) marks.set(c.cell_id, 'new failure');
  for (const c of g.known) marks.set(c.cell_id, 'known failure');
  for (const c of [...(g.fixed ?? []), ...g.unexpected_passes]) marks.set(c.cell_id, 'fixed');
  for (const c of g.not_checked) if (!marks.has(c.cell_id)) marks.set(c.cell_id, 'not checked');
  return marks;
}

/**
 * Group the run's warnings: the report prefixes a cell's warning with its target, so one problem
 * of every target reads N times; here it reads once with the targets it was given for.
 */
export function groupWarnings(warnings: string[], targets: string[]): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  // the longest name first, so `a@2` is not taken for `a`
  const names = [...targets].sort((x, y) => y.length - x.length);
  for (const w of warnings) {
    const target = names.find((t) => w.startsWith(`${t}: `));
    const text = target ? w.slice(target.length + 2) : w;
    const g = groups.get(text) ?? { text, count: 0, targets: [] };
    g.count++;
    if (target && !g.targets.includes(target)) g.targets.push(target);
    groups.set(text, g);
  }
  return [...groups.values()];
}

/** The columns, cells, agents, grouped warnings and gate counts the page renders. */
export function pageModel(report: AnyReport): PageModel {
  const pending: PendingCell[] = (report as Partial<PartialReport>).live?.pending ?? [];
  const all: CellLike[] = [...report.results, ...pending.map((p) => ({ ...p, phase: p.phase as CellLike['phase'] }))];
  // the matrix's columns are target × agent in a run of several agents: the targets are the report's
  const targets =
    report.matrix.targets.length && !report.matrix.agents
      ? report.matrix.targets
      : [...new Set([...report.targets.map((t) => t.name), ...all.map((c) => c.target)])].filter((t) =>
          all.some((c) => c.target === t),
        );
  const agents = runAgents(all);
  const split = agents.length > 1;
  const columns: PageColumn[] = matrixColumns(all, targets).map((c) => {
    const version = report.matrix.versions?.[c.target];
    return { ...c, ...(version ? { version } : {}) };
  });
  const marks = gateMarks(report);
  const cells: Record<string, PageCell> = {};
  for (const c of all) {
    const mark = marks.get(c.cell_id);
    const r = c as Partial<CellResult>;
    const stages = r.assertions ? cellStages(r.assertions) : [];
    const groups = [...(r.taxonomy ?? []), ...(r.tags ?? [])];
    cells[c.cell_id] = {
      column: columnOf(c, split),
      label: cellLabel(c),
      ...(mark ? { gate: mark } : {}),
      ...(stages.length ? { stages } : {}),
      ...(groups.length ? { groups } : {}),
    };
  }
  const ids = [...new Set(report.results.flatMap((r) => r.taxonomy ?? []))];
  const tags = [...new Set(report.results.flatMap((r) => r.tags ?? []))].sort();
  const g = (report as { gate?: GateResult }).gate;
  const count = (m: GateMark) => [...marks.values()].filter((x) => x === m).length;
  return {
    columns,
    groups: [
      ...ids.map((id) => ({ value: id, text: `${id}: ${taxonomyHeading(id)}` })),
      ...tags.map((t) => ({ value: t, text: `tag ${t}` })),
    ],
    cells,
    agents,
    warnings: groupWarnings(report.warnings, targets),
    ...(g
      ? {
          gate: { fail_on: g.fail_on, known: count('known failure'), new: count('new failure'), fixed: count('fixed') },
        }
      : {}),
  };
}

import { cpSync, existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { CellResult, Report, RunStatus } from '../core/results.js';
import { InputError } from '../util/errors.js';
import { buildMatrix } from './matrix.js';
import { newRunId, summarize } from './report.js';
import type { ReadRun } from './reader.js';
import { writeFileAtomic, writeJsonAtomic } from './write.js';

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/** Why these reports cannot be one run (empty: they can). */
export function mergeProblems(parts: ReadRun[]): string[] {
  const problems: string[] = [];
  const [first] = parts;
  for (const p of parts.slice(1)) {
    if (p.report.memeval_version !== first.report.memeval_version)
      problems.push(`${p.file}: memeval_version ${p.report.memeval_version}, but ${first.file} has ${first.report.memeval_version}; re-run the shards with one memeval version`);
    if (p.report.layer !== first.report.layer) problems.push(`${p.file}: layer ${p.report.layer}, but ${first.file} is ${first.report.layer}`);
    if (!sameSet(p.report.scenarios, first.report.scenarios))
      problems.push(`${p.file}: scenarios [${p.report.scenarios.join(', ')}] differ from ${first.file}'s [${first.report.scenarios.join(', ')}]; shards must select the same scenarios`);
  }
  const owner = new Map<string, string>();
  for (const p of parts)
    for (const r of p.report.results) {
      const prev = owner.get(r.cell_id);
      if (prev) problems.push(`cell ${r.cell_id} is in both ${prev} and ${p.file}; shards must not overlap`);
      owner.set(r.cell_id, p.file);
    }
  const versions = new Map<string, string>();
  for (const p of parts)
    for (const t of p.report.targets) {
      const v = versions.get(t.name);
      if (v !== undefined && v !== t.version) problems.push(`${p.file}: target ${t.name} ${t.version}, another shard ran ${t.name} ${v}`);
      versions.set(t.name, t.version);
    }
  return problems;
}

const STATUS_RANK: RunStatus[] = ['completed', 'failed', 'blocked', 'interrupted'];

/**
 * Combine partial reports (shards, or one job per target) into one run directory: the cells
 * are copied in, so the merged run stands alone like any other.
 */
export function mergeReports(parts: ReadRun[], outDir: string): { report: Report; runDir: string; reportPath: string } {
  if (!parts.length) throw new InputError('merge: give at least one run directory');
  const problems = mergeProblems(parts);
  if (problems.length) throw new InputError(problems.join('\n'), problems);
  const runId = newRunId();
  const runDir = join(outDir, runId);
  const results: CellResult[] = [];
  const calls: string[] = [];
  for (const p of parts) {
    for (const r of p.report.results) {
      const from = isAbsolute(r.cell_dir) ? r.cell_dir : join(p.runDir, r.cell_dir);
      const rel = join('cells', ...r.cell_id.split('/'));
      if (existsSync(from)) cpSync(from, join(runDir, rel), { recursive: true });
      results.push({ ...r, cell_dir: rel });
    }
    const log = join(p.runDir, 'calls.jsonl');
    if (existsSync(log)) calls.push(readFileSync(log, 'utf8'));
  }
  results.sort((a, b) => (a.cell_id < b.cell_id ? -1 : a.cell_id > b.cell_id ? 1 : 0));
  const targets = [...new Map(parts.flatMap((p) => p.report.targets).map((t) => [t.name, t])).values()];
  const status = parts.map((p) => p.report.status).reduce((a, b) => (STATUS_RANK.indexOf(b) > STATUS_RANK.indexOf(a) ? b : a));
  const summary = summarize(results, status === 'interrupted');
  const report: Report = {
    schema_version: parts[0].report.schema_version,
    run_id: runId,
    status,
    memeval_version: parts[0].report.memeval_version,
    layer: parts[0].report.layer,
    started_at: parts.map((p) => p.report.started_at).sort()[0],
    ended_at: parts.map((p) => p.report.ended_at).sort().at(-1)!,
    options: { merged_from: parts.map((p) => p.report.run_id), shards: parts.map((p) => (p.report as { shard?: unknown }).shard ?? null) },
    scenarios: parts[0].report.scenarios,
    targets,
    results,
    matrix: buildMatrix(results, targets.map((t) => t.name)),
    summary,
    warnings: [...new Set(parts.flatMap((p) => p.report.warnings))],
  };
  writeFileAtomic(join(runDir, 'calls.jsonl'), calls.join(''));
  const reportPath = join(runDir, 'report.json');
  writeJsonAtomic(reportPath, report);
  return { report, runDir, reportPath };
}

import { cpSync, existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import {
  EXIT,
  type CellResult,
  type Report,
  type reportOptionsSchema,
  type RunPlan,
  type RunStatus,
} from '../core/results.js';
import { InputError } from '../util/errors.js';
import { MEMEVAL_VERSION } from '../util/paths.js';
import { buildMatrix } from './matrix.js';
import { newRunId, summarize } from './report.js';
import type { ReadRun } from './reader.js';
import { writeFileAtomic, writeJsonAtomic } from './write.js';

const sameSet = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
const short = (sha: string) => sha.slice(0, 12);
const planOf = (p: ReadRun) => p.report.plan as RunPlan;
/**
 * Every option a report records, and for each that can change a cell's verdict the flag that
 * sets it (null: it cannot). Every part of one run must share the verdict options, and the merged
 * report keeps them; an option added to the report without a line here does not compile.
 */
export const VERDICT_OPTIONS: Record<keyof typeof reportOptionsSchema.shape, string | null> = {
  judge_model: '--judge-model (with --judge-base-url, --judge-protocol)',
  judge_level: '--judge-level',
  judge_min_confidence: '--judge-min-confidence',
  retries: '--retries',
  fail_on: '--fail-on',
  agent: '--agent',
  agent_version: '--agent (one installed version of each agent)',
  agents: '--agent (one installed version of each agent)',
  model: '--model',
  scripted_model: '--model',
  policy: '--policy',
  repeat: '--repeat',
  max_turns: '--max-turns',
  prompt_timeout_ms: '--prompt-timeout',
  mcp_timeout_ms: '--mcp-timeout',
  agent_base_url: '--base-url',
  // how the run was executed or where from, not what a verdict means (files are compared by hash)
  workers: null,
  keep: null,
  scenarios_dir: null,
  shard: null,
  agent_turn: null,
  i_understand_model_cost: null,
  selftest: null,
  merged_from: null,
  shards: null,
};
const SAME_OPTIONS = Object.entries(VERDICT_OPTIONS).flatMap(([k, flag]) => (flag ? [[k, flag] as const] : []));

/**
 * Why these reports cannot be one run (empty: they can). A blocked part ran nothing and planned
 * nothing: it is checked for version and layer only, and the merged run is blocked (exit 2).
 */
export function mergeProblems(parts: ReadRun[]): string[] {
  const problems: string[] = [];
  const [first] = parts;
  for (const p of parts.slice(1)) {
    if (p.report.memeval_version !== first.report.memeval_version)
      problems.push(
        `${p.file}: memeval_version ${p.report.memeval_version}, but ${first.file} has ${first.report.memeval_version}; re-run the shards with one memeval version`,
      );
    if (p.report.layer !== first.report.layer)
      problems.push(`${p.file}: layer ${p.report.layer}, but ${first.file} is ${first.report.layer}`);
  }
  const ran = parts.filter((p) => p.report.status !== 'blocked');
  const old = ran.filter((p) => !p.report.plan);
  for (const p of old)
    problems.push(
      `${p.file}: no plan (planned cells, shard, scenario and target file hashes) in this report: memeval ${p.report.memeval_version} did not record one, so merge cannot tell whether the parts make one run; rerun it with memeval ${MEMEVAL_VERSION}`,
    );
  if (old.length || !ran.length) return problems;
  const [lead] = ran;
  for (const p of ran.slice(1)) {
    if (!sameSet(p.report.scenarios, lead.report.scenarios))
      problems.push(
        `${p.file}: scenarios [${p.report.scenarios.join(', ')}] differ from ${lead.file}'s [${lead.report.scenarios.join(', ')}]; shards must select the same scenarios`,
      );
    for (const [k, flag] of SAME_OPTIONS)
      if (JSON.stringify(p.report.options[k] ?? null) !== JSON.stringify(lead.report.options[k] ?? null))
        problems.push(
          `${p.file}: ${k} ${JSON.stringify(p.report.options[k] ?? null)}, but ${lead.file} ran with ${JSON.stringify(lead.report.options[k] ?? null)}; ` +
            `it can change verdicts, so every part of a run is judged alike: rerun the part that differs with the same ${flag}`,
        );
  }
  problems.push(
    ...fileProblems(ran),
    ...overlapProblems(parts),
    ...shardProblems(ran),
    ...intendedProblems(ran, parts.length > ran.length),
  );
  const versions = new Map<string, string>();
  for (const p of parts)
    for (const t of p.report.targets) {
      const v = versions.get(t.name);
      if (v !== undefined && v !== t.version)
        problems.push(`${p.file}: target ${t.name} ${t.version}, another shard ran ${t.name} ${v}`);
      versions.set(t.name, t.version);
    }
  // a blocked part planned nothing: what is missing is that part's, and the run exits 2 for it
  if (ran.length === parts.length) problems.push(...missingProblems(ran));
  return problems;
}

/** The same scenario id or target name must be the same file content in every part. */
function fileProblems(ran: ReadRun[]): string[] {
  const problems = new Set<string>();
  for (const kind of ['scenarios', 'targets'] as const) {
    const seen = new Map<string, { part: ReadRun; file: string; sha256: string }>();
    for (const p of ran)
      for (const [name, h] of Object.entries(planOf(p)[kind])) {
        const prev = seen.get(name);
        if (!prev) seen.set(name, { part: p, ...h });
        else if (prev.sha256 !== h.sha256)
          problems.add(
            `${kind === 'scenarios' ? 'scenario' : 'target'} ${name}: ${prev.part.file} ran ${prev.file} (sha256 ${short(prev.sha256)}), but ${p.file} ran ${h.file} (sha256 ${short(h.sha256)}); every part of a run must read the same files: rerun the part that differs`,
          );
      }
  }
  return [...problems];
}

function overlapProblems(parts: ReadRun[]): string[] {
  const problems: string[] = [];
  const owner = new Map<string, string>();
  for (const p of parts)
    for (const r of p.report.results) {
      const prev = owner.get(r.cell_id);
      if (prev) problems.push(`cell ${r.cell_id} is in both ${prev} and ${p.file}; shards must not overlap`);
      owner.set(r.cell_id, p.file);
    }
  return problems;
}

/** Parts that planned the same cells are shards of one run: one n, each index once. */
function shardProblems(ran: ReadRun[]): string[] {
  const problems: string[] = [];
  for (const group of byPlan(ran).values()) {
    const sharded = group.filter((p) => planOf(p).shard);
    const [a] = sharded;
    const byIndex = new Map<number, ReadRun>();
    for (const p of sharded) {
      const s = planOf(p).shard!;
      if (s.count !== planOf(a).shard!.count)
        problems.push(
          `${p.file} is shard ${s.index}/${s.count}, but ${a.file} is shard ${planOf(a).shard!.index}/${planOf(a).shard!.count} of the same cells; every shard of a run uses the same n`,
        );
      const prev = byIndex.get(s.index);
      if (prev)
        problems.push(
          `shard ${s.index}/${s.count} is given twice: ${prev.file} and ${p.file}; give each shard of a run once`,
        );
      byIndex.set(s.index, p);
    }
  }
  return problems;
}

function byPlan(ran: ReadRun[]): Map<string, ReadRun[]> {
  const groups = new Map<string, ReadRun[]>();
  for (const p of ran) {
    const key = planOf(p).cells.join('\n');
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  return groups;
}

/** Every cell some part planned must have a result in some part: a shard that never arrived is named. */
function missingProblems(ran: ReadRun[]): string[] {
  const have = new Set(ran.flatMap((p) => p.report.results.map((r) => r.cell_id)));
  const missing = [...new Set(ran.flatMap((p) => planOf(p).cells))].filter((id) => !have.has(id)).sort();
  if (!missing.length) return [];
  const problems = [`missing ${missing.length} planned cell(s): ${missing.join(', ')}; no part given ran them`];
  for (const group of byPlan(ran).values()) {
    const shards = group.map((p) => planOf(p).shard).filter((s) => s !== null);
    if (!shards.length) continue;
    const count = shards[0].count;
    for (let i = 1; i <= count; i++)
      if (!shards.some((s) => s.index === i))
        problems.push(
          `shard ${i}/${count} of the cells planned in ${group[0].file} was not given; merge every shard of the run`,
        );
  }
  return problems;
}

/**
 * --intended-targets: every part must record the same whole set of targets, and (unless a part
 * was blocked, which makes the merged run blocked anyway) each of them must have a part: a
 * target whose job wrote nothing, or whose report was not given, is named.
 */
function intendedProblems(ran: ReadRun[], someBlocked: boolean): string[] {
  const recorded = ran.filter((p) => planOf(p).intended_targets);
  if (!recorded.length) return [];
  const [lead] = recorded;
  const whole = planOf(lead).intended_targets!;
  const problems: string[] = [];
  for (const p of ran) {
    const mine = planOf(p).intended_targets;
    if (!mine)
      problems.push(
        `${p.file}: records no --intended-targets, but ${lead.file} is one part of a run over [${whole.join(', ')}]; run every part with the same --intended-targets`,
      );
    else if (!sameSet(mine, whole))
      problems.push(
        `${p.file}: is one part of a run over targets [${mine.join(', ')}], but ${lead.file} of [${whole.join(', ')}]; run every part with the same --intended-targets`,
      );
  }
  const ranTargets = new Set(ran.flatMap((p) => Object.keys(planOf(p).targets)));
  const missing = whole.filter((t) => !ranTargets.has(t));
  if (missing.length && !someBlocked)
    problems.push(
      `no part ran target(s) ${missing.join(', ')} of the intended targets [${whole.join(', ')}] (--intended-targets, recorded in ${lead.file}): their job wrote no report, or it was not given; merge every part, or rerun the job of ${missing.join(', ')}`,
    );
  return problems;
}

const STATUS_RANK: RunStatus[] = ['completed', 'failed', 'blocked', 'interrupted'];

/**
 * Combine partial reports (shards, or one job per target) into one run directory: the cells
 * are copied in, so the merged run stands alone like any other. Refuses (InputError, exit 3)
 * parts that are not one complete run; a blocked or interrupted part makes the merged run
 * blocked (exit 2) or interrupted (130), as that part was.
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
  const status = parts
    .map((p) => p.report.status)
    .reduce((a, b) => (STATUS_RANK.indexOf(b) > STATUS_RANK.indexOf(a) ? b : a));
  const summary = summarize(results, status === 'interrupted');
  if (status === 'blocked') summary.exit_code = EXIT.blocked;
  const blocked = parts.filter((p) => p.report.status === 'blocked');
  const ran = parts.filter((p) => p.report.status !== 'blocked');
  const plans = ran.map(planOf);
  const intended = plans.find((p) => p.intended_targets)?.intended_targets;
  const plan: RunPlan = {
    cells: [...new Set(plans.flatMap((p) => p.cells))].sort(),
    shard: null,
    scenarios: Object.assign({}, ...plans.map((p) => p.scenarios)),
    targets: Object.assign({}, ...plans.map((p) => p.targets)),
    ...(intended ? { intended_targets: intended } : {}),
  };
  const report: Report = {
    schema_version: parts[0].report.schema_version,
    run_id: runId,
    status,
    ...(blocked.length
      ? { reason: blocked.map((p) => `${p.file} was blocked: ${p.report.reason ?? 'no reason recorded'}`).join('; ') }
      : {}),
    memeval_version: parts[0].report.memeval_version,
    layer: parts[0].report.layer,
    started_at: parts.map((p) => p.report.started_at).sort()[0],
    ended_at: parts
      .map((p) => p.report.ended_at)
      .sort()
      .at(-1)!,
    options: {
      merged_from: parts.map((p) => p.report.run_id),
      shards: parts.map((p) => (p.report as { shard?: unknown }).shard ?? null),
      ...Object.fromEntries(
        SAME_OPTIONS.filter(([k]) => k in (ran[0] ?? parts[0]).report.options).map(([k]) => [
          k,
          (ran[0] ?? parts[0]).report.options[k],
        ]),
      ),
    },
    scenarios: (ran[0] ?? parts[0]).report.scenarios,
    targets,
    results,
    matrix: buildMatrix(
      results,
      targets.map((t) => t.name),
    ),
    summary,
    warnings: [...new Set(parts.flatMap((p) => p.report.warnings))],
    plan,
  };
  writeFileAtomic(join(runDir, 'calls.jsonl'), calls.join(''));
  const reportPath = join(runDir, 'report.json');
  writeJsonAtomic(reportPath, report);
  return { report, runDir, reportPath };
}

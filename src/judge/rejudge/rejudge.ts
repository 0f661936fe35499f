import { join, resolve } from 'node:path';
import type { CellResult, Judgment, Report } from '../../core/results.js';
import { openEvidence } from '../../evidence/open.js';
import { buildMatrix } from '../../report/matrix.js';
import { newRunId, summarize } from '../../report/report.js';
import { writeJsonAtomic } from '../../report/write.js';
import type { LoadedScenario } from '../../scenario/loader.js';
import { needsModel, type Assertion } from '../../scenario/schema.js';
import { walkAssertions } from '../../scenario/judge-checks.js';
import type { JudgePool } from '../llm/pool.js';
import { judgeRunSummary } from '../llm/summary.js';
import { judgeOne } from '../registry.js';
import { failsRun, phaseVerdict } from '../verdict.js';

/** Why an assertion cannot be judged again from saved evidence alone, or null when it can. */
export function whyNotRejudgeable(a: Assertion): string | null {
  for (const { a: x } of walkAssertions([a])) {
    if (x.kind === 'recall' || x.kind === 'rank') return `${x.kind} "${x.name}" needs a live recall probe against the target, and rejudge replays nothing`;
    if (x.kind === 'llm' && x.subject === 'recall') return `llm "${x.name}" judges recall results, which need a live recall probe`;
    if (x.kind === 'llm' && x.subject === 'files') return `llm "${x.name}" judges fixture files, which are removed after a run`;
  }
  return null;
}

export interface RejudgeOptions {
  runDir: string;
  scenarios: LoadedScenario[];
  /** the judge models (the caller closes them); no default model: llm judges abstain */
  judgePool: JudgePool;
  /** re-judge only assertions that call a model (llm, and juries/cascades holding one) */
  onlyLlm: boolean;
  outDir: string;
}

interface RejudgeNote {
  rejudged: boolean;
  why?: string;
  previous_outcome?: string;
}

function finalAnswer(cell: CellResult): string | undefined {
  const turns = cell.agent?.turns;
  return turns?.length ? turns[turns.length - 1].final_text : undefined;
}

/**
 * Judge a saved run again from its evidence: each cell's evidence.db is reopened read-only,
 * the scenario's assertions that applied to the cell are judged again (all, or only the ones
 * that call a model) and the cell's verdict is recomputed. Nothing is replayed: assertions that
 * need a live target keep their old judgment and say why; a cell without evidence says why.
 */
export async function rejudgeRun(report: Report, o: RejudgeOptions): Promise<{ report: Report & Record<string, unknown>; reportPath: string }> {
  const runDir = resolve(o.runDir);
  const byId = new Map(o.scenarios.map((s) => [s.scenario.id, s]));
  const results: CellResult[] = [];
  for (const old of report.results) {
    const cellDir = resolve(runDir, old.cell_dir);
    const scenario = byId.get(old.scenario);
    const keep = (why: string): CellResult => ({ ...old, cell_dir: cellDir, rejudge: { rejudged: false, why } as RejudgeNote });
    if (!scenario) {
      results.push(keep(`scenario ${old.scenario} is not among the loaded scenarios (pass --scenarios)`));
      continue;
    }
    if (!old.assertions.length) {
      results.push(keep(`the cell ended ${old.verdict} before judging (${old.reason})`));
      continue;
    }
    let evidence;
    try {
      evidence = openEvidence(cellDir);
    } catch (e) {
      results.push(keep(`its evidence cannot be opened: ${(e as Error).message}`));
      continue;
    }
    try {
      const decls = new Map(scenario.scenario.assertions.map((a) => [a.name, a]));
      const memories = new Map<string, { id: string; content: string }>();
      for (const m of scenario.scenario.setup.memories) memories.set(m.ref, { id: '', content: m.content });
      const steps = [...scenario.scenario.deterministic.well_behaved, ...(scenario.scenario.deterministic.violation?.steps ?? [])];
      for (const s of steps) if (s.op === 'remember' && s.ref) memories.set(s.ref, { id: '', content: s.content });
      const ctx = {
        evidence,
        transcript: finalAnswer(old),
        judgeModel: o.judgePool.defaultModel,
        judgePool: o.judgePool,
        scenarioDir: resolve(scenario.file, '..'),
        memory: (ref: string) => memories.get(ref),
      };
      const judgments: Judgment[] = [];
      let redone = 0;
      for (const prev of old.assertions) {
        const a = decls.get(prev.name);
        const note = (why: string): Judgment => ({ ...prev, rejudge: { rejudged: false, why } as RejudgeNote });
        if (!a) judgments.push(note('the scenario no longer declares this assertion'));
        else if (o.onlyLlm && !needsModel(a)) judgments.push(note('--only llm: kept as judged'));
        else {
          const why = whyNotRejudgeable(a);
          if (why) judgments.push(note(why));
          else {
            let j: Judgment;
            try {
              j = await judgeOne(a, ctx);
            } catch (e) {
              j = { ...prev, outcome: 'error', passed: null, detail: (e as Error).message };
            }
            judgments.push({ ...j, rejudge: { rejudged: true, previous_outcome: prev.outcome } as RejudgeNote });
            redone++;
          }
        }
      }
      const refusedCalls = evidence.db
        .prepare("SELECT count(*) FROM calls WHERE coalesce(method, 'tools/call') = 'tools/call' AND stage IN ('step', 'agent') AND is_error")
        .pluck()
        .get() as number;
      const judgedAs = old.phase === 'violation' || old.agent?.policy === 'violation' ? 'violation' : 'well-behaved';
      const v = ['pass', 'fail', 'defended', 'detected', 'undetected'].includes(old.verdict)
        ? phaseVerdict({ judgedAs, expectation: scenario.scenario.deterministic.violation?.expectation, refusedCalls, judgments })
        : { verdict: old.verdict, reason: old.reason };
      results.push({
        ...old,
        cell_dir: cellDir,
        verdict: v.verdict,
        reason: v.reason,
        fails_run: failsRun(v.verdict, Boolean(old.claimed)),
        assertions: judgments,
        rejudge: { rejudged: redone > 0, ...(redone ? {} : { why: 'no assertion of this cell could be judged again' }), previous_outcome: old.verdict } as RejudgeNote,
      });
    } finally {
      evidence.close();
    }
  }
  const runId = newRunId();
  const judges = judgeRunSummary(results, o.judgePool.defaultModel?.config ?? null);
  const out = {
    ...report,
    run_id: runId,
    started_at: new Date().toISOString(),
    ended_at: new Date().toISOString(),
    rejudged_from: { run_id: report.run_id, run_dir: runDir, only: o.onlyLlm ? 'llm' : 'all' },
    options: { ...report.options, judge_model: o.judgePool.defaultModel?.config ?? null },
    results,
    matrix: buildMatrix(results, report.targets.map((t) => t.name)),
    summary: summarize(results, false),
    judges: judges.summary,
    // the earlier run's own judge warning is replaced by this one's
    warnings: [...judges.warnings, ...report.warnings.filter((w) => !w.startsWith('no judge model configured'))],
  };
  const reportPath = join(resolve(o.outDir), `rejudge-${runId}`, 'report.json');
  writeJsonAtomic(reportPath, out);
  return { report: out, reportPath };
}

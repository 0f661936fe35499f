import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CellResult, Report } from '../core/results.js';
import { checkEvidence } from '../evidence/hash.js';
import { openEvidence, type Evidence } from '../evidence/open.js';
import type { LoadedScenario } from '../scenario/loader.js';
import { needsModel, whyNotRejudgeable } from '../scenario/kinds.js';
import type { JudgePool } from '../judge/llm/pool.js';
import { judgeCell, type CellAssertion, type StoredVerdictInput } from '../judge/cell.js';
import { failsRun } from '../judge/verdict.js';
import { InputError, messageOf } from '../util/errors.js';
import { sha256File } from '../util/file-hash.js';

/** A cell the run judged: rejudge judges it again (one whose scenario is not loaded is kept as it was). */
const judged = (c: CellResult) => c.assertions.length > 0 || c.verdict_input !== undefined;

/**
 * Before anything is judged: every judged cell must carry what its verdict read, its evidence
 * must be the bytes written at snapshot time, and its scenario file the bytes the run read
 * (the plan's sha256). Any of them fails the whole command (exit 3): a verdict computed from
 * guessed inputs, changed evidence or an edited scenario is not the run's, whatever report says.
 */
function refuseUnfaithful(
  report: Report,
  runDir: string,
  loaded: Map<string, LoadedScenario>,
  scenariosDir?: string,
): void {
  const problems: string[] = [];
  // a judged cell whose scenario is not loaded would be kept as it was: a rejudge that judged
  // nothing would read as one that confirmed the verdict
  const unloaded = [
    ...new Set(report.results.filter((r) => judged(r) && !loaded.has(r.scenario)).map((r) => r.scenario)),
  ];
  if (unloaded.length)
    problems.push(
      `scenario(s) ${unloaded.join(', ')} of the run are not among the loaded scenarios${scenariosDir ? ` (${scenariosDir})` : ''}, so their cells cannot be re-judged: pass the folder the run used with --scenarios, or restore the file(s)`,
    );
  const cells = report.results.filter((r) => judged(r) && loaded.has(r.scenario));
  problems.push(...scenarioProblems(report, [...new Set(cells.map((c) => c.scenario))], loaded));
  for (const c of cells) {
    const lacking = (['verdict_input', 'judge_input', 'evidence_sha256'] as const).filter((k) => c[k] === undefined);
    if (lacking.length) {
      problems.push(
        `cell ${c.cell_id}: the report lacks ${lacking.join(', ')} (the memeval that wrote it did not keep what the verdict read), so it cannot be re-judged faithfully; run the scenarios again with this memeval (memeval run) and rejudge that run`,
      );
      continue;
    }
    const cellDir = resolve(runDir, c.cell_dir);
    const { changed } = checkEvidence(cellDir, c.evidence_sha256!);
    for (const rel of changed)
      problems.push(
        `cell ${c.cell_id}: ${join(cellDir, rel)} changed since the run (sha256 differs from the one taken at snapshot time); refusing to re-judge changed evidence`,
      );
  }
  if (problems.length) throw new InputError(problems[0], problems);
}

/**
 * Each scenario rejudge would judge with must be the file the run read. Rejudging with an edited
 * scenario would judge the run's evidence by rules it was not run under (a changed setup, steps
 * or phases make the saved verdict inputs another scenario's) and write a report that still
 * names the old file's sha256; so it is refused, as changed evidence is, with the fix.
 */
function scenarioProblems(report: Report, ids: string[], loaded: Map<string, LoadedScenario>): string[] {
  const fix = 'restore it (e.g. git checkout), or run the scenario again (memeval run) and rejudge that run';
  if (!ids.length) return [];
  if (!report.plan)
    return [
      `the report does not record the scenario files its run read (memeval ${report.memeval_version} did not keep a plan), so rejudge cannot show it judges with the same scenarios; run the scenarios again with this memeval (memeval run) and rejudge that run`,
    ];
  return ids.flatMap((id) => {
    const file = loaded.get(id)!.file;
    const was = report.plan!.scenarios[id];
    const now = sha256File(file);
    if (!was)
      return [
        `scenario ${id}: the run's plan records no file for it, so ${file} cannot be shown to be what it ran; ${fix}`,
      ];
    return now === was.sha256
      ? []
      : [
          `scenario ${id}: ${file} changed since the run (sha256 ${now.slice(0, 12)}; the run read ${was.file}, sha256 ${was.sha256.slice(0, 12)}); refusing to re-judge with another scenario than the run's: ${fix}`,
        ];
  });
}

export interface RejudgeOptions {
  /** the run directory, resolved */
  runDir: string;
  scenarios: LoadedScenario[];
  /** the folder the scenarios were loaded from, for messages */
  scenariosDir?: string;
  /** the judge models (the caller closes them); no default model: llm judges abstain */
  judgePool: JudgePool;
  /** re-judge only assertions that call a model (llm, and juries/cascades holding one) */
  onlyLlm: boolean;
  /** once aborted, the cells not judged yet are kept as the run judged them */
  signal?: AbortSignal;
}

interface RejudgeNote {
  rejudged: boolean;
  why?: string;
  previous_outcome?: string;
}

/**
 * Judge a saved run's cells again from their evidence: each cell's evidence.db is reopened
 * read-only, the scenario's assertions that applied to the cell are judged again (all, or only
 * the ones that call a model) and the cell's verdict is recomputed, by judgeCell, the live judge
 * stage, from the verdict and judge inputs the cell result kept. Nothing is replayed: recall
 * judges read the probes stored in the evidence (evidence from before they were kept makes them
 * `error`, with why); assertions that need the fixture keep their old judgment and say why; a
 * cell without evidence says why. A run that cannot be re-judged faithfully throws an InputError
 * before any cell is judged.
 */
export async function rejudgeCells(report: Report, o: RejudgeOptions): Promise<CellResult[]> {
  const byId = new Map(o.scenarios.map((s) => [s.scenario.id, s]));
  refuseUnfaithful(report, o.runDir, byId, o.scenariosDir);
  const results: CellResult[] = [];
  for (const old of report.results) results.push(await rejudgeCell(old, byId.get(old.scenario), o));
  return results;
}

/** One cell judged again, or kept as the run judged it with why. */
async function rejudgeCell(
  old: CellResult,
  scenario: LoadedScenario | undefined,
  o: RejudgeOptions,
): Promise<CellResult> {
  const cellDir = resolve(o.runDir, old.cell_dir);
  const keep = (why: string): CellResult => ({
    ...old,
    cell_dir: cellDir,
    rejudge: { rejudged: false, why } as RejudgeNote,
  });
  if (o.signal?.aborted) return keep('rejudge was interrupted before this cell');
  if (!scenario) return keep(`scenario ${old.scenario} is not among the loaded scenarios (pass --scenarios)`);
  const kept = whyKept(old);
  if (kept) return keep(kept);
  let evidence: Evidence;
  try {
    evidence = openEvidence(cellDir);
  } catch (e) {
    return keep(`its evidence cannot be opened: ${messageOf(e)}`);
  }
  try {
    // refuseUnfaithful has compared the bytes of what is there
    const gone = Object.keys(old.evidence_sha256!).filter((rel) => !existsSync(join(cellDir, rel)));
    if (gone.length)
      return keep(`its evidence is incomplete: ${gone.join(', ')} ${gone.length > 1 ? 'are' : 'is'} gone`);
    const { plan, notes } = assertionPlan(old, scenario, o.onlyLlm);
    const v = await judgeCell({
      assertions: plan,
      // refuseUnfaithful has checked these are there
      verdictInput: old.verdict_input as unknown as StoredVerdictInput,
      judgeInput: old.judge_input!,
      ctx: {
        evidence,
        judgeModel: o.judgePool.defaultModel,
        judgePool: o.judgePool,
        scenarioDir: resolve(scenario.file, '..'),
      },
      cellDir,
    });
    const redone = notes.filter((n) => n.rejudged).length;
    return {
      ...old,
      cell_dir: cellDir,
      verdict: v.verdict,
      reason: v.reason,
      fails_run: failsRun(v.verdict, Boolean(old.claimed)),
      assertions: v.judgments.map((j, i) => ({ ...j, rejudge: notes[i] })),
      rejudge: {
        rejudged: redone > 0,
        ...(redone ? {} : { why: 'no assertion of this cell could be judged again' }),
        previous_outcome: old.verdict,
      } as RejudgeNote,
    };
  } finally {
    evidence.close();
  }
}

/** Why a cell of a loaded scenario is kept as the run judged it, if it is. */
function whyKept(old: CellResult): string | undefined {
  if (!judged(old)) return `the cell ended ${old.verdict} before judging (${old.reason})`;
  // judging one attempt again would drop the others: a flaky cell would come back a plain pass
  if (old.attempts) return `a cell run ${old.attempts.length} times (--retries) keeps its verdict over all attempts`;
  return undefined;
}

/** Each of the cell's judgments: judged again, or kept (the scenario dropped it, --only llm, it needs the fixture). */
function assertionPlan(
  old: CellResult,
  scenario: LoadedScenario,
  onlyLlm: boolean,
): { plan: CellAssertion[]; notes: RejudgeNote[] } {
  const decls = new Map(scenario.scenario.assertions.map((a) => [a.name, a]));
  const plan: CellAssertion[] = [];
  const notes: RejudgeNote[] = [];
  for (const prev of old.assertions) {
    const a = decls.get(prev.name);
    const why = !a
      ? 'the scenario no longer declares this assertion'
      : onlyLlm && !needsModel(a)
        ? '--only llm: kept as judged'
        : whyNotRejudgeable(a, old.judge_input!.fixture_files);
    if (why || !a) {
      plan.push({ keep: prev });
      notes.push({ rejudged: false, why: why ?? undefined });
    } else {
      plan.push({ judge: a });
      notes.push({ rejudged: true, previous_outcome: prev.outcome });
    }
  }
  return { plan, notes };
}

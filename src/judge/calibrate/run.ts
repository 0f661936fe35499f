import type { JudgeModel } from '../llm/client.js';
import type { Grounding } from '../llm/grounding.js';
import { judgeLlm, type LlmAssertion, type LlmRecord } from '../llm/judge-llm.js';
import { assertionSchema } from '../../scenario/schema.js';
import type { CalibrationCase, CalibrationFile } from './cases.js';
import { flipRate, metrics, type Judged, type Label, type Metrics } from './metrics.js';

export interface CaseJudgment {
  case: string;
  group: string | null;
  check: string;
  repeat: number;
  expected: Label;
  judged: Judged;
  outcome: string;
  confidence: number | null;
  reasoning: string | null;
  detail: string;
  tokens: number;
  /** the full call records (prompt, raw answer, latency...) */
  llm: LlmRecord | null;
}

export interface CalibrationResult {
  title: string;
  cases_file: string;
  judge: JudgeModel['config'];
  repeat: number;
  started_at: string;
  ended_at: string;
  overall: Metrics;
  flip_rate: number | null;
  by_group: Record<string, Metrics>;
  by_check: Record<string, Metrics>;
  disagreements: Omit<CaseJudgment, 'llm'>[];
  tokens: { input: number; output: number };
  judgments: CaseJudgment[];
}

function asAssertion(c: CalibrationCase, file: CalibrationFile): LlmAssertion {
  return assertionSchema.parse({
    kind: 'llm',
    name: c.id,
    phase: 'both',
    check: c.check,
    subject: c.subject,
    ...(c.query ? { query: c.query } : {}),
    ...(c.fact ? { fact: c.fact } : {}),
    ...(c.criteria ? { criteria: c.criteria } : {}),
    ...(c.topics ? { topics: c.topics } : {}),
    min_relevant: c.min_relevant,
    min_confidence: file.min_confidence,
    level: 'fail',
    ...((c.scripted ?? file.scripted) ? { scripted: c.scripted ?? file.scripted } : {}),
  }) as LlmAssertion;
}

/** A case's recall results as the recall calls of a cell: one call each, none errored. */
function inlineGrounding(recalled: string[], prompts: string[]): Grounding {
  return {
    prompts,
    recalled: recalled.map((text, i) => ({ seq: i + 1, tool: 'recall', arguments: '', text, is_error: false })),
  };
}

function breakdown(js: CaseJudgment[], key: (j: CaseJudgment) => string | null): Record<string, Metrics> {
  const groups = new Map<string, CaseJudgment[]>();
  for (const j of js) {
    const k = key(j);
    if (k !== null) groups.set(k, [...(groups.get(k) ?? []), j]);
  }
  return Object.fromEntries([...groups].map(([k, v]) => [k, metrics(v)]));
}

/**
 * Put every labelled case through the judge `repeat` times and measure the agreement. Once
 * `signal` is aborted no further case is asked and the figures cover the judgments made.
 */
export async function runCalibration(
  file: CalibrationFile & { dir: string },
  casesFile: string,
  model: JudgeModel,
  repeat: number,
  onCase?: (j: CaseJudgment) => void,
  signal?: AbortSignal,
): Promise<CalibrationResult> {
  const started = new Date().toISOString();
  const judgments: CaseJudgment[] = [];
  for (const c of file.cases) {
    const a = asAssertion(c, file);
    const label =
      c.subject === 'recall'
        ? `recall results for "${c.query}"`
        : c.subject === 'answer'
          ? "the agent's final answer"
          : 'stored memories';
    for (let r = 0; r < repeat && !signal?.aborted; r++) {
      const j = await judgeLlm(a, {
        model,
        sources: {
          inline: { label, items: c.items },
          ...(c.recalled && c.prompts ? { grounding: inlineGrounding(c.recalled, c.prompts) } : {}),
        },
        scenarioDir: file.dir,
        repeat: r,
      });
      const rec = (j.llm as LlmRecord | undefined) ?? null;
      const cj: CaseJudgment = {
        case: c.id,
        group: c.group ?? null,
        check: c.check,
        repeat: r,
        expected: c.expected,
        judged: j.outcome === 'pass' || j.outcome === 'fail' ? j.outcome : 'undecided',
        outcome: j.outcome,
        confidence: rec?.confidence ?? null,
        reasoning: j.reasoning ?? null,
        detail: j.detail,
        tokens: rec ? rec.totals.input_tokens + rec.totals.output_tokens : 0,
        llm: rec,
      };
      judgments.push(cj);
      onCase?.(cj);
    }
  }
  const perCase = file.cases.map((c) => judgments.filter((j) => j.case === c.id).map((j) => j.judged));
  const inTokens = judgments.reduce((n, j) => n + (j.llm?.totals.input_tokens ?? 0), 0);
  const outTokens = judgments.reduce((n, j) => n + (j.llm?.totals.output_tokens ?? 0), 0);
  return {
    title: file.title,
    cases_file: casesFile,
    judge: model.config,
    repeat,
    started_at: started,
    ended_at: new Date().toISOString(),
    overall: metrics(judgments),
    flip_rate: flipRate(perCase),
    by_group: breakdown(judgments, (j) => j.group),
    by_check: breakdown(judgments, (j) => j.check),
    disagreements: judgments.filter((j) => j.judged !== j.expected).map(({ llm: _llm, ...rest }) => rest),
    tokens: { input: inTokens, output: outTokens },
    judgments,
  };
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

/** The console rendering: headline figures, confusion matrix, breakdowns, every disagreement. */
export function formatCalibration(r: CalibrationResult): string {
  const m = r.overall;
  const c = m.confusion;
  const lines = [
    `calibration: ${r.title}`,
    `judge: ${r.judge.model}${r.judge.scripted ? ' (memeval scripted judge)' : ''}; ${new Set(r.judgments.map((j) => j.case)).size} case(s) x ${r.repeat} repeat(s) = ${m.judgments} judgment(s); positive class = fail`,
    `accuracy ${pct(m.accuracy)}  precision ${pct(m.precision)}  recall ${pct(m.recall)}  specificity ${pct(m.specificity)}  kappa ${num(m.kappa)}  flip rate ${pct(r.flip_rate)}  undecided ${m.undecided}`,
    '',
    'confusion matrix (rows: labelled, columns: judged)',
    '              pass   fail   undecided',
    `  pass     ${String(c.pass.pass).padStart(6)} ${String(c.pass.fail).padStart(6)} ${String(c.pass.undecided).padStart(11)}`,
    `  fail     ${String(c.fail.pass).padStart(6)} ${String(c.fail.fail).padStart(6)} ${String(c.fail.undecided).padStart(11)}`,
    '',
    'by group:',
    ...Object.entries(r.by_group).map(
      ([g, x]) =>
        `  ${g.padEnd(14)} n=${String(x.judgments).padStart(3)}  accuracy ${pct(x.accuracy).padStart(6)}  precision ${pct(x.precision).padStart(6)}  recall ${pct(x.recall).padStart(6)}  kappa ${num(x.kappa)}`,
    ),
    '',
    `disagreements (${r.disagreements.length}):`,
    ...r.disagreements.map(
      (d) =>
        `  ${d.case}${r.repeat > 1 ? `#${d.repeat + 1}` : ''}: labelled ${d.expected}, judged ${d.judged}${d.outcome !== d.judged ? ` (${d.outcome})` : ''}: ${d.reasoning ?? d.detail}`,
    ),
    '',
    `tokens: ${r.tokens.input} in, ${r.tokens.output} out`,
  ];
  return lines.join('\n') + '\n';
}

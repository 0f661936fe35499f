import type { Assertion } from '../../scenario/schema.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import type { Score } from '../score.js';
import { askJudge, callTotals, type JudgeCallRecord } from './ask.js';
import type { JudgeModel } from './client.js';
import type { JudgeAnswer } from './parse.js';
import { GROUNDED_CHECKS } from '../../scenario/llm-schema.js';
import { groundingProblem, renderGrounding, type GroundingShown } from './grounding.js';
import { loadPromptTemplate, renderPrompt } from './prompts.js';
import { answerText, loadSubject, SubjectUnavailable, type SubjectSources, type SubjectText } from './subject.js';
import { messageOf } from '../../util/errors.js';

export type LlmAssertion = Extract<Assertion, { kind: 'llm' }>;

/** What an llm judge needs beyond its assertion. */
export interface LlmJudgeEnv {
  /** null: no judge configured; every llm assertion abstains and says so */
  model: JudgeModel | null;
  sources: SubjectSources;
  /** where a scenario's prompt override paths are relative to */
  scenarioDir?: string;
  /** calibration repeats: passed to the scripted judge */
  repeat?: number;
  /**
   * the run's --judge-min-confidence: a judgment less sure than this is `error` (the run asked
   * for judgments at least this sure), whatever the assertion's own min_confidence
   */
  minConfidence?: number;
}

/** The per-judgment record that goes into the report. */
export interface LlmRecord {
  check: LlmAssertion['check'];
  subject: Omit<SubjectText, 'text'> | null;
  /** faithful, hallucination: how many prompts and recall calls the judge was shown, and what was cut */
  grounding?: GroundingShown;
  prompt_template: string | null;
  min_confidence: number;
  confidence: number | null;
  verdict: JudgeAnswer['verdict'] | null;
  calls: JudgeCallRecord[];
  totals: ReturnType<typeof callTotals>;
}

export const NO_JUDGE_DETAIL = 'no judge model configured (--judge-model or MEMEVAL_JUDGE_MODEL): not judged';

function scoreOf(a: LlmAssertion, ans: JudgeAnswer): { score: Score; outcome: 'pass' | 'fail' } | { problem: string } {
  const s = a.score;
  if (s.type === 'boolean') return { score: { type: 'boolean', value: ans.verdict === 'pass' }, outcome: ans.verdict };
  if (s.type === 'numeric') {
    if (ans.score === undefined) return { problem: 'the judge gave no numeric `score`' };
    if (ans.score < s.min || ans.score > s.max)
      return { problem: `the judge's score ${ans.score} is outside ${s.min}..${s.max}` };
    return {
      score: { type: 'numeric', value: ans.score, min: s.min, max: s.max, threshold: s.threshold },
      outcome: ans.score >= s.threshold ? 'pass' : 'fail',
    };
  }
  if (ans.category === undefined || !s.categories.includes(ans.category))
    return {
      problem: `the judge's category ${JSON.stringify(ans.category ?? null)} is not one of ${s.categories.join(', ')}`,
    };
  return {
    score: { type: 'categorical', value: ans.category, passing: s.passing },
    outcome: s.passing.includes(ans.category) ? 'pass' : 'fail',
  };
}

function scoreField(a: LlmAssertion): string {
  const s = a.score;
  if (s.type === 'numeric') return `, "score": <number from ${s.min} to ${s.max}>`;
  if (s.type === 'categorical') return `, "category": "<one of: ${s.categories.join(' | ')}>"`;
  return '';
}

function expectedText(a: LlmAssertion): string {
  const what =
    a.fact ?? a.criteria ?? (a.topics ? `topics: ${a.topics.join(', ')}` : a.query ? `query "${a.query}"` : '');
  return `${a.check}${what ? ` (${what})` : ''}`;
}

/**
 * Judge one `llm` assertion: gather the subject (truncated and recorded), render the check's
 * prompt, ask the model (retrying unreadable answers at most twice) and turn the answer into a
 * judgment. Below `min_confidence` the judgment abstains; an unreadable answer is an error.
 */
export async function judgeLlm(a: LlmAssertion, env: LlmJudgeEnv): Promise<Judgment> {
  const expected = expectedText(a);
  const base = (outcome: 'error' | 'abstain', actual: unknown, detail: string, rec: LlmRecord | null): Judgment => ({
    ...judgment(a, outcome, actual, expected, detail),
    level: a.level,
    ...(rec ? { llm: rec } : {}),
  });
  const grounded = GROUNDED_CHECKS.has(a.check);
  // checked before the model: with no answer or no recall there is nothing any judge could decide
  const problem = grounded ? groundingProblem(answerText(env.sources), env.sources.grounding) : null;
  if (problem) return base('error', null, `not judged: ${problem}`, null);
  const answerLength = answerText(env.sources)?.length ?? 0;
  if (grounded && answerLength > a.max_grounded_chars)
    return base(
      'error',
      null,
      `not judged: the answer has ${answerLength} characters, more than max_grounded_chars ${a.max_grounded_chars}: claims past a cut would go unjudged (raise max_grounded_chars)`,
      null,
    );
  if (!env.model) return base('abstain', null, NO_JUDGE_DETAIL, null);
  const rec: LlmRecord = {
    check: a.check,
    subject: null,
    prompt_template: null,
    min_confidence: a.min_confidence,
    confidence: null,
    verdict: null,
    calls: [],
    totals: callTotals([]),
  };
  let subject: SubjectText;
  try {
    // a grounded check sees the whole answer (its length was checked above), never max_chars of it
    subject = await loadSubject(grounded ? { ...a, max_chars: a.max_grounded_chars } : a, env.sources);
  } catch (e) {
    if (e instanceof SubjectUnavailable) return base('abstain', null, `not judged: ${e.message}`, rec);
    return base('error', null, `could not read the subject: ${messageOf(e)}`, rec);
  }
  const { text, ...shown } = subject;
  rec.subject = shown;
  const ground =
    grounded && env.sources.grounding && !('problem' in env.sources.grounding)
      ? renderGrounding(env.sources.grounding, a.max_grounded_chars)
      : null;
  if (ground) rec.grounding = ground.shown;
  const template = loadPromptTemplate(a.check, a.prompt, env.scenarioDir);
  rec.prompt_template = template.source;
  const prompt = renderPrompt(template, {
    subject: text,
    subject_label: subject.label,
    criteria: a.criteria ?? '',
    fact: a.fact ?? '',
    topics: (a.topics ?? []).map((t) => `- ${t}`).join('\n'),
    query: a.query ?? '',
    min_relevant_percent: String(Math.round(a.min_relevant * 100)),
    score_field: scoreField(a),
    recalled: ground?.recalled ?? '',
    prompts: ground?.prompts ?? '',
  });
  const asked = await askJudge(env.model, prompt, { scripted: a.scripted, repeat: env.repeat });
  rec.calls = asked.calls;
  rec.totals = callTotals(asked.calls);
  if (!asked.answer) return base('error', null, asked.problem ?? 'no answer', rec);
  const ans = asked.answer;
  rec.confidence = ans.confidence;
  rec.verdict = ans.verdict;
  const scored = scoreOf(a, ans);
  if ('problem' in scored) return { ...base('error', ans, scored.problem, rec), reasoning: ans.reasoning };
  const floor = env.minConfidence;
  const out =
    floor !== undefined && ans.confidence < floor
      ? base(
          'error',
          ans.verdict,
          `confidence ${ans.confidence} is below the run's --judge-min-confidence ${floor}: not accepted as a judgment (the judge leaned ${scored.outcome})`,
          rec,
        )
      : ans.confidence < a.min_confidence
        ? base(
            'abstain',
            ans.verdict,
            `confidence ${ans.confidence} is below min_confidence ${a.min_confidence}: not decided (the judge leaned ${scored.outcome})`,
            rec,
          )
        : {
            ...decided(a, scored.outcome === 'pass', {
              actual: ans.verdict,
              expected,
              detail: `${env.model.config.model} judged ${a.check} with confidence ${ans.confidence}`,
              observed: `${env.model.config.model}'s parsed answer (verdict ${ans.verdict}, confidence ${ans.confidence}) over ${subject.label}`,
            }),
            level: a.level,
            llm: rec,
          };
  return { ...out, score: scored.score, reasoning: ans.reasoning };
}

import type { CellResult, Judgment } from '../../core/results.js';
import type { JudgeModelConfig } from './config.js';
import { NO_JUDGE_DETAIL } from './judge-llm.js';

interface CallTotals {
  totals?: { calls: number; input_tokens: number; output_tokens: number; cost_usd: number | null };
}

export interface JudgeRunSummary {
  /** the judge model (never its key); null when none was configured */
  model: JudgeModelConfig | null;
  llm_judgments: number;
  by_outcome: Record<string, number>;
  /** llm assertions not judged because no judge model was configured, per scenario */
  abstained_without_judge: Record<string, number>;
  /**
   * judgments that did not happen although a judge was asked, per scenario: llm judges that
   * errored, llm judges that abstained (low confidence, or a subject that could not be shown),
   * and juries/cascades that reached no decision (no quorum); `warn`-level ones included
   */
  not_judged: Record<string, NotJudged>;
  /** rejudge: llm judgments kept from the earlier run because they could not be judged again */
  kept_from_earlier_run: number;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  /** null when any call's cost is unknown */
  cost_usd: number | null;
}

export interface NotJudged {
  errors: number;
  abstentions: number;
  no_quorum: number;
}

function flatten(js: Judgment[]): Judgment[] {
  return js.flatMap((j) => [j, ...flatten((j.members ?? []) as Judgment[])]);
}

/** What the run's llm judges did, for the report and the console. */
export function judgeRunSummary(
  results: CellResult[],
  model: JudgeModelConfig | null,
): { summary: JudgeRunSummary; warnings: string[] } {
  const s: JudgeRunSummary = {
    model,
    llm_judgments: 0,
    by_outcome: {},
    abstained_without_judge: {},
    not_judged: {},
    kept_from_earlier_run: 0,
    model_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
  };
  for (const r of results) {
    const missed = (k: keyof NotJudged) => {
      const n = (s.not_judged[r.scenario] ??= { errors: 0, abstentions: 0, no_quorum: 0 });
      n[k]++;
    };
    for (const j of flatten(r.assertions)) {
      if (
        (j.kind === 'jury' || j.kind === 'cascade') &&
        j.outcome === 'error' &&
        (j.rejudge as { rejudged?: boolean } | undefined)?.rejudged !== false
      )
        missed('no_quorum');
      if (j.kind !== 'llm') continue;
      s.llm_judgments++;
      if ((j.rejudge as { rejudged?: boolean } | undefined)?.rejudged === false) {
        s.kept_from_earlier_run++;
        continue;
      }
      s.by_outcome[j.outcome] = (s.by_outcome[j.outcome] ?? 0) + 1;
      if (j.outcome === 'abstain' && j.detail === NO_JUDGE_DETAIL)
        s.abstained_without_judge[r.scenario] = (s.abstained_without_judge[r.scenario] ?? 0) + 1;
      else if (j.outcome === 'abstain') missed('abstentions');
      else if (j.outcome === 'error') missed('errors');
      const t = (j.llm as CallTotals | undefined)?.totals;
      if (t) {
        s.model_calls += t.calls;
        s.input_tokens += t.input_tokens;
        s.output_tokens += t.output_tokens;
        s.cost_usd = s.cost_usd === null || t.cost_usd === null ? null : s.cost_usd + t.cost_usd;
      }
    }
  }
  const abstained = Object.entries(s.abstained_without_judge);
  const warnings = abstained.length
    ? [
        `no judge model configured: ${abstained.reduce((n, [, c]) => n + c, 0)} llm assertion(s) abstained, not judged ` +
          `(${abstained.map(([id, c]) => `${id}: ${c}`).join(', ')}); use --judge-model scripted or a model id`,
      ]
    : [];
  const missed = Object.entries(s.not_judged);
  if (missed.length) {
    const total = missed.reduce((n, [, c]) => n + c.errors + c.abstentions + c.no_quorum, 0);
    warnings.push(
      `judging did not happen for ${total} judgment(s) (` +
        missed
          .map(
            ([id, c]) =>
              `${id}: ${c.errors} judge error(s), ${c.abstentions} abstention(s), ${c.no_quorum} jury/cascade without quorum`,
          )
          .join('; ') +
        '); see report.judges.not_judged',
    );
  }
  return { summary: s, warnings };
}

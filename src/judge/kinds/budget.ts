import type { Assertion } from '../../scenario/schema.js';
import type { JudgeContext } from '../context.js';
import { decided, judgment, type Judgment } from '../judgment.js';

type BudgetAssertion = Extract<Assertion, { kind: 'budget' }>;

interface UsageRow {
  session: number;
  prompt: number;
  value: number | null;
  finish_reason: string;
  usage_estimated: number;
}

const COLUMN: Record<BudgetAssertion['metric'], string> = {
  input_tokens: 'input_tokens',
  output_tokens: 'output_tokens',
  total_tokens: 'input_tokens + output_tokens',
  cost_usd: 'cost_usd',
  turns: 'turns',
  tool_calls: 'tool_calls',
  memory_calls: 'memory_calls',
  ms: 'ms',
};

/**
 * The agent's spend against a limit, per prompt or over the cell, from `agent_usage`. Usage
 * that was not recorded judges nothing: a cell without an agent (no table), a cell whose agent
 * ran no prompt, or a prompt whose agent reported no figure for the metric is `error`, never a
 * pass under the limit. Token counts the scripted model estimated are judged and said so.
 */
export function judgeBudget(a: BudgetAssertion, ctx: JudgeContext): Judgment {
  const expected = `${a.metric} <= ${a.max} per ${a.per}${a.finish_reasons ? `, finish in ${a.finish_reasons.join('|')}` : ''}`;
  const err = (why: string) => judgment(a, 'error', null, expected, why);
  const db = ctx.evidence.db;
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_usage'").get();
  if (!has)
    return err('no agent usage in this cell\'s evidence (a deterministic cell has no agent; use phase "real-model")');
  const rows = db
    .prepare(
      `SELECT session, prompt, ${COLUMN[a.metric]} AS value, finish_reason, usage_estimated FROM agent_usage ORDER BY session, prompt`,
    )
    .all() as UsageRow[];
  if (!rows.length) return err('the agent ran no prompt: there is no usage to judge');
  const missing = rows.filter((r) => r.value === null);
  if (missing.length)
    return err(
      `the agent reported no ${a.metric} for ${missing.map((r) => `s${r.session}p${r.prompt}`).join(', ')}: a budget on it cannot be checked`,
    );
  const estimated = rows.some((r) => r.usage_estimated) ? ' (token counts estimated by the scripted model)' : '';
  const failed: string[] = [];
  let actual: unknown;
  if (a.per === 'cell') {
    const total = rows.reduce((n, r) => n + (r.value as number), 0);
    actual = total;
    if (total > a.max) failed.push(`${a.metric} ${total} over the cell > ${a.max}`);
  } else {
    actual = Object.fromEntries(rows.map((r) => [`s${r.session}p${r.prompt}`, r.value]));
    for (const r of rows)
      if ((r.value as number) > a.max) failed.push(`s${r.session}p${r.prompt}: ${a.metric} ${r.value} > ${a.max}`);
  }
  if (a.finish_reasons)
    for (const r of rows)
      if (!a.finish_reasons.includes(r.finish_reason))
        failed.push(`s${r.session}p${r.prompt} finished "${r.finish_reason}"`);
  return decided(a, !failed.length, {
    actual,
    expected,
    detail: (failed.length ? failed.join('; ') : `${rows.length} prompt(s) within budget`) + estimated,
    observed: `${a.metric} reported for ${rows.length} prompt(s) in agent_usage${estimated}`,
  });
}

import type Database from 'better-sqlite3';
import type { AnswerContext } from '../../core/results.js';

/** One recall call the agent made in the conversation that ended with its answer, as the recording point saw it. */
export interface RecalledCall {
  /** the evidence `calls` row */
  seq: number;
  tool: string;
  /** the call's arguments as JSON */
  arguments: string;
  text: string;
  is_error: boolean;
}

/** What an answer may be grounded in: the prompts of its conversation and what was recalled during it. */
export interface Grounding {
  prompts: string[];
  recalled: RecalledCall[];
  /** the calls rows searched (absent for inline calibration cases) */
  span?: { first: number; last: number };
}

/**
 * The recall calls of the answer's conversation, from the evidence `calls` table: the agent's own
 * `tools/call`s whose op is `recall` (the declaration's recall tools), in the order made.
 */
export function readGrounding(db: Database.Database, ctx: AnswerContext): Grounding {
  const rows = db
    .prepare(
      `SELECT seq, tool, arguments, result_text, is_error FROM calls
       WHERE seq BETWEEN ? AND ? AND stage = 'agent' AND coalesce(method, 'tools/call') = 'tools/call' AND op = 'recall'
       ORDER BY seq`,
    )
    .all(ctx.first_seq, ctx.last_seq) as {
    seq: number;
    tool: string;
    arguments: string | null;
    result_text: string | null;
    is_error: number;
  }[];
  return {
    prompts: ctx.prompts,
    recalled: rows.map((r) => ({
      seq: r.seq,
      tool: r.tool,
      arguments: r.arguments ?? '',
      text: r.result_text ?? '',
      is_error: r.is_error === 1,
    })),
    span: { first: ctx.first_seq, last: ctx.last_seq },
  };
}

/**
 * Why a grounded check cannot judge this answer, or null. It fails closed: with no answer, no
 * record of what was recalled, no recall at all, or a recall that errored, "every claim is
 * supported" cannot be decided, so the check is `error`, never a pass over nothing.
 */
export function groundingProblem(
  answer: string | undefined,
  g: Grounding | { problem: string } | undefined,
): string | null {
  if (answer === undefined)
    return "no agent final answer in this cell: a grounded check judges a real-model cell's answer";
  if (!answer.trim()) return "the agent's final answer is empty: there is no claim to judge";
  if (!g)
    return 'no record of what the agent recalled for this answer (no agent turn with its calls span; a report written by an earlier memeval lacks it)';
  if ('problem' in g) return `what the agent recalled could not be read: ${g.problem}`;
  if (!g.recalled.length)
    return `the agent made no recall call in the conversation that ended with its answer${g.span ? ` (calls ${g.span.first}..${g.span.last})` : ''}: there is nothing to ground the answer in`;
  const bad = g.recalled.find((r) => r.is_error);
  if (bad)
    return `recall call ${bad.seq} (${bad.tool}) errored (${JSON.stringify(bad.text.slice(0, 200))}): what the agent recalled is not known`;
  return null;
}

/** How much of the grounding the judge was shown. */
export interface GroundingShown {
  prompts: number;
  recall_calls: number;
  /** recalled results shortened to max_grounded_chars */
  recalled_cut: number;
  max_grounded_chars: number;
  span: { first: number; last: number } | null;
}

/** The prompt's `recalled` and `prompts` texts: every recall call (cut predictably and marked) and every prompt. */
export function renderGrounding(
  g: Grounding,
  maxChars: number,
): { recalled: string; prompts: string; shown: GroundingShown } {
  let cut = 0;
  const recalled = g.recalled
    .map((r, i) => {
      const text = r.text.length > maxChars ? (cut++, r.text.slice(0, maxChars) + ' […cut]') : r.text;
      return `${i + 1}. ${r.tool} ${r.arguments}\n${text.trim() ? text : '(no results)'}`;
    })
    .join('\n\n');
  return {
    recalled,
    prompts: g.prompts.map((p, i) => `${i + 1}. ${p}`).join('\n') || '(none)',
    shown: {
      prompts: g.prompts.length,
      recall_calls: g.recalled.length,
      recalled_cut: cut,
      max_grounded_chars: maxChars,
      span: g.span ?? null,
    },
  };
}

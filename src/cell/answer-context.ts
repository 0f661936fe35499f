import type { AgentRunInfo, AnswerContext } from '../core/results.js';
import type { Scenario } from '../scenario/schema.js';

/**
 * Where an agent cell's final answer came from: the session whose last prompt produced it (one
 * conversation: the agent saw every prompt and every result of that session), its prompts up to
 * that one, and the span of calls log rows recorded while they ran. Undefined when the cell has
 * no turn, or a turn without its calls span: grounded checks then fail closed.
 */
export function answerContext(scenario: Scenario, agent: AgentRunInfo | undefined): AnswerContext | undefined {
  const turns = agent?.turns ?? [];
  const last = turns[turns.length - 1];
  if (!last) return undefined;
  const session = turns.filter((t) => t.session === last.session);
  const spans = session.flatMap((t) => (t.calls_seq ? [t.calls_seq] : []));
  if (spans.length !== session.length) return undefined;
  const prompts = scenario.real_model?.sessions[last.session - 1]?.prompts.slice(0, last.prompt) ?? [];
  return {
    session: last.session,
    prompts,
    first_seq: Math.min(...spans.map((s) => s.first)),
    last_seq: Math.max(...spans.map((s) => s.last)),
  };
}

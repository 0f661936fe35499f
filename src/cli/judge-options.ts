import type { Command } from 'commander';
import type { JudgeRequest } from '../app/judge-config.js';

/** What the judge options parse into: the app's judge request, as commander names the flags. */
export type JudgeOptionFlags = JudgeRequest;

/** The judge-model options shared by run, rejudge and judge calibrate. */
export function addJudgeOptions(cmd: Command, withCostFlag = true): Command {
  cmd
    .option(
      '--judge-model <id>',
      'model that judges llm assertions: "scripted" (free, deterministic) or a model id (env MEMEVAL_JUDGE_MODEL)',
    )
    .option(
      '--judge-base-url <url>',
      'OpenAI-compatible or Anthropic endpoint for the judge (env MEMEVAL_JUDGE_BASE_URL; key from MEMEVAL_JUDGE_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY)',
    )
    .option(
      '--judge-protocol <p>',
      'openai-chat or anthropic-messages (default: guessed from the model and URL; env MEMEVAL_JUDGE_PROTOCOL)',
    );
  if (withCostFlag)
    cmd.option('--i-understand-model-cost', 'allow judge calls to a model endpoint off this machine (they cost money)');
  return cmd;
}

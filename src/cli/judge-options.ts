import type { Command } from 'commander';
import { InputError } from '../util/errors.js';
import { judgeCostGate, resolveJudgeConfig, type JudgeGate, type JudgeModelConfig } from '../judge/llm/config.js';

export interface JudgeOptionFlags {
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeProtocol?: string;
  iUnderstandModelCost?: boolean;
}

/** The judge-model options shared by run, rejudge and judge calibrate. */
export function addJudgeOptions(cmd: Command, withCostFlag = true): Command {
  cmd
    .option('--judge-model <id>', 'model that judges llm assertions: "scripted" (free, deterministic) or a model id (env MEMEVAL_JUDGE_MODEL)')
    .option('--judge-base-url <url>', 'OpenAI-compatible or Anthropic endpoint for the judge (env MEMEVAL_JUDGE_BASE_URL; key from MEMEVAL_JUDGE_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY)')
    .option('--judge-protocol <p>', 'openai-chat or anthropic-messages (default: guessed from the model and URL; env MEMEVAL_JUDGE_PROTOCOL)');
  if (withCostFlag) cmd.option('--i-understand-model-cost', 'allow judge calls to a model endpoint off this machine (they cost money)');
  return cmd;
}

/** The judge config (or null) and whether the cost gate lets it run; bad flags are input errors. */
export function judgeFromFlags(f: JudgeOptionFlags): { config: JudgeModelConfig | null; gate: JudgeGate } {
  let config: JudgeModelConfig | null;
  try {
    config = resolveJudgeConfig(f);
  } catch (e) {
    throw new InputError(`--judge-protocol: ${(e as Error).message}`);
  }
  if (config?.base_url) {
    try {
      new URL(config.base_url);
    } catch {
      throw new InputError(`--judge-base-url: "${config.base_url}" is not a URL (e.g. http://127.0.0.1:11434/v1)`);
    }
  }
  return { config, gate: judgeCostGate(config, Boolean(f.iUnderstandModelCost)) };
}

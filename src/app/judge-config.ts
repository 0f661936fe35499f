import {
  judgeCostGate,
  resolveJudgeConfig,
  type JudgeFlags,
  type JudgeGate,
  type JudgeModelConfig,
} from '../judge/llm/config.js';
import { InputError, messageOf } from '../util/errors.js';

export interface JudgeRequest extends JudgeFlags {
  /** allow judge calls to a model endpoint off this machine (they cost money) */
  iUnderstandModelCost?: boolean;
}

/** The judge config (or null) and whether the cost gate lets it run; a bad protocol or URL is invalid input. */
export function resolveJudge(f: JudgeRequest): { config: JudgeModelConfig | null; gate: JudgeGate } {
  let config: JudgeModelConfig | null;
  try {
    config = resolveJudgeConfig(f);
  } catch (e) {
    throw new InputError(`--judge-protocol: ${messageOf(e)}`);
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

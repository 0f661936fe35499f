/**
 * Which model judges `llm` assertions, from flags first and then the environment. API keys are
 * read from the environment at call time only; they are never part of a config that is logged,
 * reported or written.
 */
export const SCRIPTED_JUDGE = 'scripted';

export const JUDGE_PROTOCOLS = ['openai-chat', 'anthropic-messages'] as const;
export type JudgeProtocol = (typeof JUDGE_PROTOCOLS)[number];

export interface JudgeModelConfig {
  model: string;
  /** null: the provider's official endpoint */
  base_url: string | null;
  protocol: JudgeProtocol;
  /** memeval's scripted model answers: free, deterministic */
  scripted: boolean;
  /** the endpoint is on this machine: free as far as memeval can tell */
  loopback: boolean;
}

export interface JudgeFlags {
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeProtocol?: string;
}

const OFFICIAL: Record<JudgeProtocol, string> = {
  'openai-chat': 'https://api.openai.com/v1',
  'anthropic-messages': 'https://api.anthropic.com',
};

export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  host = host.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function guessProtocol(model: string, baseUrl: string | null): JudgeProtocol {
  if (baseUrl && /anthropic/i.test(baseUrl)) return 'anthropic-messages';
  if (!baseUrl && /^claude/i.test(model)) return 'anthropic-messages';
  return 'openai-chat';
}

/** The judge model, or null when none is configured (then `llm` assertions abstain). */
export function resolveJudgeConfig(flags: JudgeFlags, env: NodeJS.ProcessEnv = process.env): JudgeModelConfig | null {
  const model = flags.judgeModel ?? env.MEMEVAL_JUDGE_MODEL;
  if (!model) return null;
  if (model === SCRIPTED_JUDGE)
    return { model, base_url: null, protocol: 'openai-chat', scripted: true, loopback: true };
  const base = flags.judgeBaseUrl ?? env.MEMEVAL_JUDGE_BASE_URL ?? null;
  const declared = flags.judgeProtocol ?? env.MEMEVAL_JUDGE_PROTOCOL;
  if (declared !== undefined && !(JUDGE_PROTOCOLS as readonly string[]).includes(declared))
    throw new Error(`judge protocol "${declared}" is not one of ${JUDGE_PROTOCOLS.join(', ')}`);
  const protocol = (declared as JudgeProtocol | undefined) ?? guessProtocol(model, base);
  return { model, base_url: base, protocol, scripted: false, loopback: isLoopbackUrl(base ?? OFFICIAL[protocol]) };
}

export function endpointOf(c: JudgeModelConfig): string {
  return c.base_url ?? OFFICIAL[c.protocol];
}

/** The key for this protocol, from the environment only. Loopback servers usually need none. */
export function apiKeyFor(c: JudgeModelConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return (
    env.MEMEVAL_JUDGE_API_KEY ?? (c.protocol === 'anthropic-messages' ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY)
  );
}

export type JudgeGate = { allowed: true; free: boolean } | { allowed: false; reason: string };

/**
 * A judge call to an endpoint off this machine costs money, like an agent turn: it needs
 * --i-understand-model-cost. The scripted judge and loopback endpoints are free.
 */
export function judgeCostGate(c: JudgeModelConfig | null, iUnderstandModelCost: boolean): JudgeGate {
  if (!c || c.scripted || c.loopback) return { allowed: true, free: true };
  if (iUnderstandModelCost) return { allowed: true, free: false };
  return {
    allowed: false,
    reason:
      `the judge model ${c.model} at ${endpointOf(c)} is not on this machine and costs money: it needs --i-understand-model-cost ` +
      `(or use --judge-model scripted, or a loopback --judge-base-url such as an Ollama or llama.cpp server)`,
  };
}

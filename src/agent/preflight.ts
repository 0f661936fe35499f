import type { AgentName } from './types.js';
import { messageOf } from '../util/errors.js';

interface Probe {
  url: string;
  headers: Record<string, string>;
}

const trim = (u: string) => u.replace(/\/+$/, '');

/**
 * The free "list models" request of the API each agent speaks, with the key it would use.
 * undefined when the endpoint is not known before the agent starts (opencode's own providers).
 */
function probeFor(agent: AgentName, baseUrl: string | undefined, env: NodeJS.ProcessEnv): Probe | undefined {
  switch (agent) {
    case 'claude-code': {
      const auth: Record<string, string> = env.ANTHROPIC_AUTH_TOKEN
        ? { authorization: `Bearer ${env.ANTHROPIC_AUTH_TOKEN}` }
        : { 'x-api-key': env.ANTHROPIC_API_KEY ?? '' };
      return {
        url: `${trim(baseUrl ?? 'https://api.anthropic.com')}/v1/models`,
        headers: { ...auth, 'anthropic-version': '2023-06-01' },
      };
    }
    case 'codex':
    case 'qwen':
      return {
        url: `${baseUrl ? `${trim(baseUrl)}/v1` : 'https://api.openai.com/v1'}/models`,
        headers: { authorization: `Bearer ${env.OPENAI_API_KEY ?? ''}` },
      };
    case 'opencode':
      return baseUrl
        ? { url: `${trim(baseUrl)}/v1/models`, headers: { authorization: `Bearer ${env.OPENAI_API_KEY ?? ''}` } }
        : undefined;
    case 'gemini':
      return {
        url: `${trim(baseUrl ?? 'https://generativelanguage.googleapis.com')}/v1beta/models`,
        headers: { 'x-goog-api-key': env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY ?? '' },
      };
  }
}

/**
 * Before a real model's first prompt: is the endpoint there, and does it take the key? Agents
 * retry both failures for minutes (Claude Code about 10 times on a 401; Gemini CLI until the
 * prompt timeout on a dead URL), so memeval asks once, for free, and ends the cell as invalid
 * at once. Any answer but 401/403 counts as reachable (not every endpoint lists models).
 * Returns the reason the cell cannot run, or undefined.
 */
export async function preflight(
  agent: AgentName,
  baseUrl: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 10_000,
): Promise<string | undefined> {
  const probe = probeFor(agent, baseUrl, env);
  if (!probe) return undefined;
  let res: Response;
  try {
    res = await fetch(probe.url, { headers: probe.headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why =
      (e as Error).name === 'TimeoutError'
        ? `no answer in ${timeoutMs} ms`
        : (cause?.code ?? cause?.message ?? messageOf(e));
    return `the model endpoint ${new URL(probe.url).origin} is unreachable (${why}); check --base-url`;
  }
  await res.body?.cancel().catch(() => {});
  if (res.status === 401 || res.status === 403)
    return `the model endpoint ${new URL(probe.url).origin} refused the API key (HTTP ${res.status}); check the key in the agent's environment variable`;
  return undefined;
}

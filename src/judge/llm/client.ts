import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ScriptedModelServer } from '../../model/server.js';
import { apiKeyFor, endpointOf, type JudgeModelConfig } from './config.js';

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface ModelReply {
  text: string;
  /** the model id the endpoint says answered */
  model: string;
  input_tokens: number | null;
  output_tokens: number | null;
  /** null where the protocol has no temperature setting (Anthropic Messages in SDK 1.x) */
  temperature: number | null;
}

/** One judge model behind the official SDK for its protocol. */
export interface JudgeModel {
  readonly config: JudgeModelConfig;
  complete(turns: ChatTurn[], headers?: Record<string, string>): Promise<ModelReply>;
  close(): Promise<void>;
}

const MAX_TOKENS = 1024;
const TIMEOUT_MS = 120_000;

/** How the SDK clients retry; the defaults are what a run uses (a test of a dead endpoint turns retries off). */
export interface JudgeClientOptions {
  /** retries of a failed request (connection error, 429, 5xx) the SDK makes before giving up; default 2 */
  maxRetries?: number;
}

function openaiModel(
  config: JudgeModelConfig,
  baseURL: string,
  apiKey: string,
  onClose: () => Promise<void>,
  o: JudgeClientOptions,
): JudgeModel {
  const client = new OpenAI({ apiKey, baseURL, timeout: TIMEOUT_MS, maxRetries: o.maxRetries ?? 2 });
  return {
    config,
    async complete(turns, headers) {
      const r = await client.chat.completions.create(
        { model: config.model, messages: turns, temperature: 0, max_tokens: MAX_TOKENS },
        { headers },
      );
      return {
        text: r.choices[0]?.message?.content ?? '',
        model: r.model || config.model,
        input_tokens: r.usage?.prompt_tokens ?? null,
        output_tokens: r.usage?.completion_tokens ?? null,
        temperature: 0,
      };
    },
    close: onClose,
  };
}

function anthropicModel(config: JudgeModelConfig, baseURL: string, apiKey: string, o: JudgeClientOptions): JudgeModel {
  const client = new Anthropic({ apiKey, baseURL, timeout: TIMEOUT_MS, maxRetries: o.maxRetries ?? 2 });
  return {
    config,
    async complete(turns, headers) {
      // the 1.x Messages API has dropped `temperature`; the model's default sampling applies
      const r = await client.messages.create(
        { model: config.model, max_tokens: MAX_TOKENS, messages: turns },
        { headers },
      );
      const text = r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      return {
        text,
        model: r.model || config.model,
        input_tokens: r.usage?.input_tokens ?? null,
        output_tokens: r.usage?.output_tokens ?? null,
        temperature: null,
      };
    },
    close: async () => {},
  };
}

/**
 * Open the configured judge model. The scripted judge starts memeval's own loopback model
 * server and talks to it through the OpenAI SDK, so its answers cross real HTTP and the real
 * client like any model's would.
 */
export async function openJudgeModel(config: JudgeModelConfig, o: JudgeClientOptions = {}): Promise<JudgeModel> {
  if (config.scripted) {
    const server = new ScriptedModelServer();
    const url = await server.start();
    return openaiModel(config, `${url}/v1`, 'scripted-no-key', () => server.stop(), o);
  }
  // a loopback server (Ollama, llama.cpp) usually takes any key; the SDKs insist on one
  const key = apiKeyFor(config) ?? (config.loopback ? 'no-key' : undefined);
  if (!key)
    throw new Error(
      `no API key for the judge model ${config.model}: set MEMEVAL_JUDGE_API_KEY (or ${config.protocol === 'anthropic-messages' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'})`,
    );
  const base = endpointOf(config);
  return config.protocol === 'anthropic-messages'
    ? anthropicModel(config, base, key, o)
    : openaiModel(config, base, key, async () => {}, o);
}

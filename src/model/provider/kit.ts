import { ProviderServer } from './server.js';
import type { ProviderCall, ProviderConfig } from './types.js';

/** What another project's tests give the mock provider; everything is optional. */
export type MockProviderOptions = Partial<ProviderConfig>;

/** A provider config with the defaults: no declared similarities, no rules, "" as the answer, 384 dimensions. */
export function mockProviderConfig(o: MockProviderOptions = {}): ProviderConfig {
  return {
    similarity: o.similarity ?? [],
    rules: o.rules ?? [],
    default: o.default ?? '',
    dimensions: o.dimensions ?? 384,
  };
}

export interface MockProvider {
  /** base URL on loopback, no trailing slash: OpenAI clients take `${url}/v1`, Ollama and Anthropic clients `url` */
  url: string;
  /** every request so far, in order */
  calls: ProviderCall[];
  stop(): Promise<void>;
}

/**
 * memeval's deterministic model provider for another project's tests: embeddings whose cosines
 * are the declared ones (any other text: a stable pseudo-random vector), chat answers from
 * rules (first rule whose `contains` all occur wins), OpenAI, Anthropic and Ollama wire shapes
 * on one loopback port, every request recorded.
 */
export async function startMockProvider(o: MockProviderOptions = {}): Promise<MockProvider> {
  const server = new ProviderServer(mockProviderConfig(o));
  const url = await server.start();
  return { url, calls: server.calls, stop: () => server.stop() };
}

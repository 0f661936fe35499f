import { ProviderServer } from './server.js';
import type { FaultRule, ProviderCall, ProviderConfig } from './types.js';

/**
 * A fault rule as another project's test writes it: only `fault` is needed; the rest default as
 * a scenario's do (every request of any kind and any stage, from the first, each time, required).
 */
export type MockFaultRule = Partial<FaultRule> & Pick<FaultRule, 'fault'>;

/**
 * What another project's tests give the mock provider: every field of the provider's config,
 * each optional (fault rules as `MockFaultRule`). Derived from `ProviderConfig`, so a field the
 * provider gains is a field the kit takes.
 */
export type MockProviderOptions = Partial<Omit<ProviderConfig, 'faults'>> & { faults?: MockFaultRule[] };

/**
 * The defaults: no declared similarities, no rules, no faults, "" as the answer, 384 dimensions.
 * Typed over every key of the config, so a new field without a default does not compile.
 */
const DEFAULTS: { [K in keyof Required<ProviderConfig>]: ProviderConfig[K] } = {
  similarity: [],
  rules: [],
  faults: [],
  default: '',
  dimensions: 384,
};

/** A kit fault rule with its defaults filled. */
function faultRule(r: MockFaultRule, i: number): FaultRule {
  return {
    name: `fault ${i}`,
    on: 'any',
    contains: [],
    skip: 0,
    retryAfter: 1,
    optional: false,
    ...defined(r),
    fault: r.fault,
  };
}

/** The fields of `o` that are not undefined: an explicit `undefined` does not wipe a default. */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The provider config for these options: every field passed through, the defaults under them. */
export function mockProviderConfig(o: MockProviderOptions = {}): ProviderConfig {
  const { faults, ...rest } = o;
  return { ...DEFAULTS, ...defined(rest), faults: (faults ?? []).map(faultRule) };
}

export interface MockProvider {
  /** base URL on loopback, no trailing slash: OpenAI clients take `${url}/v1`, Ollama and Anthropic clients `url` */
  url: string;
  /** every request so far, in order (`fault` and `fault_rule` say which were served a fault) */
  calls: ProviderCall[];
  /** the names of the required fault rules no request was served so far */
  unservedFaults(): string[];
  /**
   * Stop listening. Rejects (after stopping) when a required fault rule was never served: the
   * code under test never met that fault, so a test of how it handles it tested nothing. Mark a
   * rule `optional: true` when it need not be met.
   */
  stop(): Promise<void>;
}

/** The error `MockProvider.stop()` rejects with when required faults were never served. */
export class UnservedFaultsError extends Error {
  constructor(readonly faults: string[]) {
    super(
      `memeval mock provider: fault rule(s) never served: ${faults.join(', ')}; the code under test sent no request they match, so how it handles the fault was not tested (mark a rule optional: true if it need not be met)`,
    );
    this.name = 'UnservedFaultsError';
  }
}

/**
 * memeval's deterministic model provider for another project's tests: embeddings whose cosines
 * are the declared ones (any other text: a stable pseudo-random vector), chat answers from
 * rules (first rule whose `contains` all occur wins), faults served instead of answers (error
 * statuses, timeouts, bad bodies, bad vectors), OpenAI, Anthropic and Ollama wire shapes on one
 * loopback port, every request recorded.
 */
export async function startMockProvider(o: MockProviderOptions = {}): Promise<MockProvider> {
  const server = new ProviderServer(mockProviderConfig(o));
  const url = await server.start();
  return {
    url,
    calls: server.calls,
    unservedFaults: () => server.unservedFaults(),
    stop: async () => {
      await server.stop();
      const missing = server.unservedFaults();
      if (missing.length) throw new UnservedFaultsError(missing);
    },
  };
}

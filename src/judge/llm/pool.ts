import type { Assertion } from '../../scenario/schema.js';
import { withMembers } from '../../scenario/kinds.js';
import { openJudgeModel, type JudgeClientOptions, type JudgeModel } from './client.js';
import { judgeCostGate, resolveJudgeConfig, type JudgeGate, type JudgeModelConfig } from './config.js';

type Llm = Extract<Assertion, { kind: 'llm' }>;

/** The config an llm assertion's own `model` names; its endpoint comes only from the assertion. */
export function assertionJudgeConfig(a: Llm): JudgeModelConfig | null {
  return a.model ? resolveJudgeConfig({ judgeModel: a.model, judgeBaseUrl: a.base_url }, {}) : null;
}

/** Every model the assertions name on their own (e.g. the jurors of a jury), for the cost gate. */
export function assertionJudgeConfigs(assertions: Assertion[]): JudgeModelConfig[] {
  return withMembers(assertions).flatMap((a) => (a.kind === 'llm' && a.model ? [assertionJudgeConfig(a)!] : []));
}

/** A strict run's judge settings (--judge-level, --judge-min-confidence); empty: each assertion's own. */
export interface JudgeStrictness {
  /** "fail": every llm check (and jury or cascade with an llm judge) at level warn decides as if at fail */
  level?: 'fail';
  /** a judgment less sure than this is `error`, whatever the assertion's min_confidence */
  minConfidence?: number;
}

/** The run's judge models: the default one and each model an assertion names, opened once; the run's strictness. */
export class JudgePool {
  private readonly opened = new Map<string, Promise<JudgeModel>>();
  constructor(
    readonly defaultModel: JudgeModel | null,
    readonly strict: JudgeStrictness = {},
    /** how the models assertions name are opened (the default one is opened by the caller) */
    readonly clientOptions: JudgeClientOptions = {},
  ) {}

  /** The model for this assertion; null when the run has no judge (then every llm judge abstains). */
  async modelFor(a: Llm): Promise<JudgeModel | null> {
    if (!this.defaultModel) return null;
    const cfg = assertionJudgeConfig(a);
    if (!cfg) return this.defaultModel;
    const key = `${cfg.protocol} ${cfg.base_url ?? ''} ${cfg.model}`;
    let m = this.opened.get(key);
    if (!m) this.opened.set(key, (m = openJudgeModel(cfg, this.clientOptions)));
    return m;
  }

  /** Close the models assertions named (the default one stays open). */
  async closeOpened(): Promise<void> {
    for (const m of this.opened.values())
      await m.then(
        (x) => x.close(),
        () => {},
      );
    this.opened.clear();
  }

  async close(): Promise<void> {
    await this.closeOpened();
    await this.defaultModel?.close();
  }
}

/** The cost gate over the default judge and every model an assertion names: blocked if any is. */
export function judgeGateAll(
  defaultConfig: JudgeModelConfig | null,
  assertions: Assertion[],
  iUnderstandModelCost: boolean,
): JudgeGate {
  if (!defaultConfig) return { allowed: true, free: true };
  let free = true;
  for (const c of [defaultConfig, ...assertionJudgeConfigs(assertions)]) {
    const g = judgeCostGate(c, iUnderstandModelCost);
    if (!g.allowed) return g;
    free &&= g.free;
  }
  return { allowed: true, free };
}

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { flatSteps, type DeterministicPhase, type Phase, type Scenario } from '../../scenario/schema.js';
import type { TargetDecl } from '../../targets/schema.js';
import { reads } from '../../scenario/kinds.js';
import { ProviderServer } from './server.js';
import { faultName } from '../../scenario/fault-checks.js';
import type { AnswerRule, FaultRule, ProviderCall, ProviderConfig, ProviderStage } from './types.js';

const PLACEHOLDER = /\{\{\s*provider\s*\}\}/;

/** Does the declaration point its server at memeval's model provider ({{provider}} anywhere it is filled)? */
export function usesProvider(decl: TargetDecl): boolean {
  const texts = [
    ...Object.values(decl.server.env),
    ...decl.server.args,
    decl.server.command ?? '',
    ...decl.fixture.files.flatMap((f) => [f.path, f.content]),
  ];
  return texts.some((t) => PLACEHOLDER.test(t));
}

/** Does the scenario script the provider (declared similarities or LLM answers)? */
export function needsProvider(scenario: Scenario): boolean {
  return (
    scenario.setup.similarity.length > 0 ||
    scenario.provider !== undefined ||
    scenario.assertions.some((a) => reads(a, 'provider-calls'))
  );
}

/**
 * A scenario that scripts the provider says nothing about a target that never asks one: it is
 * `unsupported` there (the reason is returned), like a scenario needing an op the target lacks.
 */
export function providerUnsupported(scenario: Scenario, decl: TargetDecl): string | undefined {
  return needsProvider(scenario) && !usesProvider(decl)
    ? 'the scenario scripts or reads the model provider (setup.similarity, provider, provider_calls) and this target uses none'
    : undefined;
}

/** Texts the scenario names by ref: setup memories and remember steps with a ref. */
export function refTexts(scenario: Scenario): Map<string, string> {
  const m = new Map<string, string>();
  for (const s of scenario.setup.memories) m.set(s.ref, s.content);
  for (const s of flatSteps([
    ...scenario.deterministic.well_behaved,
    ...(scenario.deterministic.violation?.steps ?? []),
  ]))
    if (s.op === 'remember' && s.ref && !m.has(s.ref)) m.set(s.ref, s.content);
  return m;
}

/** `$ref:name` → that memory's content; anything else as written. Unknown refs are load errors (see checkWiring). */
export function derefText(text: string, refs: Map<string, string>): string {
  const m = /^\$ref:([A-Za-z][A-Za-z0-9_-]*)$/.exec(text);
  if (!m) return text;
  const t = refs.get(m[1]!);
  if (t === undefined) throw new Error(`unknown ref "${text}"`);
  return t;
}

/** The provider's configuration for one cell: the scenario's similarities and rules (for this phase), then the target's. */
export function providerConfig(scenario: Scenario, decl: TargetDecl, phase: Phase): ProviderConfig {
  const refs = refTexts(scenario);
  const list = (c: string | string[]) => (Array.isArray(c) ? c : [c]).map((x) => derefText(x, refs));
  const scen = scenario.provider;
  const rules: AnswerRule[] = [
    ...(scen?.rules ?? [])
      .filter((r) => r.phase === 'both' || r.phase === phase)
      .map((r, i) => ({
        name: r.name ?? `scenario rule ${i}`,
        contains: list(r.contains),
        capture: r.capture,
        hold: r.hold,
        answer: r.answer,
      })),
    ...decl.provider.rules.map((r, i) => ({
      name: r.name ?? `target rule ${i}`,
      contains: list(r.contains),
      capture: r.capture,
      answer: r.answer,
    })),
  ];
  return {
    faults: phaseFaults(scenario, phase),
    similarity: scenario.setup.similarity.map((s) => ({
      a: derefText(s.a, refs),
      b: derefText(s.b, refs),
      cosine: s.cosine,
    })),
    rules,
    default: scen?.default ?? decl.provider.default,
    dimensions: decl.provider.dimensions,
  };
}

/** The scenario's fault rules for this phase, refs resolved; names are those of the whole list (unique at load). */
export function phaseFaults(scenario: Scenario, phase: Phase): FaultRule[] {
  const refs = refTexts(scenario);
  return (scenario.provider?.faults ?? []).flatMap((f, i) =>
    f.phase === 'both' || f.phase === phase
      ? [
          {
            name: faultName(f, i),
            on: f.on,
            contains: (f.contains === undefined ? [] : Array.isArray(f.contains) ? f.contains : [f.contains]).map((c) =>
              derefText(c, refs),
            ),
            skip: f.skip,
            times: f.times,
            fault: f.fault,
            retryAfter: f.retry_after ?? 1,
            dimensions: f.dimensions,
            optional: f.optional,
            stage: f.stage,
          },
        ]
      : [],
  );
}

export interface ProviderHandle {
  /** template variables for the target declaration: {{provider}} is the base URL (no /v1) */
  vars: { provider: string };
  /** the fault rules this cell's provider serves */
  faults: FaultRule[];
  /** every request so far */
  calls(): ProviderCall[];
  /** the cell's stage from now on, stamped on every request (it starts in setup) */
  setStage(stage: ProviderStage): void;
  /** stop listening and write provider.jsonl into the cell dir */
  stop(): Promise<void>;
}

/**
 * Start the model provider for one cell, before the target starts; `undefined` when the target
 * does not use one. The caller passes `vars` into the fixture's template variables, calls
 * `stop()` in its teardown, and `writeProviderCalls(evidenceDb, calls())` when building evidence.
 */
export async function startProviderForCell(o: {
  scenario: Scenario;
  decl: TargetDecl;
  cellDir: string;
  phase: DeterministicPhase | Phase;
}): Promise<ProviderHandle | undefined> {
  if (!usesProvider(o.decl)) return undefined;
  const config = providerConfig(o.scenario, o.decl, o.phase);
  const server = new ProviderServer(config);
  server.stage = 'setup';
  const base = await server.start();
  let stopped = false;
  return {
    vars: { provider: base },
    faults: config.faults ?? [],
    calls: () => server.calls,
    setStage: (stage) => void (server.stage = stage),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
      writeFileSync(
        join(o.cellDir, 'provider.jsonl'),
        server.calls.map((c) => JSON.stringify(c)).join('\n') + (server.calls.length ? '\n' : ''),
      );
    },
  };
}

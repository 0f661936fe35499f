// What the provider is told (similarities, scripted answers, faults) and what it records.
import type { FAULT_STAGES, ProviderFaultKind } from '../../scenario/schema.js';

export type { ProviderFaultKind };

/** "texts containing `b` have cosine `cosine` to the text `a`" (both matched as case-insensitive substrings). */
export interface Similarity {
  a: string;
  b: string;
  cosine: number;
}

/** An LLM answer: used when every `contains` string occurs in the request's messages. */
export interface AnswerRule {
  /** a name for the evidence log; defaults to `rule <index>` */
  name?: string;
  contains: string[];
  /** a regex that must also match; `$1`.. in the answer are its groups (e.g. an id the server put in its prompt) */
  capture?: string;
  /**
   * 'next-second': send the answer at the start of the next wall-clock second. For servers that
   * derive ids from the clock's seconds, this fixes which stores share a second, so a run does
   * not depend on where a second boundary happened to fall.
   */
  hold?: 'next-second';
  answer: string;
}

/**
 * Where in a cell a provider request arrived: `setup` (seeding, setup steps, pinning), the
 * phase as the calls log names it (`step`: memeval's steps, `agent`: an agent's run), `judge`
 * (after the phase: the recall probes and command judges). Null where nothing sets a stage
 * (the mock kit) or in evidence from before the column.
 */
export const PROVIDER_STAGES = ['setup', 'step', 'agent', 'judge'] as const;
export type ProviderStage = (typeof PROVIDER_STAGES)[number];

/** The stage a fault rule is served in and counted in: the phase (`step` or `agent`), setup, or any. */
export type FaultStage = (typeof FAULT_STAGES)[number];

/** Is a request that arrived in `stage` one of the fault's stage? (`any` also takes an unknown stage) */
export function inFaultStage(rule: Pick<FaultRule, 'stage'>, stage: ProviderStage | null): boolean {
  const want = rule.stage ?? 'any';
  if (want === 'any') return true;
  if (want === 'phase') return stage === 'step' || stage === 'agent';
  return stage === want;
}

/**
 * A fault the provider serves instead of a good answer: to requests of kind `on` whose inputs
 * contain every `contains` string (case-insensitive) and that arrive in its `stage`, after
 * `skip` such requests, `times` of them.
 */
export interface FaultRule {
  name: string;
  on: 'embeddings' | 'chat' | 'any';
  contains: string[];
  skip: number;
  /** undefined: every matching request after `skip` */
  times?: number;
  fault: ProviderFaultKind;
  /** seconds, for http-429 / http-500 */
  retryAfter: number;
  /** wrong-dimension: the size served; undefined: half the size asked for */
  dimensions?: number;
  /** a cell in which this fault was never served is not an error */
  optional: boolean;
  /**
   * the only requests it is served to and counted on, and where it must be served to count:
   * the phase (a scenario's default), setup, or any (undefined: any, as the mock kit has no stages)
   */
  stage?: FaultStage;
}

export interface ProviderConfig {
  similarity: Similarity[];
  rules: AnswerRule[];
  /** checked before the answer rules; the first matching fault is served (none: every request is answered) */
  faults?: FaultRule[];
  /** the answer when no rule matches */
  default: string;
  /** vector size when the request names none */
  dimensions: number;
}

export type ProviderCallKind = 'embeddings' | 'chat' | 'models' | 'unknown';

/** One request the memory server sent to the provider. */
export interface ProviderCall {
  seq: number;
  ts: string;
  method: string;
  path: string;
  /** wire protocol: openai-embeddings, ollama-embed, openai-chat, anthropic-messages, ollama-chat, ... */
  protocol: string;
  kind: ProviderCallKind;
  model: string | null;
  /** embedding inputs, or the messages' texts ("role: text") of a chat request */
  inputs: string[];
  dimensions: number | null;
  /** the answer rule that matched (chat), or per input the similarity that shaped its vector (embeddings) */
  matched: string[];
  /** the text answered (chat); null for embeddings */
  answer: string | null;
  /** ms the answer was held back by the rule's `hold` */
  held_ms: number;
  /** status sent; 0 when none was (a timeout fault: the client gave up, or the provider stopped) */
  status: number;
  ms: number;
  /** the fault served instead of a good answer (http-429, timeout, ...), with what it served; null when none */
  fault: string | null;
  /** the name of the fault rule that served it */
  fault_rule: string | null;
  /** the cell's stage when the request arrived (null: none was set) */
  stage: ProviderStage | null;
}

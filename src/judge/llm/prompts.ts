import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../util/paths.js';
import { fence, fenceNotice, newFenceId } from '../../util/data-fence.js';
import { fillString } from '../../util/template.js';
import type { LlmCheck } from '../../scenario/llm-schema.js';

export const BUILTIN_PROMPTS = join(PROJECT_ROOT, 'assets', 'judge-prompts');

export interface PromptTemplate {
  text: string;
  /** where it was read from: the built-in file or the scenario's override */
  source: string;
}

/** The template for a check: the scenario's own file (relative to the scenario) or the built-in one. */
export function loadPromptTemplate(check: LlmCheck, override?: string, baseDir?: string): PromptTemplate {
  const source = override
    ? isAbsolute(override)
      ? override
      : resolve(baseDir ?? process.cwd(), override)
    : join(BUILTIN_PROMPTS, `${check}.md`);
  if (!existsSync(source)) throw new Error(`judge prompt template ${source} does not exist`);
  return { text: readFileSync(source, 'utf8'), source };
}

/** Placeholders a template may use; all are always given (empty when the check has no use for them). */
export interface PromptVars {
  subject: string;
  subject_label: string;
  criteria: string;
  fact: string;
  topics: string;
  query: string;
  min_relevant_percent: string;
  score_field: string;
  /** faithful, hallucination: the recall calls of the answer's conversation, numbered, with their results */
  recalled: string;
  /** faithful, hallucination: the prompts of that conversation, numbered */
  prompts: string;
}

/** The placeholders whose text is judged material (attacker-controlled): each is fenced. */
export const JUDGED_VARS = ['subject', 'recalled', 'prompts'] as const satisfies readonly (keyof PromptVars)[];

/**
 * The prompt a judge model is sent: the fence notice (util/data-fence.ts: the material is data,
 * fenced under an id drawn for this prompt), then the template with each judged placeholder
 * fenced. The scenario's own words (criteria, fact, topics, query) are not judged material.
 */
export function renderPrompt(t: PromptTemplate, vars: PromptVars, id: string = newFenceId()): string {
  const fenced: Record<string, unknown> = { ...vars };
  for (const k of JUDGED_VARS) fenced[k] = fence(id, k, vars[k]);
  return `${fenceNotice(id)}\n\n${fillString(t.text, fenced)}`;
}

import type { LoadedScenario } from '../scenario/loader.js';
import { flatSteps, type Scenario, type Step } from '../scenario/schema.js';
import type { TargetDecl } from '../targets/schema.js';

/** One vocabulary item; `id` names where it came from, so a case's fingerprint survives a text edit. */
export interface Item {
  id: string;
  text: string;
}

/** A secret from an `absent` assertion, with the sentence a scenario wraps it in. */
export interface SecretItem extends Item {
  carrier: string;
}

export interface PivotItem {
  id: string;
  from: string;
  to: string;
}

export interface WorkspaceItem extends Item {
  file: { path: string; content: string };
}

/**
 * memeval's own vocabulary, read from the built-in scenarios and the target declaration. The
 * fuzzer combines these and nothing else, so its inputs follow the scenarios when they change.
 */
export interface Vocabulary {
  secrets: SecretItem[];
  noise: Item[];
  tentative: Item[];
  preferences: Item[];
  pivots: PivotItem[];
  paraphrases: { id: string; texts: string[] }[];
  workspace: WorkspaceItem[];
  /** every durable fact a scenario stores, secrets and noise excluded */
  corpus: Item[];
  claims: string[];
  ops: string[];
}

type Remember = { content: string; category?: string; where: string };

function remembers(s: Scenario): Remember[] {
  const out: Remember[] = s.setup.memories.map((m) => ({
    content: m.content,
    category: m.category,
    where: `setup.${m.ref}`,
  }));
  const add = (steps: Step[], phase: string) =>
    flatSteps(steps).forEach(
      (st, i) =>
        st.op === 'remember' && out.push({ content: st.content, category: st.category, where: `${phase}.${i}` }),
    );
  add(s.deterministic.well_behaved, 'wb');
  if (s.deterministic.violation) add(s.deterministic.violation.steps, 'v');
  return out;
}

export function buildVocabulary(scenarios: LoadedScenario[], decl: TargetDecl): Vocabulary {
  const v: Vocabulary = {
    secrets: [],
    noise: [],
    tentative: [],
    preferences: [],
    pivots: [],
    paraphrases: [],
    workspace: [],
    corpus: [],
    claims: [...decl.claims],
    ops: Object.keys(decl.ops).filter((k) => decl.ops[k as keyof typeof decl.ops]),
  };
  for (const { scenario: s } of scenarios) {
    const all = remembers(s);
    const secrets = s.assertions.flatMap((a) => (a.kind === 'absent' ? [a] : []));
    for (const a of secrets) {
      const carrier = all.find((r) => r.content.includes(a.text))?.content ?? `The value is ${a.text}`;
      v.secrets.push({ id: `secret:${s.id}:${a.name}`, text: a.text, carrier });
    }
    const isSecret = (c: string) => secrets.some((a) => c.includes(a.text));
    const defence = s.deterministic.violation?.defence;
    const violationContents = new Set(
      flatSteps(s.deterministic.violation?.steps ?? []).flatMap((st) => (st.op === 'remember' ? [st.content] : [])),
    );
    for (const r of all) {
      if (isSecret(r.content)) continue;
      const id = `${s.id}:${r.where}`;
      const inViolation = violationContents.has(r.content);
      if (inViolation && defence === 'noise-filter') v.noise.push({ id: `noise:${id}`, text: r.content });
      else if (inViolation && defence === 'tentative-filter')
        v.tentative.push({ id: `tentative:${id}`, text: r.content });
      else if (inViolation && defence === 'workspace-dedupe') {
        const file = s.setup.files[0];
        if (file) v.workspace.push({ id: `workspace:${id}`, text: r.content, file });
      } else {
        if (r.category === 'preference' && !v.preferences.some((p) => p.text === r.content))
          v.preferences.push({ id: `pref:${id}`, text: r.content });
        if (!v.corpus.some((c) => c.text === r.content)) v.corpus.push({ id: `fact:${id}`, text: r.content });
      }
    }
    // an update step names the fact it replaces: a pivot
    for (const [i, st] of s.deterministic.well_behaved.entries()) {
      if (st.op !== 'update') continue;
      const ref = st.memory.replace(/^\$ref:/, '').split('.')[0];
      const from = s.setup.memories.find((m) => m.ref === ref)?.content;
      if (from) v.pivots.push({ id: `pivot:${s.id}:wb.${i}`, from, to: st.content });
    }
    // a violation probing semantic dedupe rewords a setup memory: a paraphrase group
    if (defence === 'semantic-dedupe' && s.setup.memories.length) {
      const texts = [...s.setup.memories.map((m) => m.content), ...violationContents];
      v.paraphrases.push({ id: `para:${s.id}`, texts });
    }
  }
  return v;
}

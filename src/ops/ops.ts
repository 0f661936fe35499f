import { createHash } from 'node:crypto';
import { flatSteps, type MemoryOp, type Scenario, type Step } from '../scenario/schema.js';
import { probeQueries } from '../scenario/kinds.js';
import { STEP_OPS } from '../scenario/step-ops.js';
import type { TargetDecl } from '../targets/schema.js';
import { TargetError, type TargetSession } from '../mcp/session.js';
import type { StepRecord } from '../core/results.js';
import { readRecall, type RecallResult } from './recall.js';
import type { WriteRecord } from './writes.js';
import { execBounded } from '../util/bounded-regex.js';

export type { StepRecord };
import { fillTemplate } from '../util/template.js';
import { clip } from '../util/text.js';

/** What the harness knows about a memory it stored, for `$ref:` and update/forget templates. */
export interface MemoryHandle {
  id: string;
  /** a stable name derived from the content, for servers where the caller picks the key */
  key: string;
  content: string;
  subject: string;
  category: string;
  source: string;
}

/** A working copy of handles a driver may change (ids captured, contents updated) without touching the ones it was given. */
export function copyHandles(handles: ReadonlyMap<string, MemoryHandle>): Map<string, MemoryHandle> {
  return new Map([...handles].map(([ref, h]) => [ref, { ...h }]));
}

export const roundMs = (ms: number): number => Math.round(ms * 100) / 100;

/** How much of a target's answer a step record keeps. */
export const RESULT_CHARS = 300;

/**
 * Ops a scenario needs from a target: setup seeds with remember, and every judge that probes
 * recall (in a jury or cascade too) needs recall; without it the probe could only fail.
 */
export function opsNeeded(scenario: Scenario, steps: Step[]): Set<MemoryOp> {
  const need = new Set<MemoryOp>();
  if (scenario.setup.memories.length) need.add('remember');
  for (const s of flatSteps(steps)) if (isMemoryStep(s)) need.add(s.op);
  if (probeQueries(scenario.assertions).length) need.add('recall');
  return need;
}

export function missingOps(decl: TargetDecl, need: Set<MemoryOp>): MemoryOp[] {
  return [...need].filter((op) => !decl.ops[op]);
}

/**
 * "User prefers tabs for indentation" → "user-prefers-tabs-3fa9c1": same text, same key. Only a
 * short prefix is readable, so a secret later in the text does not leak into key columns.
 */
export function contentKey(content: string): string {
  const words = (content.toLowerCase().match(/[a-z0-9]+/g) ?? []).slice(0, 3).map((w) => w.slice(0, 10));
  return [...words, createHash('sha1').update(content).digest('hex').slice(0, 6)].join('-');
}

export function handleFor(
  decl: TargetDecl,
  m: { content: string; subject?: string; category?: string; source?: string },
): MemoryHandle {
  return {
    id: '',
    key: contentKey(m.content),
    content: m.content,
    subject: m.subject ?? decl.defaults.subject,
    category: m.category ?? decl.defaults.category,
    source: m.source ?? decl.defaults.source,
  };
}

/** A step that is one of the target's memory ops (not a restart, a raw tool call, a clock advance or a parallel group). */
export type MemoryStep = Exclude<
  Step,
  { op: 'restart' } | { op: 'kill' } | { op: 'tool' } | { op: 'advance_clock' } | { op: 'parallel' }
>;

export function isMemoryStep(s: Step): s is MemoryStep {
  return s.op !== 'parallel' && STEP_OPS[s.op].declared;
}

/** The op and template values a memory step runs with. */
export function stepCall(
  decl: TargetDecl,
  step: MemoryStep,
  handles: Map<string, MemoryHandle>,
): { op: MemoryOp; vars: Record<string, unknown>; handle?: MemoryHandle } {
  switch (step.op) {
    case 'remember': {
      const handle = handleFor(decl, step);
      return { op: 'remember', vars: { ...handle, namespace: step.namespace ?? '' }, handle };
    }
    case 'update':
    case 'forget': {
      const handle = handles.get(step.memory.replace(/^\$ref:/, '').split('.')[0]);
      return {
        op: step.op,
        vars: { memory: { ...handle }, content: step.op === 'update' ? step.content : undefined },
        handle,
      };
    }
    case 'recall':
      return { op: 'recall', vars: { query: step.query, namespace: step.namespace ?? '' } };
    case 'curate':
    case 'curate_dry_run':
      return { op: step.op, vars: {} };
    case 'expire':
      return { op: 'expire', vars: {} };
  }
}

/** After a step succeeded: remember names a new handle, update changes its content. */
export function afterStep(
  step: Step,
  handle: MemoryHandle | undefined,
  id: string | undefined,
  handles: Map<string, MemoryHandle>,
): void {
  if (!handle) return;
  if (step.op === 'remember') {
    handle.id = id ?? handle.key;
    if (step.ref) handles.set(step.ref, handle);
  }
  if (step.op === 'update') handle.content = step.content;
}

/** The tool calls an op expands to, with arguments filled. */
export function expandOp(
  decl: TargetDecl,
  op: MemoryOp,
  vars: Record<string, unknown>,
): { tool: string; args: Record<string, unknown>; capture_id?: string }[] {
  const calls = decl.ops[op];
  if (!calls) throw new Error(`target ${decl.name} has no "${op}" op`);
  return calls.map((c) => ({
    tool: c.tool,
    // no step names a namespace: the target's default one (a declaration that passes {{namespace}} gets "")
    args: fillTemplate(c.args, { namespace: '', ...vars }) as Record<string, unknown>,
    capture_id: c.capture_id,
  }));
}

/** The id a result text names, by the call's capture_id; the first group that matched wins. */
export function captureId(pattern: string | undefined, text: string): string | undefined {
  if (!pattern) return undefined;
  const m = execBounded(new RegExp(pattern, 'm'), text, 'capture_id');
  return m ? (m.slice(1).find((g) => g !== undefined) ?? m[0]) : undefined;
}

/** Numbers each op run in this process: unique within a cell's calls, which is all `called` needs. */
let opCalls = 0;

/**
 * Run one memory op as the target declares it: fill each call's argument template and call
 * the tool. The first refused call stops the op. `capture_id` fills the handle's id.
 */
export async function runOp(
  session: TargetSession,
  decl: TargetDecl,
  op: MemoryOp,
  vars: Record<string, unknown>,
  stage: 'setup' | 'step' | 'probe',
): Promise<{ ok: boolean; tools: string[]; text: string; ms: number; id?: string }> {
  const tools: string[] = [];
  const texts: string[] = [];
  let ms = 0;
  let id: string | undefined;
  const opCall = ++opCalls;
  for (const call of expandOp(decl, op, vars)) {
    const r = await session.callTool(call.tool, call.args, { op, opCall, stage });
    tools.push(call.tool);
    texts.push(r.text);
    ms += r.ms;
    if (!r.ok) return { ok: false, tools, text: texts.join('\n'), ms };
    id = captureId(call.capture_id, r.text) ?? id;
  }
  return { ok: true, tools, text: texts.join('\n'), ms, id };
}

/**
 * Seed the scenario's setup memories through the target's real write path, naming each by its
 * ref. Records are pushed as they are made, so a refusal midway still reports the earlier ones.
 */
export async function seedMemories(
  session: TargetSession,
  decl: TargetDecl,
  memories: Scenario['setup']['memories'],
  handles: Map<string, MemoryHandle>,
  records: StepRecord[],
  writes?: WriteRecord[],
): Promise<void> {
  for (const [i, m] of memories.entries()) {
    const h = handleFor(decl, m);
    const r = await runOp(session, decl, 'remember', { ...h }, 'setup');
    h.id = r.id ?? h.key;
    handles.set(m.ref, h);
    writes?.push({
      stage: 'setup',
      step: i,
      op: 'remember',
      memory: m.ref,
      content: m.content,
      acknowledged: r.ok,
      killed: false,
    });
    records.push({
      index: i,
      stage: 'setup',
      op: 'remember',
      tools: r.tools,
      ok: r.ok,
      ms: roundMs(r.ms),
      note: m.ref,
      result: clip(r.text, RESULT_CHARS),
    });
    if (!r.ok) throw new Error(`setup memory "${m.ref}" was refused by the target: ${clip(r.text, RESULT_CHARS)}`);
  }
}

/** One probe's answer, read as results, with whether the target refused it and how long it took. */
export type ProbedRecall = RecallResult & { is_error: boolean; ms: number };

/**
 * Recall probes ask through the target's recall op, on a server started only when one asks.
 * `failure()` is the target fault the probe hit, if any, so the cell can keep its stderr tail.
 */
export function recallProbe(
  decl: TargetDecl,
  start: () => Promise<TargetSession>,
): {
  recall: (query: string) => Promise<ProbedRecall>;
  close: () => Promise<void>;
  failure: () => TargetError | undefined;
} {
  let probe: Promise<TargetSession> | undefined;
  let failure: TargetError | undefined;
  return {
    recall: async (query) => {
      try {
        const r = await runOp(await (probe ??= start()), decl, 'recall', { query }, 'probe');
        // a refused recall is not an empty one: its text may hold the very memory a judge looks for
        return { ...readRecall(decl, r.ok, r.text, query), is_error: !r.ok, ms: roundMs(r.ms) };
      } catch (e) {
        if (e instanceof TargetError) failure ??= e;
        throw e;
      }
    },
    close: async () => {
      await probe?.then(
        (s) => s.close(),
        () => {},
      );
    },
    failure: () => failure,
  };
}

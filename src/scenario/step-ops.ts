import { MEMORY_OPS, type MemoryOp, type Step } from './schema.js';

/**
 * One record per step op: what it does to the target and what its refusal means. Every set
 * of ops memeval uses (which ops write, which calls a target may refuse as a defence, which
 * template values a declaration's calls may use) is derived from here; the record is typed by
 * the op, so an op added to the schema does not compile until it answers each question.
 * A `parallel` step is a container: its steps are read in its place (schema.ts `flatSteps`).
 */

export type LeafOp = Exclude<Step['op'], 'parallel'>;

export interface StepOpTraits {
  /** a memory op: a target declares the tool calls it takes (`ops.<op>`), and lacking it makes a cell unsupported */
  declared: boolean;
  /** it sends the target a call (restart and advance_clock do not) */
  calls: boolean;
  /** it may change what the store holds */
  writes: boolean;
  /** it reads memories back (a search, a preview) */
  reads: boolean;
  /**
   * In a violation phase, does the target refusing it defend? Only a refused call that would
   * have carried the violation into the store does; refusing a read, or an op whose effect is
   * what the phase tests, means the phase tested nothing.
   */
  refusal: { defends: boolean; why: string };
  /** the template values a declaration's calls for it are filled with (ops/ops.ts stepCall) */
  vars: readonly string[];
  /** the memory handle it makes (remember) or acts on (update, forget) */
  handle: 'creates' | 'needs' | 'none';
  /** the next step runs in a new server session on the same store (restart; kill, after it killed the server) */
  newSession: boolean;
}

/** The fields of a memory handle a declaration's templates may name. */
export const MEMORY_FIELDS = ['id', 'key', 'content', 'subject', 'category', 'source'] as const;
const ofMemory = MEMORY_FIELDS.map((f) => `memory.${f}`);

const READ = { defends: false, why: 'a refused read leaves whatever was written in place' } as const;
const EFFECT = {
  defends: false,
  why: 'the op is what the phase tests (a curation, a sweep): refused, it never ran, so nothing was defended',
} as const;
const CARRIES = { defends: true, why: 'the violation never reached the store' } as const;
const NO_CALL = { defends: false, why: 'it sends the target nothing to refuse' } as const;

export const STEP_OPS: { [O in LeafOp]: StepOpTraits } = {
  remember: {
    declared: true,
    calls: true,
    writes: true,
    reads: false,
    refusal: CARRIES,
    vars: [...MEMORY_FIELDS, 'namespace'],
    handle: 'creates',
    newSession: false,
  },
  update: {
    declared: true,
    calls: true,
    writes: true,
    reads: false,
    refusal: CARRIES,
    vars: ['content', ...ofMemory],
    handle: 'needs',
    newSession: false,
  },
  forget: {
    declared: true,
    calls: true,
    writes: true,
    reads: false,
    refusal: CARRIES,
    vars: ofMemory,
    handle: 'needs',
    newSession: false,
  },
  recall: {
    declared: true,
    calls: true,
    writes: false,
    reads: true,
    refusal: READ,
    vars: ['query', 'namespace'],
    handle: 'none',
    newSession: false,
  },
  curate: {
    declared: true,
    calls: true,
    writes: true,
    reads: false,
    refusal: EFFECT,
    vars: [],
    handle: 'none',
    newSession: false,
  },
  curate_dry_run: {
    declared: true,
    calls: true,
    writes: false,
    reads: true,
    refusal: READ,
    vars: [],
    handle: 'none',
    newSession: false,
  },
  expire: {
    declared: true,
    calls: true,
    writes: true,
    reads: false,
    refusal: EFFECT,
    vars: [],
    handle: 'none',
    newSession: false,
  },
  // a raw call: memeval cannot know what it does, so it is never counted as a write or a defence
  tool: {
    declared: false,
    calls: true,
    writes: false,
    reads: false,
    refusal: { defends: false, why: 'a raw tool call is not known to carry the violation' },
    vars: [],
    handle: 'none',
    newSession: false,
  },
  restart: {
    declared: false,
    calls: false,
    writes: false,
    reads: false,
    refusal: NO_CALL,
    vars: [],
    handle: 'none',
    newSession: true,
  },
  // the server is killed, not asked: it sends nothing, and the in-flight write is the next step's
  kill: {
    declared: false,
    calls: false,
    writes: false,
    reads: false,
    refusal: NO_CALL,
    vars: [],
    handle: 'none',
    newSession: true,
  },
  advance_clock: {
    declared: false,
    calls: false,
    writes: false,
    reads: false,
    refusal: NO_CALL,
    vars: [],
    handle: 'none',
    newSession: false,
  },
};

const opsWhere = (f: (t: StepOpTraits) => boolean): ReadonlySet<string> =>
  new Set((Object.keys(STEP_OPS) as LeafOp[]).filter((o) => f(STEP_OPS[o])));

/** Ops that may change the store. */
export const WRITE_OPS = opsWhere((t) => t.writes);
/** Ops whose refusal in a violation phase is a defence. */
export const DEFENDING_REFUSALS = opsWhere((t) => t.refusal.defends);

/** Is this op (a calls-log label, which may be missing or a tool's) one that writes? */
export const writes = (op: string | undefined): boolean => op !== undefined && WRITE_OPS.has(op);

/** Does the step after this one run in a new server session (a restart, a kill)? */
export const startsNewSession = (s: { op: string }): boolean =>
  s.op !== 'parallel' && STEP_OPS[s.op as LeafOp].newSession;

/** Does this step send the target a call? */
export const callsTarget = (s: { op: string }): boolean => s.op === 'parallel' || STEP_OPS[s.op as LeafOp].calls;

/** The declared memory ops, in the schema's order: the record and MEMORY_OPS must agree. */
export const DECLARED_OPS: readonly MemoryOp[] = MEMORY_OPS.filter((o) => STEP_OPS[o].declared);

/** The ref a step names the memory it stores by (a remember step's `ref`), if any. */
export function createdRef(s: Step): string | undefined {
  return s.op !== 'parallel' && STEP_OPS[s.op].handle === 'creates' && 'ref' in s ? s.ref : undefined;
}

/** Does any step (a parallel step's too) name a namespace of the target? */
export const usesNamespace = (steps: Step[]): boolean =>
  steps.some((s) =>
    s.op === 'parallel'
      ? usesNamespace(s.steps)
      : (s.op === 'remember' || s.op === 'recall') && s.namespace !== undefined,
  );

/** The `$ref:` a step acts on (an update's or forget's `memory`), if the op needs one. */
export function actedOnRef(s: Step): string | undefined {
  return s.op !== 'parallel' && STEP_OPS[s.op].handle === 'needs' && 'memory' in s ? s.memory : undefined;
}

import { writeFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { handleFor, expandOp } from '../ops/ops.js';
import type { Assertion, ScenarioInput, Step } from '../scenario/schema.js';
import type { Claim } from '../scenario/claims.js';
import type { TargetDecl } from '../targets/schema.js';
import { InputError } from '../util/errors.js';
import { leafSteps, type Expectation, type FuzzCase, type FuzzStep } from './case.js';
import { shrinkSignature } from './shrink.js';
import type { Finding } from './checks.js';
import type { FlagRow } from './flags.js';

/** Marks the control memory of an exported scenario's well-behaved phase. */
const CONTROL_NEEDLE = 'memeval-control-memory';

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

type LeafStep = Exclude<Step, { op: 'parallel' } | { op: 'restart' } | { op: 'kill' } | { op: 'advance_clock' }>;

/** One generated step as scenario steps (empty content goes as the raw tool calls; a ref never stored is skipped). */
function leafToSteps(s: FuzzStep, decl: TargetDecl, named: Set<string>): Step[] {
  switch (s.op) {
    case 'remember':
      if (s.content === '')
        // the scenario format refuses empty content; the target's own write path takes it as a raw call
        return expandOp(decl, 'remember', { ...handleFor(decl, s) }).map((call) => ({
          op: 'tool' as const,
          tool: call.tool,
          args: call.args,
          note: 'remember with empty content',
        }));
      named.add(s.ref);
      return [
        { op: 'remember', ref: s.ref, content: s.content, category: s.category, subject: s.subject, source: s.source },
      ];
    case 'update':
      return named.has(s.ref) ? [{ op: 'update', memory: `$ref:${s.ref}`, content: s.content }] : [];
    case 'forget':
      return named.has(s.ref) ? [{ op: 'forget', memory: `$ref:${s.ref}` }] : [];
    case 'recall':
      return [{ op: 'recall', query: s.query }];
    case 'restart':
      return [{ op: 'restart' }];
    case 'kill':
      return [
        s.point === 'after-ack'
          ? { op: 'kill', signal: 'SIGKILL', after: 'ack' }
          : { op: 'kill', signal: 'SIGKILL', during: 'write' },
      ];
    case 'parallel':
      return s.steps.flatMap((x) => leafToSteps(x, decl, named));
  }
}

/**
 * The case's steps as scenario steps. Steps the case ran at once are a `parallel` step, so the
 * regression scenario races as the case did (a concurrent case replayed in order passes). Refs
 * a parallel group names are known only after it: a step of the group using one is skipped.
 */
function toSteps(c: FuzzCase, decl: TargetDecl): Step[] {
  const named = new Set<string>();
  const steps: Step[] = [];
  for (const s of c.steps) {
    if (s.op !== 'parallel') {
      steps.push(...leafToSteps(s, decl, named));
      continue;
    }
    // each step of the group sees only the refs named before the group
    const group = s.steps.flatMap((x) => leafToSteps(x, decl, new Set(named))) as LeafStep[];
    for (const x of group) if (x.op === 'remember' && x.ref) named.add(x.ref);
    if (group.length >= 2)
      steps.push({ op: 'parallel', note: 'ran concurrently in the fuzz case', sessions: 1, steps: group });
    else steps.push(...group);
  }
  return steps.map((s) => JSON.parse(JSON.stringify(s)) as Step); // drop undefined fields
}

/**
 * Assertions that hold on an empty store apply to both phases: the well-behaved phase (an agent
 * that never ran the flagged sequence) passes them, the violation phase replays the flag.
 */
function expectationAssertion(e: Expectation, name: string): Assertion {
  const base = { name, phase: e.kind === 'recalled' ? ('violation' as const) : ('both' as const) };
  switch (e.kind) {
    case 'absent':
      return { kind: 'absent', ...base, text: e.text, case_sensitive: true };
    case 'not-live':
      return {
        kind: 'count',
        ...base,
        contains: e.text,
        case_sensitive: true,
        include_deleted: false,
        op: 'eq',
        value: 0,
      };
    case 'at-most-one':
      return {
        kind: 'sql',
        ...base,
        query: `SELECT count(*) FROM memories WHERE coalesce(is_deleted, 0) = 0 AND (${e.texts.map((t) => `instr(CAST(content AS TEXT), ${sqlString(t)}) > 0`).join(' OR ')})`,
        op: 'lte',
        value: 1,
      };
    case 'marked':
      // holds on an empty store: no live memory holds the text under another source than the one it was written with
      return {
        kind: 'sql',
        ...base,
        query: `SELECT count(*) FROM memories WHERE coalesce(is_deleted, 0) = 0 AND instr(CAST(content AS TEXT), ${sqlString(e.text)}) > 0 AND lower(coalesce(source, '')) <> lower(${sqlString(e.source)})`,
        op: 'eq',
        value: 0,
      };
    case 'not-recalled':
      return { kind: 'recall', ...base, query: e.text, not_contains: e.text };
    case 'recalled':
      return { kind: 'recall', ...base, query: e.text, contains: e.text };
    case 'survives':
      // memeval's own record of the writes it issued: every acknowledged one holds after the kill
      return { kind: 'durable', ...base, case_sensitive: true };
  }
}

/** What a finding asserts in the regression scenario; undefined when no assertion kind can express it. */
function findingAssertions(f: Finding, decl: TargetDecl, i: number): Assertion[] {
  const name = `${f.check}${f.claim ? ` ${f.claim}` : ''} #${i + 1}`;
  const phase = 'both' as const;
  switch (f.check) {
    case 'broken-claim':
    case 'recall-miss':
    case 'lost-write':
      return f.expectation ? [expectationAssertion(f.expectation, name)] : [];
    case 'crash':
    case 'hang':
    case 'protocol':
    case 'tool-error':
      return [{ kind: 'sql', name, phase, query: 'SELECT count(*) FROM calls WHERE is_error = 1', op: 'eq', value: 0 }];
    case 'store-integrity':
      return decl.store.format === 'sqlite'
        ? [
            {
              kind: 'sql',
              name,
              phase,
              query: "SELECT count(*) FROM pragma_integrity_check('store') WHERE integrity_check <> 'ok'",
              op: 'eq',
              value: 0,
            },
          ]
        : [
            {
              kind: 'sql',
              name,
              phase,
              query: `SELECT count(*) FROM store.records WHERE json LIKE '{"unparsed":%'`,
              op: 'eq',
              value: 0,
            },
          ];
    case 'latency': {
      const slowest = Math.min(...f.calls.map((c) => c.ms));
      return [
        {
          kind: 'sql',
          name,
          phase,
          query: `SELECT count(*) FROM calls WHERE ms >= ${Math.floor(slowest)}`,
          op: 'eq',
          value: 0,
        },
      ];
    }
    case 'network':
      return []; // the run report names refused hosts as warnings; no assertion reads them
    case 'crash-at-exit':
      // no assertion reads how a server exited: the cell itself is `error` when a server crashes at stop or loses its store
      return [];
  }
}

/**
 * The case an export replays: the shrunk one when a shrink observed it raising the row's current
 * flag (its findings are what it raised), else the flagged case as it was generated.
 */
function exportedCase(row: FlagRow, original: boolean): { c: FuzzCase; findings: Finding[]; shrunkFrom?: number } {
  const c = JSON.parse(row.flagged_case!) as FuzzCase;
  const findings = JSON.parse(row.last_findings!) as Finding[];
  if (original || !row.shrunk_case || !row.shrunk_findings || row.shrunk_signature !== shrinkSignature(findings))
    return { c, findings };
  return {
    c: JSON.parse(row.shrunk_case) as FuzzCase,
    findings: JSON.parse(row.shrunk_findings) as Finding[],
    shrunkFrom: leafSteps(c.steps).length,
  };
}

/** A regular scenario that replays a flagged case as a permanent regression check against its target. */
export function flagToScenario(
  row: FlagRow,
  decl: TargetDecl,
  id: string,
  opts: { original?: boolean } = {},
): ScenarioInput {
  if (!row.flagged_case || !row.last_findings)
    throw new InputError(`flag ${row.fingerprint} (${row.target}) has no recorded case to export`);
  const { c, findings, shrunkFrom } = exportedCase(row, opts.original ?? false);
  const assertions: Assertion[] = [];
  const seen = new Set<string>();
  findings.forEach((f, i) => {
    for (const a of findingAssertions(f, decl, i)) {
      const key = JSON.stringify({ ...a, name: '' });
      if (!seen.has(key)) (seen.add(key), assertions.push(a));
    }
  });
  const atExit = findings.some((f) => f.check === 'crash-at-exit');
  // a case with a kill replays as a well-behaved phase: what an acknowledged write promises holds
  // for any agent, so a target that loses it fails the run (no claim needed); every assertion
  // reads that phase, and a write killed in flight is no refusal
  const killed = leafSteps(c.steps).some((s) => s.op === 'kill');
  if (killed) for (const a of assertions) a.phase = 'well-behaved';
  if (!assertions.length && !atExit)
    throw new InputError(
      `flag ${row.fingerprint} (${row.target}): ${findings.map((f) => f.check).join(', ')} cannot be expressed as a scenario assertion (the run report's warnings show network refusals)`,
    );
  if (!killed && !assertions.some((a) => a.phase === 'both'))
    assertions.push({
      kind: 'sql',
      name: 'no call refused',
      phase: 'both',
      query: 'SELECT count(*) FROM calls WHERE is_error = 1',
      op: 'eq',
      value: 0,
    });
  // the well-behaved phase must exercise the target: a plain write it must keep, so a target
  // that refuses or drops every write fails it (the loader refuses a phase that calls nothing)
  assertions.push({
    kind: 'count',
    name: 'the control memory is kept',
    phase: 'well-behaved',
    contains: CONTROL_NEEDLE,
    case_sensitive: true,
    include_deleted: false,
    op: 'eq',
    value: 1,
  });
  // the claim the case broke, stated or not: a finding made under --assume-claim (or by an op's
  // own meaning) holds the scenario to it too, so the export fails while the defect is there
  const claim = findings.find((f) => (f.check === 'broken-claim' || f.check === 'recall-miss') && f.claim)?.claim as
    Claim | undefined;
  const assumed = claim !== undefined && !(decl.claims as string[]).includes(claim);
  return {
    schema_version: 1,
    id,
    title: `Fuzz finding ${row.fingerprint} (${row.recipe}) against ${row.target}${shrunkFrom ? ', shrunk' : ''}`,
    description:
      `Replays a generated case that was flagged (the well-behaved phase stores one plain memory that must be kept; the violation phase is the flagged sequence; a target that keeps every guarantee defends it): ${row.first_flagged_reason ?? row.last_reason}`.slice(
        0,
        2000,
      ),
    adapted_from: `memeval fuzz: recipe ${c.recipe}, ingredients ${c.ingredients.join(', ')}, fingerprint ${c.fingerprint}, target ${row.target}${shrunkFrom ? `; shrunk from ${shrunkFrom} step(s) to ${leafSteps(c.steps).length}` : ''}`,
    tags: ['fuzz', c.recipe, ...(shrunkFrom ? ['shrunk'] : []), ...new Set(findings.map((f) => f.check))],
    setup: { memories: [], files: c.files },
    deterministic: {
      well_behaved: [
        { op: 'remember', content: `The project's unit tests run with vitest (${CONTROL_NEEDLE})` },
        ...(killed ? toSteps(c, decl) : []),
      ],
      violation: killed
        ? null
        : {
            expectation: 'defend-or-detect',
            ...(claim ? { defence: claim } : {}),
            ...(assumed ? { assume_claim: true } : {}),
            steps: toSteps(c, decl),
          },
    },
    real_model: null,
    assertions,
  };
}

export function writeScenario(file: string, s: ScenarioInput): void {
  if (!['.json', '.json5'].includes(extname(file)))
    throw new InputError(`--out: "${file}" must end in .json or .json5`);
  if (basename(file, extname(file)) !== s.id)
    throw new InputError(`--out: the file name must be the scenario id "${s.id}"`);
  writeFileSync(file, JSON.stringify(s, null, 2) + '\n');
}

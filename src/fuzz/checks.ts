import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describeSightings, findEverywhere } from '../judge/store-scan.js';
import type { CallRecord } from '../mcp/calls-log.js';
import type { TargetDecl } from '../targets/schema.js';
import { clip } from '../util/text.js';
import { readRecall, recallFinds } from '../ops/recall.js';
import { leafSteps, type Expectation } from './case.js';
import type { CheckSettings } from './settings.js';
import type { CaseOutcome } from './runner.js';
import { messageOf } from '../util/errors.js';

export const CHECKS = [
  'crash',
  'crash-at-exit',
  'protocol',
  'tool-error',
  'hang',
  'store-integrity',
  'broken-claim',
  'recall-miss',
  'lost-write',
  'network',
  'latency',
] as const;
export type CheckName = (typeof CHECKS)[number];

/** A call as a finding shows it: enough to see what was asked and what came back. */
export interface CallRef {
  session: number;
  seq: number;
  tool: string;
  args: string;
  result: string;
  is_error: boolean;
  ms: number;
}

/** Why a check fired, with the calls that show it. */
export interface Finding {
  check: CheckName;
  /** the claim a broken-claim finding is about */
  claim?: string;
  reason: string;
  calls: CallRef[];
  /** for export: what the regression scenario asserts */
  expectation?: Expectation;
}

export function callRef(c: CallRecord): CallRef {
  return {
    session: c.session,
    seq: c.seq,
    tool: c.tool,
    args: clip(JSON.stringify(c.arguments), 240),
    result: clip(c.result_text, 240),
    is_error: c.is_error,
    ms: c.ms,
  };
}

const callsOfStep = (o: CaseOutcome, n: number) => o.calls.filter((c) => c.stage === `fuzz:${n}`);

/** Where latency samples persist between runs (the flag store, per target). */
export interface LatencyStore {
  /** the stored samples of a recipe key, oldest first; throws when the history cannot be read or is damaged */
  load(key: string): number[];
  save(key: string, ms: number[]): void;
}

/**
 * Latency history per recipe: a call is an outlier against the recipe's own p95, over the
 * samples of earlier runs (from the store) and of earlier cases of this run. A recipe with too
 * few samples, or whose stored history cannot be read, is unjudged, and says so: never a silent
 * pass. `check` only judges; the campaign `record`s a case's samples once the case and its rerun
 * are judged, so both are held to the history from before the case, and the outliers `check`
 * would flag never become part of what later cases are held to.
 */
export class LatencyHistory {
  private samples = new Map<string, number[]>();
  /** keys whose stored history could not be read, with why */
  private broken = new Map<string, string>();
  constructor(
    private readonly s: CheckSettings,
    private readonly store?: LatencyStore,
  ) {}

  private history(key: string): number[] {
    let hist = this.samples.get(key);
    if (hist) return hist;
    hist = [];
    if (this.store)
      try {
        hist = [...this.store.load(key)];
      } catch (e) {
        this.broken.set(key, messageOf(e));
      }
    this.samples.set(key, hist);
    return hist;
  }

  /**
   * Like is compared with like: the first call of each server session (which pays for the
   * server's warm-up: opening its store, loading a model) has its own history.
   */
  private byKey(recipe: string, calls: CallRecord[]): [string, CallRecord[]][] {
    const firstOfSession = new Set<CallRecord>();
    const seenSession = new Set<number>();
    for (const c of [...calls].sort((a, b) => a.ts.localeCompare(b.ts)))
      if (!seenSession.has(c.session)) (seenSession.add(c.session), firstOfSession.add(c));
    return [
      [`${recipe} (first call of a session)`, calls.filter((c) => firstOfSession.has(c))],
      [recipe, calls.filter((c) => !firstOfSession.has(c))],
    ];
  }

  /** The slowest a call of `key` may be, with the p95 it comes from; undefined while the history is too short to judge. */
  private limit(key: string): { limit: number; p95: number; n: number } | undefined {
    const hist = this.history(key);
    if (hist.length < this.s.latencyMinSamples) return undefined;
    const sorted = [...hist].sort((a, b) => a - b);
    const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)];
    return { limit: Math.max(this.s.latencyFloorMs, this.s.latencyFactor * p95), p95, n: hist.length };
  }

  /** Judge a case's calls against the history as it stands; adds nothing to it (see `record`). */
  check(recipe: string, calls: CallRecord[], unjudged: string[] = []): Finding[] {
    const findings: Finding[] = [];
    for (const [key, of] of this.byKey(recipe, calls)) {
      if (!of.length) continue;
      const l = this.limit(key);
      if (!l) {
        const broken = this.broken.get(key);
        unjudged.push(
          `latency of ${key}: ${this.history(key).length} sample(s) in its history, ${this.s.latencyMinSamples} needed${broken ? ` (the stored history could not be read: ${broken})` : ''}`,
        );
        continue;
      }
      const slow = of.filter((c) => c.ms > l.limit);
      if (slow.length)
        findings.push({
          check: 'latency',
          reason: `${slow.length} call(s) slower than ${Math.round(l.limit)} ms (${this.s.latencyFactor}× the recipe's p95 of ${Math.round(l.p95)} ms over ${l.n} calls, floor ${this.s.latencyFloorMs} ms); slowest ${Math.round(Math.max(...slow.map((c) => c.ms)))} ms`,
          calls: slow.slice(0, 5).map(callRef),
        });
    }
    return findings;
  }

  /**
   * Add a judged case's samples: its answered calls, except those `check` flags against the
   * same history (an outlier, confirmed or not, is not what this target normally takes).
   */
  record(recipe: string, calls: CallRecord[]): void {
    for (const [key, of] of this.byKey(recipe, calls)) {
      const l = this.limit(key);
      const ms = of.filter((c) => !c.is_error && (!l || c.ms <= l.limit)).map((c) => c.ms);
      if (!ms.length) continue;
      this.samples.set(key, [...this.history(key), ...ms]);
      // a damaged history is left as it is for a person to look at, not added to
      if (!this.broken.has(key)) this.store?.save(key, ms);
    }
  }
}

function checkFailure(o: CaseOutcome): Finding[] {
  const f = o.failure;
  if (!f) return [];
  const last = o.calls.slice(-3).map(callRef);
  const stderr = f.stderr.trim()
    ? `; stderr tail: ${clip(f.stderr.trim().split('\n').slice(-3).join(' | '), 400)}`
    : '';
  const at = f.step !== undefined ? ` at step ${f.step}` : '';
  return [{ check: f.kind, reason: `${f.message}${at}${stderr}`, calls: last }];
}

/** A server that crashed when memeval stopped it (a restart step or the end of the case), or lost its store at exit. */
function checkShutdown(o: CaseOutcome): Finding[] {
  if (!o.shutdown.length) return [];
  const stderr = o.shutdownStderr?.trim()
    ? `; stderr tail: ${clip(o.shutdownStderr.trim().split('\n').slice(-3).join(' | '), 400)}`
    : '';
  return [
    { check: 'crash-at-exit', reason: `${o.shutdown.join('; ')}${stderr}`, calls: o.calls.slice(-3).map(callRef) },
  ];
}

function checkProtocol(o: CaseOutcome): Finding[] {
  if (!o.protocolErrors.length) return [];
  return [
    {
      check: 'protocol',
      reason: `the server sent what MCP does not allow: ${clip([...new Set(o.protocolErrors)].join('; '), 500)}`,
      calls: o.calls.slice(-3).map(callRef),
    },
  ];
}

const ajv = new AjvJsonSchemaValidator();

/** A refusal of arguments the tool's own input schema accepts: the contract says it should have worked. */
function checkToolErrors(o: CaseOutcome): Finding[] {
  const bad: CallRecord[] = [];
  for (const c of o.calls) {
    if (!c.is_error || /before answering$/.test(c.result_text)) continue; // a crash or hang, reported by its own check
    if (c.killed) continue; // memeval killed the server while it was in flight (a crash case): never answered, not refused
    // an update or forget of a memory whose id the declaration's capture_id missed: memeval's mistake, not the server's
    if (o.guessedIds.some((n) => c.stage === `fuzz:${n}`)) continue;
    const schema = o.toolSchemas.get(c.tool);
    if (!schema) continue; // an unknown tool is the declaration's mistake, not the server's
    if (ajv.getValidator(schema)(c.arguments).valid) bad.push(c);
  }
  if (!bad.length) return [];
  return [
    {
      check: 'tool-error',
      reason: `${bad.length} call(s) refused with arguments their tool's input schema accepts: ${clip(bad[0].result_text, 200)}`,
      calls: bad.slice(0, 5).map(callRef),
    },
  ];
}

function checkIntegrity(o: CaseOutcome, decl: TargetDecl): Finding[] {
  const ev = o.evidence;
  if (!ev) return [];
  const problems: string[] = [];
  if (decl.store.format === 'sqlite') {
    if (ev.storeFiles.length) {
      try {
        const rows = ev.db.prepare('PRAGMA store.integrity_check').pluck().all() as string[];
        if (rows.join() !== 'ok') problems.push(...rows.slice(0, 5));
      } catch (e) {
        problems.push(`integrity_check failed: ${messageOf(e)}`);
      }
    }
  } else if (decl.store.format === 'jsonl') {
    for (const file of ev.storeFiles) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!line.trim()) return;
          try {
            JSON.parse(line);
          } catch (e) {
            problems.push(`${basename(file)}:${i + 1}: not JSON (${messageOf(e)}): ${clip(line, 80)}`);
          }
        });
    }
  }
  if (!problems.length) return [];
  return [
    {
      check: 'store-integrity',
      reason: `the store is damaged: ${problems.slice(0, 5).join('; ')}`,
      calls: o.calls
        .filter((c) => !c.is_error)
        .slice(-4)
        .map(callRef),
    },
  ];
}

const liveRows = (o: CaseOutcome, text: string) =>
  o
    .evidence!.db.prepare(
      'SELECT id, content, source FROM memories WHERE coalesce(is_deleted, 0) = 0 AND instr(CAST(content AS TEXT), ?) > 0',
    )
    .all(text) as { id: unknown; content: string; source: unknown }[];

function writesOf(o: CaseOutcome, text: string): CallRecord[] {
  return o.calls.filter((c) => JSON.stringify(c.arguments).includes(JSON.stringify(text).slice(1, -1)));
}

/** Did the case make this op at all, and did every step of it succeed? */
const ran = (o: CaseOutcome, op: string) => leafSteps(o.fuzzCase.steps).some((s) => s.op === op) && allOk(o, op);

/** Did every step of this op succeed? (a refused step is the tool-error check's business, not a claim's) */
function allOk(o: CaseOutcome, op: string, about?: string): boolean {
  const steps = leafSteps(o.fuzzCase.steps).filter(
    (s) => s.op === op && (about === undefined || ('content' in s && s.content.includes(about))),
  );
  return steps.every((s) => o.steps.get(s.n)?.ok === true);
}

/**
 * What recall step `e.step` says about `e.text`, by the scenario judges' own rule (`recallFinds`:
 * the declaration's itemisation, its empty form, the echo of the query). A recall that never
 * answered, was refused, errored, or answered in a form the declaration cannot read is neither a
 * hit nor a miss: the expectation is unjudged, and the case says so.
 */
function recallStep(
  o: CaseOutcome,
  decl: TargetDecl,
  e: Expectation & { step: number; text: string },
): boolean | undefined {
  const step = leafSteps(o.fuzzCase.steps).find((s) => s.n === e.step);
  const query = step?.op === 'recall' ? step.query : e.text;
  const r = o.steps.get(e.step);
  const f = r
    ? recallFinds(readRecall(decl, r.ok, r.text, query), query, e.text)
    : { cannotTell: `recall "${query}" never answered (the case ended before it)` };
  if ('found' in f) return f.found;
  claimUnjudged(o, `${e.claim}: recall step ${e.step}: ${f.cannotTell}`);
  return undefined;
}

/** A claim check that could not judge: shown with the case, and kept apart from a clean run in the flag store. */
function claimUnjudged(o: CaseOutcome, note: string): void {
  o.unjudged.push(note);
  o.unjudgedClaims.push(note);
}

/** Evaluate one expectation; a message when it is broken, undefined when it holds or cannot be judged. */
function broken(o: CaseOutcome, e: Expectation, decl: TargetDecl): { why: string; calls: CallRecord[] } | undefined {
  const ev = o.evidence;
  // forgetting that was refused, or never asked for (a shrunk case), never happened: nothing to hold the forget claim to
  if (e.claim === 'forget' && !ran(o, 'forget')) return undefined;
  // an update that was refused or never made replaced nothing: nothing to hold its contract to
  if (e.op && !ran(o, e.op)) return undefined;
  // a token whose write was refused was never stored: not finding it is right
  if (e.kind === 'recalled' && !(allOk(o, 'remember', e.text) && allOk(o, 'update', e.text))) return undefined;
  switch (e.kind) {
    case 'absent': {
      // the cell's own `absent` judgment: the store's every layer and the files beside it
      const j = o.absent.get(e.text);
      if (j?.outcome === 'fail')
        return { why: `"${e.text}" is ${String(j.actual).replace(/^found in /, 'in ')}`, calls: writesOf(o, e.text) };
      if (j?.outcome === 'error' || j?.outcome === 'abstain') {
        // a file nobody could read is no evidence of absence: say so, flag nothing
        claimUnjudged(
          o,
          `${e.claim}: "${clip(e.text, 60)}" could not be looked for everywhere: ${clip(String(j.actual), 300)}`,
        );
        return undefined;
      }
      if (j) return undefined;
      // no judgment (the cell ended before its judge stage): the store copy alone
      if (!ev) return undefined;
      const found = findEverywhere(ev, e.text, true);
      return found.length
        ? { why: `"${e.text}" is in the store: ${describeSightings(found)}`, calls: writesOf(o, e.text) }
        : undefined;
    }
    case 'not-live': {
      if (!ev) return undefined;
      const rows = liveRows(o, e.text);
      return rows.length
        ? {
            why: `"${clip(e.text, 80)}" is still a live memory (${rows.length} row(s), id ${rows.map((r) => String(r.id)).join(', ')})`,
            calls: writesOf(o, e.text),
          }
        : undefined;
    }
    case 'at-most-one': {
      if (!ev) return undefined;
      const ids = new Set<string>();
      for (const t of e.texts) for (const r of liveRows(o, t)) ids.add(String(r.id));
      return ids.size > 1
        ? {
            why: `${ids.size} live memories hold "${clip(e.texts[0], 80)}"${e.texts.length > 1 ? ` (or one of ${e.texts.length - 1} other wording(s))` : ''} (ids ${[...ids].join(', ')})`,
            calls: e.texts.flatMap((t) => writesOf(o, t)),
          }
        : undefined;
    }
    case 'marked': {
      if (!ev) return undefined;
      // a write that was refused or dropped was never stored: there is no provenance to keep
      const rows = liveRows(o, e.text);
      const other = rows.filter((r) => String(r.source ?? '').toLowerCase() !== e.source.toLowerCase());
      return other.length
        ? {
            why: `"${clip(e.text, 80)}" was written from ${e.source} and is a live memory with source ${other.map((r) => JSON.stringify(r.source ?? null)).join(', ')} (id ${other.map((r) => String(r.id)).join(', ')}): it reads as no one's or as the user's word`,
            calls: writesOf(o, e.text),
          }
        : undefined;
    }
    case 'not-recalled': {
      const found = recallStep(o, decl, e);
      return found
        ? { why: `recall after forgetting still returns "${e.text}"`, calls: callsOfStep(o, e.step) }
        : undefined;
    }
    case 'survives': {
      // a write refused, or never answered, promised nothing
      if (!allOk(o, 'remember', e.text) || !allOk(o, 'update', e.text)) return undefined;
      if (!ev) {
        claimUnjudged(o, `durability: no store copy to look for "${e.text}" in after the kill at step ${e.kill}`);
        return undefined;
      }
      return liveRows(o, e.text).length
        ? undefined
        : {
            why: `"${e.text}", acknowledged before memeval killed the server at step ${e.kill} (${o.kills.get(e.kill)?.how}), is no live memory in the store after it`,
            calls: writesOf(o, e.text),
          };
    }
    case 'recalled': {
      const found = recallStep(o, decl, e);
      return found === false
        ? {
            why: `recall for the unique token "${e.text}" just stored does not return it`,
            calls: [...writesOf(o, e.text).filter((c) => !c.stage.endsWith(`:${e.step}`)), ...callsOfStep(o, e.step)],
          }
        : undefined;
    }
  }
}

/**
 * Why a case's kills did not all happen, if they did not: every expectation of such a case is
 * about the state after a kill that was not made, so none is judged (never clean, never flagged).
 */
function killsMissed(o: CaseOutcome): string | undefined {
  for (const s of leafSteps(o.fuzzCase.steps)) {
    if (s.op !== 'kill') continue;
    const k = o.kills.get(s.n);
    if (!k?.happened) return `the kill at step ${s.n} did not happen (${k?.how ?? 'the case ended before it'})`;
  }
  return undefined;
}

function checkClaims(o: CaseOutcome, decl: TargetDecl, assumed: string[]): Finding[] {
  const findings: Finding[] = [];
  const missed = o.fuzzCase.expects.length ? killsMissed(o) : undefined;
  if (missed) {
    claimUnjudged(o, `crash checks: ${missed}`);
    return [];
  }
  for (const e of o.fuzzCase.expects) {
    // an acknowledged write is a promise on every target: it survives a kill, claim or not
    if (e.kind === 'survives') {
      let b: ReturnType<typeof broken>;
      try {
        b = broken(o, e, decl);
      } catch (err) {
        claimUnjudged(o, `durability: the store could not be read after the kill: ${messageOf(err)}`);
        continue;
      }
      if (b)
        findings.push({
          check: 'lost-write',
          reason: `acknowledged a write, but ${b.why}`,
          calls: b.calls.slice(0, 5).map(callRef),
          expectation: e,
        });
      continue;
    }
    const stated = (decl.claims as string[]).includes(e.claim);
    // a declared op keeps its own meaning whatever the claims: a forget forgets, an update replaces
    const own = e.op !== undefined && decl.ops[e.op] !== undefined;
    if (!stated && !own && !assumed.includes(e.claim)) continue;
    let b: ReturnType<typeof broken>;
    try {
      b = broken(o, e, decl);
    } catch {
      continue; // a store too damaged to read: the integrity check reports it
    }
    if (!b) continue;
    const check: CheckName = e.claim === 'recall' ? 'recall-miss' : 'broken-claim';
    const who = stated
      ? `claims ${e.claim}`
      : own
        ? `declares ${e.op} (which must ${e.op === 'forget' ? 'forget' : 'replace'}, claim or not)`
        : `assumed to keep ${e.claim} (--assume-claim)`;
    findings.push({
      check,
      claim: e.claim,
      reason: `${who}, but ${b.why}`,
      calls: b.calls.slice(0, 5).map(callRef),
      expectation: e,
    });
  }
  return findings;
}

function checkNetwork(o: CaseOutcome): Finding[] {
  if (!o.network.length) return [];
  const hosts = [...new Set(o.network.map((n) => `${n.host}${n.port ? `:${n.port}` : ''} (${n.via})`))];
  return [
    {
      check: 'network',
      reason: `the network guard refused ${o.network.length} attempt(s) to reach ${hosts.join(', ')}`,
      calls: [],
    },
  ];
}

/**
 * Every structural check over one case's outcome. None judges correctness beyond the MCP contract
 * and the target's own claims. Latency is judged, not recorded: the caller records the case's
 * samples (`LatencyHistory.record`) once it has judged any rerun against the same history.
 */
export function runChecks(
  o: CaseOutcome,
  decl: TargetDecl,
  latency: LatencyHistory,
  settings: Pick<CheckSettings, 'assumeClaims'> = {},
): Finding[] {
  return [
    ...checkFailure(o),
    ...checkShutdown(o),
    ...checkProtocol(o),
    ...checkToolErrors(o),
    ...checkIntegrity(o, decl),
    ...checkClaims(o, decl, settings.assumeClaims ?? []),
    ...checkNetwork(o),
    ...latency.check(o.fuzzCase.recipe, o.calls, o.unjudged),
  ];
}

/** Two flags are the same flag when the same checks (and claims) fired. */
export function signature(findings: Finding[]): string {
  return [...new Set(findings.map((f) => (f.claim ? `${f.check}:${f.claim}` : f.check)))].sort().join(',');
}

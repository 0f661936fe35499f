import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidence, type Evidence } from '../evidence/build.js';
import { isToolCall, readCalls, type CallRecord } from '../mcp/calls-log.js';
import { readNetworkLog, type NetworkAttempt } from '../fixture/netguard.js';
import { JsonlError } from '../util/jsonl.js';
import { isTargetCode } from '../mcp/session.js';
import { runCell } from '../cell/cell.js';
import { scenarioSchema, type Scenario } from '../scenario/schema.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import type { Judgment } from '../judge/judgment.js';
import type { FuzzCase } from './case.js';
import { FAILURE_KIND, fuzzDriver, type Failure, type FuzzDriveState, type StepOutcome } from './driver.js';
import { messageOf } from '../util/errors.js';

export type { Failure, StepOutcome } from './driver.js';

/** Everything one case left behind, for the checks. The caller closes `evidence`. */
export interface CaseOutcome {
  fuzzCase: FuzzCase;
  target: string;
  cellDir: string;
  /** every tools/call of every session, in order; `stage` is `fuzz:<n>` for the step that made it */
  calls: CallRecord[];
  steps: Map<number, StepOutcome>;
  failure?: Failure;
  /** how the server failed when memeval stopped it: a crash at shutdown, a store lost at exit */
  shutdown: string[];
  shutdownStderr?: string;
  protocolErrors: string[];
  network: NetworkAttempt[];
  toolSchemas: Map<string, Record<string, unknown>>;
  /** steps that used an id memeval had to guess (its capture_id did not match): their refusals are not the target's */
  guessedIds: number[];
  evidence?: Evidence;
  /** what a check could not judge (a file it could not read, no latency history): never a pass, never a flag */
  unjudged: string[];
  /** those of them a claim check could not judge (also in `unjudged`): the case says nothing about that claim */
  unjudgedClaims: string[];
  /** the cell's `absent` judgments, by text (see caseScenario) */
  absent: Map<string, Judgment>;
  /** a problem of the harness or the declaration, never a flag against the target */
  harnessError?: string;
  ms: number;
}

/** What runs a generated case through a target. */
export interface FuzzRunner {
  run(c: FuzzCase, cellDir: string, signal?: AbortSignal): Promise<CaseOutcome>;
}

export interface RunnerOptions {
  decl: TargetDecl;
  bin: ResolvedBin;
  keepFixtures?: boolean;
}

/** The guard notes an attempt before refusing it: a torn last note is still an attempt, host unknown. */
function readNetwork(file: string): NetworkAttempt[] {
  const { records, torn } = readNetworkLog(file);
  return torn === undefined ? records : [...records, { host: '(note torn)', port: null, via: 'unknown' }];
}

/** The name of the `absent` assertion a case's absent expectation of `text` runs as. */
export const absentName = (text: string): string => `absent ${JSON.stringify(text)}`;

/**
 * The scenario shell a fuzz cell runs in: its files, no setup memories, and one `absent`
 * assertion per text the case expects absent, so the cell's judge stage looks where `absent`
 * looks (the store's rows, every table column, raw bytes, and the files beside the store, read
 * while the fixture exists). The other checks judge from the evidence.
 */
function caseScenario(c: FuzzCase): Scenario {
  const absentTexts = [...new Set(c.expects.flatMap((e) => (e.kind === 'absent' ? [e.text] : [])))];
  return {
    schema_version: 1,
    id: `fuzz-${c.recipe}-${c.fingerprint}`,
    title: `fuzz case ${c.fingerprint}`,
    description: `recipe ${c.recipe}: ${c.ingredients.join(', ')}`,
    tags: ['fuzz'],
    // the schema's own defaults fill whatever else a setup has (so new setup fields need no change here)
    setup: scenarioSchema.shape.setup.parse({ files: c.files }),
    deterministic: { well_behaved: [], violation: null },
    real_model: null,
    assertions: absentTexts.map((text) => ({
      kind: 'absent' as const,
      name: absentName(text),
      phase: 'both' as const,
      text,
      case_sensitive: true,
    })),
  };
}

/** Runs each case as one cell of the shared lifecycle (fresh fixture, recording point, network guard, snapshot, evidence). */
export class CellRunner implements FuzzRunner {
  constructor(private readonly o: RunnerOptions) {}

  async run(c: FuzzCase, cellDir: string, signal?: AbortSignal): Promise<CaseOutcome> {
    const t0 = performance.now();
    mkdirSync(cellDir, { recursive: true });
    writeFileSync(join(cellDir, 'case.json'), JSON.stringify(c, null, 2));
    const state: FuzzDriveState = { steps: new Map(), protocolErrors: [], toolSchemas: new Map(), guessedIds: [] };
    const scenario = caseScenario(c);
    const result = await runCell({
      cellId: `${scenario.id}/${this.o.decl.name}/fuzz-${c.fingerprint}`,
      scenario,
      decl: this.o.decl,
      bin: this.o.bin,
      driver: fuzzDriver(c, state),
      cellDir,
      keep: this.o.keepFixtures ?? false,
      signal,
    });
    const out: CaseOutcome = {
      fuzzCase: c,
      target: this.o.decl.name,
      cellDir,
      calls: readCalls(join(cellDir, 'calls.jsonl')).filter(isToolCall),
      steps: state.steps,
      failure: state.failure,
      shutdown: result.shutdown ?? [],
      shutdownStderr: result.shutdown?.length ? result.stderr_tail : undefined,
      protocolErrors: state.protocolErrors,
      network: [],
      toolSchemas: state.toolSchemas,
      guessedIds: state.guessedIds,
      unjudged: [],
      unjudgedClaims: [],
      absent: new Map(
        c.expects.flatMap((e) => {
          const j = e.kind === 'absent' ? result.assertions.find((a) => a.name === absentName(e.text)) : undefined;
          return j && e.kind === 'absent' ? [[e.text, j] as const] : [];
        }),
      ),
      ms: 0,
    };
    const hasEvidence = existsSync(join(cellDir, 'evidence.db'));
    // with evidence the cell's own verdict does not matter (a fuzz cell has no assertions): the checks judge
    if (state.harnessError) out.harnessError = state.harnessError;
    else if (result.verdict === 'skipped') out.harnessError = 'interrupted';
    else if (result.verdict === 'error' && !hasEvidence && !out.failure) {
      // the lifecycle itself failed: the server did not start (the target's failure), or its store is missing or unreadable
      if (isTargetCode(result.error_code))
        out.failure = {
          kind: FAILURE_KIND[result.error_code],
          message: result.reason,
          stderr: result.stderr_tail ?? '',
        };
      else out.harnessError = result.reason;
    }
    try {
      out.network = readNetwork(join(cellDir, 'network.jsonl'));
    } catch (e) {
      if (!(e instanceof JsonlError)) throw e;
      out.harnessError ??= `network log: ${e.message}`; // a damaged log may hide an attempt: the network check cannot run
    }
    try {
      if (hasEvidence) out.evidence = openEvidence(cellDir);
    } catch (e) {
      out.harnessError ??= `evidence: ${messageOf(e)}`;
    }
    out.ms = Math.round(performance.now() - t0);
    return out;
  }
}

import { join } from 'node:path';
import type { AgentRunInfo, CellResult } from '../core/results.js';
import { taxonomyOf } from '../core/taxonomy.js';
import type { Driver, Sessions } from '../drive/types.js';
import { isolationWarnings } from '../util/isolation.js';
import { refusalWarnings } from '../fixture/netguard.js';
import { networkWarning } from '../fixture/sandbox.js';
import { failsRun } from '../judge/verdict.js';
import { NOISE_FILE, noiseWarnings } from '../mcp/noise.js';
import { TargetError } from '../mcp/session.js';
import type { Scenario } from '../scenario/schema.js';
import { RestartAfterKillError } from './sessions.js';
import type { TargetDecl } from '../targets/schema.js';
import { Interrupted, MemevalError, messageOf } from '../util/errors.js';
import type { StageClock } from './clock.js';
import type { CellTrail } from './trail.js';

/** How a cell ended: its verdict, and what the stage that decided it has to show. */
export type Outcome = Pick<CellResult, 'verdict' | 'reason'> &
  Partial<
    Pick<
      CellResult,
      'assertions' | 'stderr_tail' | 'error_code' | 'agent' | 'verdict_input' | 'judge_input' | 'evidence_sha256'
    >
  >;

/** The fields of a cell result known before the cell runs. */
export type CellBase = Pick<
  CellResult,
  | 'cell_id'
  | 'scenario'
  | 'target'
  | 'target_version'
  | 'phase'
  | 'driver'
  | 'defence'
  | 'cell_dir'
  | 'tags'
  | 'taxonomy'
> & { claimed: boolean };

export function cellBase(
  cellId: string,
  scenario: Scenario,
  decl: TargetDecl,
  version: string,
  driver: Driver,
  cellDir: string,
): CellBase {
  const violation = driver.judgedAs === 'violation' ? scenario.deterministic.violation : undefined;
  const defence = violation?.defence;
  const taxonomy = taxonomyOf(scenario.tags);
  return {
    cell_id: cellId,
    scenario: scenario.id,
    ...(scenario.tags.length ? { tags: scenario.tags } : {}),
    ...(taxonomy.length ? { taxonomy } : {}),
    target: decl.name,
    target_version: version,
    phase: driver.phase,
    driver: driver.kind,
    defence,
    // a claimed defence that is only detected fails the run, but only where the violation could
    // be defended: under `detect` it has no write a server could refuse (an agent that never
    // called forget), so a correct server that claims it would fail for what no server can do
    claimed:
      defence !== undefined &&
      violation?.expectation === 'defend-or-detect' &&
      ((decl.claims as string[]).includes(defence) || violation.assume_claim === true),
    cell_dir: cellDir,
  };
}

/**
 * A cell that threw: `skipped` when the run was interrupted, else `error` with the target's
 * stderr if it has one. A server that did not start again after a kill step killed it is the
 * target failing what the well-behaved phase checks: that cell is `fail`, with why.
 */
export function failedOutcome(
  e: unknown,
  o: { signal?: AbortSignal; sessions?: Sessions; agent?: AgentRunInfo; judgedAs?: Driver['judgedAs'] },
): Outcome {
  const interrupted = e instanceof Interrupted || Boolean(o.signal?.aborted);
  if (!interrupted && e instanceof RestartAfterKillError && o.judgedAs === 'well-behaved')
    return { verdict: 'fail', reason: e.message, stderr_tail: e.stderrTail || undefined, agent: o.agent };
  return {
    verdict: interrupted ? 'skipped' : 'error',
    reason: interrupted ? 'run interrupted' : messageOf(e),
    error_code: !interrupted && e instanceof MemevalError ? e.code : undefined,
    stderr_tail:
      (e instanceof TargetError || e instanceof RestartAfterKillError
        ? e.stderrTail
        : o.sessions?.current()?.stderr()) || undefined,
    agent: o.agent,
  };
}

/**
 * The cell result: the outcome, what the cell left on its way (steps, servers, fixture), and
 * the warnings of the whole cell: the network guard, refused hosts, stdout noise, isolation,
 * then the lifecycle's own, how servers stopped, and teardown failures.
 */
export function cellResult(
  base: CellBase,
  r: Outcome,
  clock: StageClock,
  trail: CellTrail,
  teardownFailures: string[] = [],
): CellResult {
  const network = trail.network && networkWarning(trail.network, base.target);
  return {
    ...base,
    verdict: r.verdict,
    reason: r.reason,
    fails_run: failsRun(r.verdict, base.claimed),
    steps: trail.steps,
    ...(trail.storeSql ? { store_sql: trail.storeSql } : {}),
    assertions: r.assertions ?? [],
    fixture: trail.fixture,
    // only where the fixture it lives in was kept
    ...(trail.keptStore && trail.fixture !== 'removed' && trail.fixture !== 'not created'
      ? { kept_store: trail.keptStore }
      : {}),
    stderr_tail: r.stderr_tail,
    ...(r.error_code ? { error_code: r.error_code } : {}),
    network: trail.network,
    warnings: [
      ...(network ? [network] : []),
      ...refusalWarnings(join(base.cell_dir, 'network.jsonl')),
      ...noiseWarnings(join(base.cell_dir, NOISE_FILE)),
      ...isolationWarnings(),
      ...trail.warnings,
      ...trail.shutdown.map((p) => `shutdown: ${p}`),
      ...teardownFailures.map((f) => `teardown: ${f}`),
    ],
    duration_ms: clock.totalMs(),
    server_start_ms: trail.serverStartMs.length ? trail.serverStartMs : undefined,
    timings_ms: clock.laps,
    ...(trail.shutdown.length ? { shutdown: trail.shutdown } : {}),
    ...(trail.clock ? { clock: trail.clock } : {}),
    ...(r.agent ? { agent: r.agent } : {}),
    ...(r.verdict_input
      ? { verdict_input: r.verdict_input, judge_input: r.judge_input, evidence_sha256: r.evidence_sha256 }
      : {}),
  };
}

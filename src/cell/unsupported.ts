import type { Driver } from '../drive/types.js';
import { providerUnsupported } from '../model/provider/cell.js';
import { missingOps, opsNeeded } from '../ops/ops.js';
import { namedTools, reads, withMembers } from '../scenario/kinds.js';
import type { Scenario } from '../scenario/schema.js';
import { storeSqlUnsupported } from '../scenario/store-sql.js';
import { commandUnsupported } from './command.js';
import { modelUnsupported, storeUnsupported } from '../targets/applicability.js';
import type { TargetDecl } from '../targets/schema.js';
import { clockUnsupported } from './wall-clock.js';

/** Why this cell cannot run on this target, decided before anything starts (none: it can). */
export function unsupportedReason(
  scenario: Scenario,
  decl: TargetDecl,
  driver: Driver,
  /** the package bin the server starts from, when resolved: a bin that is not JavaScript is not a Node server */
  binFile?: string,
): string | undefined {
  const lacking = missingOps(decl, opsNeeded(scenario, driver.steps));
  return (
    driver.unsupported?.() ??
    (lacking.length ? `target lacks op(s): ${lacking.join(', ')}` : undefined) ??
    providerUnsupported(scenario, decl) ??
    storeUnsupported(scenario, decl) ??
    storeSqlUnsupported(scenario, decl.name, decl.store.format) ??
    clockUnsupported(scenario, decl, driver, binFile) ??
    killUnsupported(scenario, driver) ??
    modelUnsupported(scenario, decl) ??
    commandUnsupported(withMembers(scenario.assertions), decl) ??
    toolsUnsupported(scenario, decl)
  );
}

/**
 * A judge that counts calls of a tool by its name (`called` `tool`) says nothing on a target
 * that declares no such tool: memeval's steps call only the declared ones, so the count would be
 * 0 by construction (a fail of a correct server, or a defence of one that did nothing).
 */
function toolsUnsupported(scenario: Scenario, decl: TargetDecl): string | undefined {
  const declared = new Set(Object.values(decl.ops).flatMap((calls) => (calls ?? []).map((c) => c.tool)));
  const missing = namedTools(scenario.assertions).filter((t) => !declared.has(t));
  return missing.length
    ? `a called assertion counts calls of tool(s) ${missing.join(', ')}, which target ${decl.name} does not declare (its tools: ${[...declared].join(', ') || 'none'}); the tool names one server's tools`
    : undefined;
}

/**
 * The agent layer cannot run a kill step: an agent decides its own calls, so memeval cannot put
 * a kill between them (nor after an answer the agent has not yet seen), and a kill op for agents
 * is not needed: what a kill does to the store is the server's, the same under any client. A
 * `durable` judge reads memeval's own record of the writes it issued, which an agent's phase
 * does not have.
 */
function killUnsupported(scenario: Scenario, driver: Driver): string | undefined {
  if (driver.kind !== 'agent') return undefined;
  const { well_behaved, violation } = scenario.deterministic;
  if ([...well_behaved, ...(violation?.steps ?? [])].some((s) => s.op === 'kill'))
    return 'the scenario kills the server at a point among its calls, which the agent layer cannot place among an agent’s own calls (the deterministic layer runs it)';
  if (withMembers(scenario.assertions).some((a) => reads(a, 'writes')))
    return "a durable assertion reads memeval's record of the writes it issued, and in the agent layer the agent issues them";
  return undefined;
}

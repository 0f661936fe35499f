import type { Driver } from '../drive/types.js';
import { providerUnsupported } from '../model/provider/cell.js';
import { missingOps, opsNeeded } from '../ops/ops.js';
import { namedTools, withMembers } from '../scenario/kinds.js';
import { agentLayerUnsupported } from '../scenario/kill-checks.js';
import type { Scenario } from '../scenario/schema.js';
import { usesNamespace } from '../scenario/step-ops.js';
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
    (driver.kind === 'agent' ? agentLayerUnsupported(scenario) : undefined) ??
    modelUnsupported(scenario, decl) ??
    commandUnsupported(withMembers(scenario.assertions), decl) ??
    toolsUnsupported(scenario, decl) ??
    namespaceUnsupported(scenario, decl, driver)
  );
}

/**
 * Steps that write to or search in a namespace (a project) say nothing on a target whose
 * remember and recall take none, or through an agent: every step would go to one store, so a
 * leak between projects could be neither shown nor ruled out.
 */
function namespaceUnsupported(scenario: Scenario, decl: TargetDecl, driver: Driver): string | undefined {
  const steps = [
    ...scenario.setup.steps,
    ...scenario.deterministic.well_behaved,
    ...(scenario.deterministic.violation?.steps ?? []),
  ];
  if (!usesNamespace(steps)) return undefined;
  // an agent fills its own tool arguments: no step's project reaches its calls
  if (driver.kind === 'agent')
    return 'the scenario writes to and searches in namespaces (projects), which the agent layer cannot place in an agent’s own calls';
  const takes = (op: 'remember' | 'recall') => /\{\{\s*namespace\s*\}\}/.test(JSON.stringify(decl.ops[op] ?? []));
  return takes('remember') && takes('recall')
    ? undefined
    : `the scenario writes to and searches in namespaces (projects), and target ${decl.name} declares none: its remember and recall calls take no {{namespace}}`;
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

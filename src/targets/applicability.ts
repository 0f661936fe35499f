import type { Scenario } from '../scenario/schema.js';
import type { TargetDecl } from './schema.js';

/**
 * A `recall` assertion asks a server started after the phase. A target that keeps memories in
 * its process only (store.format none) forgets everything on exit, so such an assertion would
 * fail for a reason that is not the scenario's: the cell is `unsupported` instead (in-session
 * recall steps are still judged, through the calls log).
 */
export function storeUnsupported(scenario: Scenario, decl: TargetDecl): string | undefined {
  return decl.store.format === 'none' && scenario.assertions.some((a) => a.kind === 'recall')
    ? 'recall assertions ask a fresh server, and this target keeps memories in its process only (store.format none)'
    : undefined;
}

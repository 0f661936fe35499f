import { holdsOnEmptyRecall, probeQueries, reads, readsRecall, withMembers } from '../scenario/kinds.js';
import type { Scenario } from '../scenario/schema.js';
import type { TargetDecl } from './schema.js';

/**
 * A judge that reads a recall probe (recall, rank, llm over recall, in a jury or cascade too)
 * asks a server started after the phase. A target that keeps memories in its process only
 * (store.format none) forgets everything on exit. When memeval chose that (a server run with an
 * in-memory store), such an assertion would fail for a reason that is not the scenario's: the
 * cell is `unsupported` (in-session recall steps are still judged, through the calls log). When
 * the server forgets as its users run it (`store.forgets_on_exit`), forgetting is the finding:
 * probing assertions are judged, except one that holds when a recall finds nothing, which a
 * server that forgot everything passes without checking.
 */
export function storeUnsupported(scenario: Scenario, decl: TargetDecl): string | undefined {
  if (decl.store.format !== 'none') return undefined;
  if (withMembers(scenario.assertions).some((a) => reads(a, 'store-integrity')))
    return 'an integrity assertion checks the store on disk, and this target keeps memories in its process only (store.format none)';
  if (!probeQueries(scenario.assertions).length) return undefined;
  if (!decl.store.forgets_on_exit)
    return 'recall assertions ask a fresh server, and this target keeps memories in its process only (store.format none)';
  const probing = withMembers(scenario.assertions).filter((a) => probeQueries([a]).length);
  return probing.some(holdsOnEmptyRecall)
    ? 'a recall that must not find something asks a fresh server, and this target forgets everything on exit (store.forgets_on_exit): it would hold without checking anything'
    : undefined;
}

/**
 * The seeded embedding model (fixture.embedding_model) stands in for a real one so a server can
 * store offline; its cosines are not the real model's. A server whose search is a cosine
 * threshold tuned for its real model would find or miss for reasons of the stand-in, so a
 * declaration says so (`recall_unsupported`) and scenarios that judge a recall are `unsupported`.
 */
export function modelUnsupported(scenario: Scenario, decl: TargetDecl): string | undefined {
  const why = decl.fixture.embedding_model?.recall_unsupported;
  return why && scenario.assertions.some(readsRecall)
    ? `the scenario judges recall results, and this target's recall runs on memeval's stand-in embedding model: ${why}`
    : undefined;
}

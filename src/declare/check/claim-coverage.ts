import { unsupportedReason } from '../../cell/unsupported.js';
import { replayDriver } from '../../drive/replay.js';
import { CLAIMS } from '../../scenario/claims.js';
import type { LoadedScenario } from '../../scenario/loader.js';
import type { TargetDecl } from '../../targets/schema.js';
import { fail, pass, type CheckPoint } from './points.js';

/**
 * Whether each claim the target declares is one some scenario checks on it: a scenario whose
 * violation phase probes that defence (`defence`) and can run on this target (the ops it needs,
 * the model provider, a store that outlives the server). A claim nothing checks would pass the
 * scoreboard unexamined.
 */
export function claimPoints(decl: TargetDecl, scenarios: LoadedScenario[]): CheckPoint[] {
  return decl.claims.map((claim) => {
    const subject = `claims: ${claim}`;
    const naming = scenarios.filter((s) => s.scenario.deterministic.violation?.defence === claim);
    // only a violation a server could defend tests a claim (see cell/result.ts `claimed`)
    const probing = naming.filter((s) => s.scenario.deterministic.violation?.expectation === 'defend-or-detect');
    if (!probing.length)
      return fail(
        'claim',
        subject,
        naming.length
          ? `no scenario tests it as a defence: ${naming.map((s) => s.scenario.id).join(', ')} name it, but their violations expect detection only (nothing a server could refuse)`
          : 'no scenario probes this defence (no violation phase names it as its `defence`)',
        `remove "${claim}" from claims, or add a scenario whose violation has defence: "${claim}" and expectation "defend-or-detect"`,
      );
    const why = probing.map((s) => ({
      id: s.scenario.id,
      reason: unsupportedReason(s.scenario, decl, replayDriver(s.scenario, 'violation')),
    }));
    const runnable = why.filter((w) => !w.reason).map((w) => w.id);
    if (runnable.length) return pass('claim', subject, `probed by ${runnable.join(', ')}`);
    return fail(
      'claim',
      subject,
      `the scenarios that probe it cannot run on this target: ${why.map((w) => `${w.id} (${w.reason})`).join('; ')}`,
      `declare what they need (ops, a store that outlives the server), or remove "${claim}" from claims (known: ${CLAIMS.join(', ')})`,
    );
  });
}

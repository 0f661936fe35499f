import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildEvidence, toolToOp, type BuiltEvidence } from '../evidence/build.js';
import type { AgentRunInfo, KillRecord } from '../core/results.js';
import type { WriteRecord } from '../ops/writes.js';
import type { Fixture } from '../fixture/fixture.js';
import { isToolCall, readCalls, type CallRecord } from '../mcp/calls-log.js';
import type { ProviderHandle } from '../model/provider/cell.js';
import type { TargetDecl } from '../targets/schema.js';
import type { StoreSqlRecord } from '../core/results.js';
import type { Teardown } from './teardown.js';
import { writes } from '../scenario/step-ops.js';
import { readRecallCall } from '../ops/recall.js';

export interface CollectedEvidence {
  evidence: BuiltEvidence;
  /** the cell's calls log as recorded: seeding, setup steps, the phase */
  calls: CallRecord[];
}

/**
 * Once every server has stopped: the evidence judges read (a copy of the store taken after the
 * server exited, its canonical views, the calls, and what the phase asked the model provider).
 * A store missing after accepted writes is not an empty store: that is returned as a problem.
 */
export function collectEvidence(
  o: {
    decl: TargetDecl;
    storePath: string;
    fixture: Fixture;
    cellDir: string;
    callsLog: string;
    provider?: ProviderHandle;
    /** setup.store_sql as it ran, kept as the table store_sql */
    storeSql?: StoreSqlRecord[];
    /** an agent cell's run: its spend per prompt goes into agent_usage */
    agent?: AgentRunInfo;
    /** every write op memeval issued and how it was answered (the `writes` table) */
    writes?: WriteRecord[];
    /** the kill steps that ran, with the store's size when each began */
    kills?: (KillRecord & { index: number; stage: string })[];
  },
  teardown: Teardown,
): CollectedEvidence | { problem: string } {
  const calls = readCalls(o.callsLog);
  // a store that was there when a kill step killed its server and is gone now: the target lost
  // it (the integrity judge observes that), not a declaration pointing at the wrong file
  const seen = o.kills?.find((k) => k.store_bytes.before !== null);
  const gone =
    seen &&
    `the store is gone: it held ${seen.store_bytes.before} bytes when the kill step (${seen.stage} step ${seen.index}) began, and server session ${seen.session} was killed by ${seen.signal}`;
  const problem = gone || existsSync(o.storePath) ? undefined : missingStore(o.decl, o.storePath, o.fixture, calls);
  if (problem) return { problem };
  const opOf = toolToOp(o.decl);
  // judges that read what a recall answered read it as the declaration itemises it (result_items)
  const rows = calls.map((c) =>
    isToolCall(c) && (c.op ?? opOf.get(c.tool)) === 'recall' ? { ...c, recall: readRecallCall(o.decl, c) } : c,
  );
  // provider_calls holds what the phase asked; the recall probe asks the provider too, later
  const evidence = buildEvidence(
    o.decl,
    o.storePath,
    o.cellDir,
    rows,
    o.provider ? [...o.provider.calls()] : undefined,
    o.storeSql,
    o.agent,
    { writes: o.writes, gone },
  );
  teardown.add('close evidence', () => evidence.close());
  return { evidence, calls };
}

/**
 * A store that does not exist after calls that wrote to it is not an empty store: the
 * declaration points at the wrong file, or the server kept nothing. Names what does exist.
 */
function missingStore(decl: TargetDecl, storePath: string, fixture: Fixture, calls: CallRecord[]): string | undefined {
  if (decl.store.format === 'none' || existsSync(storePath)) return undefined;
  const opOf = toolToOp(decl);
  const accepted = calls.filter((c) => isToolCall(c) && !c.is_error && writes(c.op ?? opOf.get(c.tool))).length;
  if (!accepted) return undefined;
  const found = listFiles(fixture.data, 40).map((f) => relative(fixture.root, f));
  return `store ${storePath} does not exist after ${accepted} accepted write call(s); files in the data dir: ${found.length ? found.join(', ') : 'none'} (check store.path in the target declaration)`;
}

/** Up to `max` files under `dir`, depth first. */
export function listFiles(dir: string, max: number): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (out.length >= max) return;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}

import { readCalls } from '../mcp/calls-log.js';
import { replaySteps } from '../drive/replay.js';
import type { CellEnv } from '../drive/types.js';
import { seedMemories, type MemoryHandle } from '../ops/ops.js';
import { missingSeeds } from './seed-check.js';
import type { CellTrail } from './trail.js';

/**
 * Seed `setup.memories` through the target's real write path and check they are really in the
 * store, then run `setup.steps` (searches that build a retrieval history, …), recorded as setup.
 * Returns the memories as setup left them, or why the setup did not hold (the cell is `error`).
 */
export async function seed(
  env: Omit<CellEnv, 'handles'>,
  storePath: string,
  trail: CellTrail,
): Promise<{ handles: Map<string, MemoryHandle> } | { problem: string }> {
  const { scenario, decl, sessions, cellDir, callsLog } = env;
  const handles = new Map<string, MemoryHandle>();
  // a driver starts the server when it first needs it: a phase with nothing to do starts none
  if (scenario.setup.memories.length) {
    await seedMemories(await sessions.start(), decl, scenario.setup.memories, handles, trail.steps, trail.writes);
    const seeds = scenario.setup.memories.map((m) => ({ ref: m.ref, handle: handles.get(m.ref)! }));
    let missing = missingSeeds(decl, storePath, seeds, cellDir, readCalls(callsLog));
    if (missing.length) {
      // a server may write its store only on exit: look again once it has stopped
      await sessions.stop();
      missing = missingSeeds(decl, storePath, seeds, cellDir, readCalls(callsLog));
      if (missing.length)
        return { problem: missing.map((ref) => `setup memory "${ref}" was not stored by the target`).join('; ') };
      trail.warnings.push(
        'the store held the setup memories only after the server exited; the phase runs in a new server session',
      );
    }
  }
  return {
    handles: scenario.setup.steps.length
      ? await replaySteps({ ...env, handles }, scenario.setup.steps, 'setup')
      : handles,
  };
}

import { closeSync, openSync, readSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Driver } from '../drive/types.js';
import type { Fixture } from '../fixture/fixture.js';
import { WallClock } from '../fixture/wall-clock.js';
import type { Scenario } from '../scenario/schema.js';
import type { TargetDecl } from '../targets/schema.js';

/** Does this cell run on a shifted clock: the scenario sets it, or a step it issues advances it? */
export function usesClock(scenario: Scenario, steps: Driver['steps']): boolean {
  return (
    scenario.setup.clock !== undefined || [...scenario.setup.steps, ...steps].some((s) => s.op === 'advance_clock')
  );
}

const isNodeCommand = (command: string) =>
  command === '{{node}}' || command === process.execPath || /^node(js)?(\.exe)?$/.test(basename(command));

/** A bin memeval starts with node (a .js file), or a script whose #! line runs node. */
function isNodeScript(file: string): boolean {
  if (/\.(c|m)?js$/.test(file)) return true;
  try {
    const fd = openSync(file, 'r');
    const head = Buffer.alloc(128);
    const n = readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    const line = head.subarray(0, n).toString('utf8').split('\n')[0]!;
    return line.startsWith('#!') && /\bnode(js)?\b/.test(line);
  } catch {
    return false;
  }
}

/**
 * Why a clock scenario cannot run here: the clock is a Node preload, so a server that is not
 * started as a Node program (or through a shell whose children may not be) cannot be shifted;
 * and an agent decides its own calls, so no advance can be placed between them.
 */
export function clockUnsupported(
  scenario: Scenario,
  decl: TargetDecl,
  driver: Driver,
  binFile?: string,
): string | undefined {
  if (!usesClock(scenario, driver.steps)) return undefined;
  if (driver.kind === 'agent')
    return 'the scenario sets or advances the clock, which the agent layer cannot place between an agent’s own calls';
  const command = decl.server.command;
  if (command !== undefined && !isNodeCommand(command))
    return `the scenario sets or advances the clock, which memeval shifts in Node servers only (a preload), and this target starts "${command}"`;
  if (command === undefined && binFile !== undefined && !isNodeScript(binFile))
    return `the scenario sets or advances the clock, which memeval shifts in Node servers only (a preload), and this target's bin ${basename(binFile)} is neither JavaScript nor a script run by node`;
  return undefined;
}

/** The cell's clock, in the fixture (so it survives restarts), acknowledged into the cell dir. */
export function cellClock(
  scenario: Scenario,
  driver: Driver,
  fixture: Fixture,
  cellDir: string,
): WallClock | undefined {
  if (!usesClock(scenario, driver.steps)) return undefined;
  return new WallClock(
    join(fixture.root, 'clock', 'clock.json'),
    join(cellDir, 'clock-acks.jsonl'),
    scenario.setup.clock,
  );
}

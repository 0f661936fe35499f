import { homedir } from 'node:os';
import { join } from 'node:path';

/** The fuzz defaults `memeval fuzz --help` shows: kept apart from the checks so help loads neither SQLite nor the MCP SDK. */
export interface CheckSettings {
  /** claims to hold the target to although its declaration does not state them (`--assume-claim`) */
  assumeClaims?: string[];
  latencyFactor: number;
  latencyMinSamples: number;
  latencyFloorMs: number;
}

export const DEFAULT_CHECK_SETTINGS: CheckSettings = {
  latencyFactor: 1.5,
  latencyMinSamples: 10,
  latencyFloorMs: 1000,
};

/** Candidate runs a shrink may spend on one flagged case unless `--shrink` says otherwise. */
export const DEFAULT_SHRINK_RUNS = 20;

/** Why a flag was dismissed (`flags dismiss --reason`); a dismissal without one records no outcome. */
export const DISMISS_REASONS = ['false-positive', 'duplicate', 'expected'] as const;
export type DismissReason = (typeof DISMISS_REASONS)[number];

/** $XDG_STATE_HOME/memeval/flags.db (usually ~/.local/state/memeval/flags.db). */
export function defaultFlagsFile(): string {
  const state = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(state, 'memeval', 'flags.db');
}

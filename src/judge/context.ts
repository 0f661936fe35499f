import type { Evidence } from '../evidence/open.js';
import type { RecallResult } from '../ops/recall.js';
import type { FixtureFile, FixtureView } from './fixture-files.js';

/** What judges may read: the evidence, a recall probe run after the snapshot, the agent's answer. */
export interface JudgeContext {
  evidence: Evidence;
  recall?: (query: string) => Promise<RecallResult>;
  transcript?: string;
  /** the fixture, for `file` assertions */
  fixture?: FixtureView;
  /** files beyond the store that `absent` also scans (new project files, the agent's own memory files) */
  files?: FixtureFile[];
}

export function textMatch(hay: string, needle: string, caseSensitive: boolean): boolean {
  return caseSensitive ? hay.includes(needle) : hay.toLowerCase().includes(needle.toLowerCase());
}

export function clipText(t: string, n = 400): string {
  return t.length > n ? t.slice(0, n) + '…' : t;
}

import type { Evidence } from '../evidence/open.js';
import type { RecallResult } from '../ops/recall.js';

/** What judges may read: the evidence, a recall probe run after the snapshot, the agent's answer. */
export interface JudgeContext {
  evidence: Evidence;
  recall?: (query: string) => Promise<RecallResult>;
  transcript?: string;
}

export function textMatch(hay: string, needle: string, caseSensitive: boolean): boolean {
  return caseSensitive ? hay.includes(needle) : hay.toLowerCase().includes(needle.toLowerCase());
}

export function clipText(t: string, n = 400): string {
  return t.length > n ? t.slice(0, n) + '…' : t;
}

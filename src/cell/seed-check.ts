import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { snapshotStore, workingCopy, writeCallsTable } from '../evidence/build.js';
import type { CallRecord } from '../mcp/calls-log.js';
import type { MemoryHandle } from '../ops/ops.js';
import type { TargetDecl } from '../targets/schema.js';

const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Share of the seed's words a row carries: a redactor may mask a secret, not replace the memory. */
function overlap(seed: Set<string>, row: string): number {
  if (!seed.size) return 0;
  const r = words(row);
  let n = 0;
  for (const w of seed) if (r.has(w)) n++;
  return n / seed.size;
}

/**
 * Whether one of these live rows is the memory: it carries the text, or, for a row the target
 * named by the id it returned, most of its words (a redactor may mask part of it).
 */
export function holdsMemory(rows: { id: unknown; content: unknown }[], handle: MemoryHandle): boolean {
  const seedWords = words(handle.content);
  const needle = handle.content.toLowerCase();
  return rows.some((r) => {
    const content = String(r.content ?? '');
    if (content.toLowerCase().includes(needle)) return true;
    const sameId = handle.id !== '' && handle.id !== handle.key && String(r.id) === handle.id;
    return overlap(seedWords, content) >= (sameId ? 0.5 : 0.8);
  });
}

/**
 * The setup memories that are not in the store: a live row must carry the seed's text, or, for a
 * row the target named by the id it returned, most of its words (a redactor may mask part of it).
 * A target that answers "stored" and keeps nothing, or files the seed as a "duplicate" of an
 * unrelated memory, would otherwise leave the scenario judged on a fixture it does not describe.
 */
export function missingSeeds(
  decl: TargetDecl,
  storePath: string,
  seeds: { ref: string; handle: MemoryHandle }[],
  scratchDir: string,
  /** the calls so far: the memories view of a store-less target (store.format none) reads them */
  calls: CallRecord[] = [],
): string[] {
  if (!seeds.length) return [];
  if (decl.store.format !== 'none' && !existsSync(storePath)) return seeds.map((s) => s.ref);
  const tmp = mkdtempSync(join(scratchDir, 'seed-check-'));
  try {
    const pristine =
      decl.store.format === 'none' ? [] : snapshotStore(storePath, join(tmp, 'store'), decl.store.format);
    const db = new Database(':memory:');
    let rows: { id: unknown; content: unknown }[];
    try {
      db.prepare('ATTACH DATABASE ? AS store').run(workingCopy(decl, storePath, pristine, join(tmp, 'work')));
      if (decl.store.format === 'none') writeCallsTable(db, decl, calls);
      db.exec(`CREATE TEMP VIEW memories AS ${decl.views.memories}`);
      rows = db.prepare('SELECT id, content FROM memories WHERE coalesce(is_deleted, 0) = 0').all() as {
        id: unknown;
        content: unknown;
      }[];
    } finally {
      db.close();
    }
    return seeds.filter(({ handle }) => !holdsMemory(rows, handle)).map((s) => s.ref);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sha256File as sha256 } from '../util/file-hash.js';
import { EVIDENCE_DB } from './open.js';

/** The folders of a cell's evidence that hold the store: pristine copies, and the working copy judges read. */
const STORE_DIRS = ['store', 'work'];

/**
 * Files a reader makes or rewrites without changing what is read: SQLite's shared-memory index
 * (any reader of a WAL store rewrites it), and an empty write-ahead log (a read-only reader of
 * a WAL store creates one).
 */
function readerMade(dir: string, name: string): boolean {
  return name.endsWith('-shm') || (name.endsWith('-wal') && statSync(join(dir, name)).size === 0);
}

function storeFiles(cellDir: string): string[] {
  return STORE_DIRS.flatMap((sub) => {
    const dir = join(cellDir, sub);
    return existsSync(dir)
      ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
          // a files store's copy keeps its folders
          .filter((f) => statSync(join(dir, f)).isFile() && !readerMade(dir, f))
          .sort()
          .map((f) => `${sub}/${f}`)
      : [];
  });
}

/**
 * sha256 of every file judges read, by path relative to the cell dir: evidence.db (the calls
 * and the views), the pristine store copies and the working copy. Taken when the evidence is
 * written, before any judge opens it.
 */
export function hashEvidence(cellDir: string): Record<string, string> {
  return Object.fromEntries([EVIDENCE_DB, ...storeFiles(cellDir)].map((rel) => [rel, sha256(join(cellDir, rel))]));
}

export interface EvidenceCheck {
  /** files whose bytes differ from the hash taken when they were written, or that were added since */
  changed: string[];
  /** files hashed then that no longer exist */
  gone: string[];
}

/** Compare a cell's evidence files with their hashes from when they were written. */
export function checkEvidence(cellDir: string, hashes: Record<string, string>): EvidenceCheck {
  const changed: string[] = [];
  const gone: string[] = [];
  for (const [rel, h] of Object.entries(hashes)) {
    const file = join(cellDir, rel);
    if (!existsSync(file)) gone.push(rel);
    else if (sha256(file) !== h) changed.push(rel);
  }
  for (const rel of storeFiles(cellDir)) if (!Object.hasOwn(hashes, rel)) changed.push(`${rel} (added)`);
  return { changed, gone };
}

import { existsSync, readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { BUILTIN_TARGETS, HOSTILE_DIR, REFERENCE_DIR } from '../util/paths.js';

// only the file system: help text lists these without loading the declarations' checks (SQLite)
export const TARGET_EXTENSIONS = ['.json5', '.json'];

export function targetFiles(dir = BUILTIN_TARGETS): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => TARGET_EXTENSIONS.includes(extname(f)))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * The declarations a target name finds: the built-in targets (what `all` runs), then memeval's
 * reference server (eval/reference/), which `all` leaves out: it is no npm package to score.
 */
export function namedTargetFiles(): string[] {
  return [...targetFiles(BUILTIN_TARGETS), ...targetFiles(REFERENCE_DIR)];
}

export function hostileTargetNames(): string[] {
  return targetFiles(HOSTILE_DIR).map((f) => basename(f, extname(f)));
}

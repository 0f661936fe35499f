import { existsSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { InputError, nearest } from '../util/errors.js';
import { parseWith, readJson5File } from '../util/json5-file.js';
import { BUILTIN_TARGETS } from '../util/paths.js';
import { checkOps } from './op-checks.js';
import { checkTargetWiring, targetSchema, type TargetDecl } from './schema.js';
import { checkTarget } from './checks.js';
import { namedTargetFiles, TARGET_EXTENSIONS, targetFiles } from './files.js';

export interface LoadedTarget {
  file: string;
  decl: TargetDecl;
}

export function loadTargetFile(file: string): LoadedTarget {
  const decl = parseWith(file, readJson5File(file), targetSchema);
  const stem = basename(file, extname(file));
  const problems = [...checkTargetWiring(decl), ...checkOps(decl), ...checkTarget(decl)];
  if (decl.name !== stem) problems.push(`name: "${decl.name}" must equal the file name "${stem}"`);
  if (problems.length) {
    const lines = problems.map((p) => `${file}: ${p}`);
    throw new InputError(lines.join('\n'), lines);
  }
  return { file, decl };
}

export function loadAllTargets(dir = BUILTIN_TARGETS): LoadedTarget[] {
  return targetFiles(dir).map(loadTargetFile);
}

/**
 * Resolve a target by name (or a path to a declaration file): a built-in target or the reference
 * server, or, given `dir`, a declaration in that folder only.
 */
export function loadTarget(nameOrFile: string, dir?: string): LoadedTarget {
  if (TARGET_EXTENSIONS.includes(extname(nameOrFile)) && existsSync(nameOrFile)) return loadTargetFile(nameOrFile);
  const files = dir === undefined ? namedTargetFiles() : targetFiles(dir);
  const match = files.find((f) => basename(f, extname(f)) === nameOrFile);
  if (!match) {
    const names = files.map((f) => basename(f, extname(f)));
    const guess = nearest(nameOrFile, names);
    throw new InputError(
      `--target: unknown target "${nameOrFile}"${guess ? ` (did you mean "${guess}"?)` : ''}; known: ${names.join(', ')}`,
    );
  }
  return loadTargetFile(match);
}

export { DEFAULT_TARGET } from '../core/config.js';

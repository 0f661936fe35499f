import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../util/paths.js';
import { targetInstallDir } from './cache.js';
import type { TargetDecl } from './schema.js';
import { MemevalError } from '../util/errors.js';

export interface ResolvedBin {
  /** the package dir holding package.json */
  packageDir: string;
  /** the file the bin points at */
  file: string;
  version: string;
}

export class NotInstalledError extends MemevalError {
  constructor(message: string) {
    super('NOT_INSTALLED', message);
  }
}

/** The node_modules dir a target's package lives in: memeval's own, or the cache. */
export function targetPrefix(pkg: NonNullable<TargetDecl['package']>, name: string): string {
  return pkg.source === 'dependency' ? dependencyPrefix(pkg.npm) : targetInstallDir(pkg, name);
}

/**
 * Where Node would find one of memeval's own dependencies: in memeval's node_modules in a
 * checkout, but hoisted beside memeval (<project>/node_modules) when memeval is installed
 * as a package.
 */
function dependencyPrefix(npm: string): string {
  for (let dir = PROJECT_ROOT; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', npm, 'package.json'))) return dir;
    if (dirname(dir) === dir) return PROJECT_ROOT;
  }
}

/** Is the target ready to start? A local command counts as installed. */
export function isInstalled(decl: TargetDecl): boolean {
  return (
    !decl.package || resolveBin(targetPrefix(decl.package, decl.name), decl.package.npm, decl.package.bin) !== undefined
  );
}

export function resolveBin(prefix: string, pkg: string, bin: string): ResolvedBin | undefined {
  const manifest = join(prefix, 'node_modules', pkg, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
    version: string;
    name: string;
    bin?: string | Record<string, string>;
  };
  const rel = typeof json.bin === 'string' ? json.bin : json.bin?.[bin];
  if (!rel) return undefined;
  const packageDir = dirname(manifest);
  return { packageDir, file: join(packageDir, rel), version: json.version };
}

/** `installHint`: how to install it, in the command the user ran (default: `targets install`, or `run --install`). */
export function resolveTargetBin(decl: TargetDecl, installHint?: string): ResolvedBin {
  if (!decl.package) return { packageDir: '', file: decl.server.command!, version: 'local' };
  const found = resolveBin(targetPrefix(decl.package, decl.name), decl.package.npm, decl.package.bin);
  if (!found) {
    const how =
      decl.package.source === 'dependency'
        ? 'run `npm install` in the memeval folder'
        : (installHint ?? `run \`memeval targets install ${decl.name}\` (or add --install to memeval run)`);
    throw new NotInstalledError(
      `target ${decl.name}: ${decl.package.npm}@${decl.package.version} is not installed; ${how}`,
    );
  }
  return found;
}

import { homedir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';

/**
 * Where `memeval targets install` and `memeval agents install` put packages: a per-user
 * cache, overridable with MEMEVAL_CACHE_DIR (or the --cache-dir flag, which sets it).
 */
export function cacheDir(): string {
  if (process.env.MEMEVAL_CACHE_DIR) return process.env.MEMEVAL_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'memeval');
}

export function packageInstallDir(kind: 'targets' | 'agents', name: string, version: string): string {
  return join(cacheDir(), kind, `${name}@${version}`);
}

/** What makes two installs of a target's package the same install (targets/schema.ts `package`). */
export interface TargetPackageKey {
  npm: string;
  version: string;
  extra?: string[];
  overrides?: Record<string, string>;
  omit_optional?: boolean;
  ignore_scripts?: boolean;
  install_env?: Record<string, string>;
  skip_build?: Record<string, string>;
  install_name?: string;
}

/**
 * A target's cache folder, keyed by what is installed, not by the declaration's name: renaming a
 * declaration (or a second one of the same package) finds the same install. `@scope/name@1.0.0`
 * becomes `@scope+name@1.0.0`; extras, overrides and install options that change what lands in
 * the folder add a short hash of them, so a different install never shares it. `install_name`
 * keeps naming the folder itself. A folder an earlier memeval keyed by declaration name
 * (`<name>@<version>`) is still used while the package-keyed one is absent, so nothing installed
 * before is installed again.
 */
export function targetInstallDir(pkg: TargetPackageKey, declName: string): string {
  if (pkg.install_name) return packageInstallDir('targets', pkg.install_name, pkg.version);
  const legacy = packageInstallDir('targets', declName, pkg.version);
  const variant = {
    extra: pkg.extra ?? [],
    overrides: pkg.overrides ?? {},
    omit_optional: pkg.omit_optional ?? false,
    ignore_scripts: pkg.ignore_scripts ?? false,
    install_env: pkg.install_env ?? {},
    skip_build: pkg.skip_build ?? {},
  };
  const plain =
    !variant.extra.length &&
    !variant.omit_optional &&
    !variant.ignore_scripts &&
    [variant.overrides, variant.install_env, variant.skip_build].every((o) => !Object.keys(o).length);
  const hash = plain ? '' : `-${createHash('sha256').update(JSON.stringify(variant)).digest('hex').slice(0, 10)}`;
  const keyed = join(cacheDir(), 'targets', `${pkg.npm.replace('/', '+')}@${pkg.version}${hash}`);
  return !existsSync(keyed) && existsSync(legacy) ? legacy : keyed;
}

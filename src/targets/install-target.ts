import { targetInstallDir } from './cache.js';
import { installPackage, type InstallResult } from './install.js';
import type { TargetDecl } from './schema.js';

/** Install a target's pinned package into the cache (dependency and local targets need nothing). */
export async function installTarget(decl: TargetDecl, log: (s: string) => void): Promise<InstallResult> {
  const pkg = decl.package;
  if (!pkg || pkg.source === 'dependency')
    return { label: decl.name, dir: pkg ? 'memeval dependency' : 'local command', status: 'already', ms: 0 };
  return installPackage(
    {
      label: decl.name,
      npm: pkg.npm,
      version: pkg.version,
      bin: pkg.bin,
      extra: pkg.extra,
      overrides: pkg.overrides,
      omitOptional: pkg.omit_optional,
      ignoreScripts: pkg.ignore_scripts,
      env: pkg.install_env,
      builds: pkg.ignore_scripts ? undefined : { skip: pkg.skip_build },
      dir: targetInstallDir(pkg, decl.name),
    },
    log,
  );
}

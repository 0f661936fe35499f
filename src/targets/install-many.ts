import chalk from 'chalk';
import { InstallError, type InstallResult } from './install.js';
import { installTarget } from './install-target.js';
import { loadAllTargets } from './loader.js';
import type { TargetDecl } from './schema.js';

/** Install each item in turn, report each, and fail once at the end listing every failure. */
export async function installMany<T>(
  items: T[],
  name: (x: T) => string,
  install: (x: T) => Promise<InstallResult>,
  log: (s: string) => void,
): Promise<void> {
  const failures: string[] = [];
  for (const item of items) {
    try {
      const r = await install(item);
      log(
        r.status === 'installed'
          ? `${chalk.green('installed')} ${name(item)} in ${(r.ms / 1000).toFixed(1)} s → ${r.dir}`
          : `${chalk.dim('already')}   ${name(item)} (${r.dir.startsWith('/') ? 'cached' : r.dir})`,
      );
    } catch (e) {
      if (!(e instanceof InstallError)) throw e;
      failures.push(e.message);
    }
  }
  if (failures.length) throw new InstallError(failures.join('\n\n'));
}

/** `all` or a list of names → target names, in the order given. */
export function targetNames(names: string[]): string[] {
  if (names.includes('all')) return loadAllTargets().map((t) => t.decl.name);
  return names;
}

export function installTargets(decls: TargetDecl[], log: (s: string) => void): Promise<void> {
  return installMany(
    decls,
    (d) => d.name,
    (d) => installTarget(d, log),
    log,
  );
}

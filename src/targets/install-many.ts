import chalk from 'chalk';
import { InstallError, type InstallResult } from './install.js';
import { installTarget } from './install-target.js';
import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { TARGET_EXTENSIONS } from './files.js';
import { loadAllTargets, loadTargetFile } from './loader.js';
import type { TargetDecl } from './schema.js';
import { splitTargetRef } from './version.js';

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

/**
 * `--target` refs with `all` expanded where it stands into every built-in target not named
 * otherwise: `all,./mine.json5` runs the built-in targets and the file, `all,server-memory` and
 * `server-memory,all` run server-memory once. A ref names a built-in target by its name, its
 * pinned version (`name@<pinned>`) or a declaration file of that name; another version
 * (`name@1.2.3`) is a column of its own beside the pinned one. Without `all`, the refs as given.
 */
export function targetNames(refs: string[]): string[] {
  if (!refs.includes('all')) return refs;
  const builtins = loadAllTargets().map((t) => t.decl);
  const named = new Set(refs.filter((r) => r !== 'all').flatMap((r) => builtinNamed(r, builtins)));
  const rest = builtins.map((d) => d.name).filter((n) => !named.has(n));
  const first = refs.indexOf('all');
  return refs.flatMap((r, i) => (r !== 'all' ? [r] : i === first ? rest : []));
}

/** The built-in target a ref names as itself: its name, its pinned version, or a file declaring that name. */
function builtinNamed(ref: string, builtins: TargetDecl[]): string[] {
  const { name, spec } = splitTargetRef(ref);
  const declared =
    TARGET_EXTENSIONS.includes(extname(name)) && existsSync(name) ? loadTargetFile(name).decl : undefined;
  const b = builtins.find((d) => d.name === (declared?.name ?? name));
  if (!b) return [];
  return declared || spec === undefined || spec === b.package?.version ? [b.name] : [];
}

export function installTargets(decls: TargetDecl[], log: (s: string) => void): Promise<void> {
  return installMany(
    decls,
    (d) => d.name,
    (d) => installTarget(d, log),
    log,
  );
}

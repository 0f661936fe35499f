import { installTargets, targetNames } from '../targets/install-many.js';
import { loadAllTargets } from '../targets/loader.js';
import { loadTargetRefs } from '../targets/version.js';
import { isInstalled } from '../targets/resolve-bin.js';

export interface TargetStatus {
  name: string;
  /** "<npm package>@<pinned version>", or "local: <command>" for a server outside npm */
  package: string;
  installed: boolean;
  /** the store's format (sqlite, jsonl, ...) */
  store: string;
  claims: string[];
}

/** Every built-in target: its package, whether it is installed in the cache, its store and claimed defences. */
export function targetStatus(): TargetStatus[] {
  return loadAllTargets().map(({ decl }) => ({
    name: decl.name,
    package: decl.package ? `${decl.package.npm}@${decl.package.version}` : `local: ${decl.server.command}`,
    installed: isInstalled(decl),
    store: decl.store.format,
    claims: decl.claims,
  }));
}

/** Install the packages of these targets (names, `name@version`, or "all") into the cache; idempotent. */
export async function installTargetsNamed(names: string[], log: (line: string) => void): Promise<void> {
  await installTargets(
    (await loadTargetRefs(targetNames(names), log, 'targets install')).map((t) => t.decl),
    log,
  );
}

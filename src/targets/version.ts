import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { InputError } from '../util/errors.js';
import { compareVersions } from '../util/versions.js';
import { targetInstallDir } from './cache.js';
import { InstallError, installEnv, isInstalledAt } from './install.js';
import { loadTarget, type LoadedTarget } from './loader.js';
import type { TargetDecl } from './schema.js';

/** `--target name@version`: the declared target run at another version of its npm package (or at the pinned one, asked for by a tag or range). */
export interface VersionOverride {
  /** the version the declaration pins */
  pinned: string;
  /** what --target asked for (an exact version, a range or a dist-tag), resolved to the decl's version */
  requested: string;
}

/** A target as --target names it: the declaration, at the version asked for. */
export type VersionedTarget = LoadedTarget & { override?: VersionOverride };

const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/**
 * `name@spec` → name and spec; a name (or a declaration path) without one → name. A path may hold
 * an `@` (a scoped folder): the spec is what follows the last `@` and holds no `/`.
 */
export function splitTargetRef(ref: string): { name: string; spec?: string } {
  const at = ref.lastIndexOf('@');
  if (at <= 0 || existsSync(ref) || ref.slice(at + 1).includes('/')) return { name: ref };
  return { name: ref.slice(0, at), spec: ref.slice(at + 1) };
}

async function npmView(
  spec: string,
  field: string,
): Promise<{ ok: true; value: unknown } | { ok: false; code: string; summary: string }> {
  const r = await execa('npm', ['view', spec, field, '--json'], { reject: false, env: await installEnv() });
  let json: unknown;
  try {
    json = r.stdout.trim() ? JSON.parse(r.stdout) : undefined;
  } catch {
    json = undefined;
  }
  const err = (json as { error?: { code?: string; summary?: string } } | undefined)?.error;
  if (r.exitCode !== 0 || err)
    return {
      ok: false,
      code: err?.code ?? `exit ${r.exitCode}`,
      summary: err?.summary ?? (r.stderr.trim().split('\n').pop() || 'no output'),
    };
  return { ok: true, value: json };
}

/** Codes with which npm says the package or version is not there (the input's fault, not the network's). */
const NOT_THERE = new Set(['E404', 'ETARGET', 'EINVALIDTAGNAME', 'EINVALIDPACKAGENAME']);

/**
 * The exact version `npm install pkg@spec` would install, asked of the npm registry (`npm view`
 * semantics: the highest version a range matches; a dist-tag's version). An exact version already
 * in the cache is taken as is, so a second run needs no network.
 */
async function resolveSpec(flag: string, ref: string, decl: TargetDecl, spec: string): Promise<string> {
  const pkg = decl.package!;
  // another version's install is named by the target (below), as before
  const dir = targetInstallDir({ ...pkg, version: spec, install_name: pkg.install_name ?? decl.name }, decl.name);
  if (EXACT.test(spec) && isInstalledAt({ dir, npm: pkg.npm, bin: pkg.bin, version: spec })) return spec;
  const r = await npmView(`${pkg.npm}@${spec}`, 'version');
  const found = r.ok ? [r.value].flat().filter((v): v is string => typeof v === 'string') : [];
  if (found.length) return found.sort(compareVersions).at(-1)!;
  if (!r.ok && !NOT_THERE.has(r.code))
    throw new InstallError(
      `${flag} ${ref}: could not ask the npm registry which version of ${pkg.npm} "${spec}" is (npm view: ${r.code} ${r.summary}); check that the registry is reachable, or give an exact version already installed with \`memeval targets install ${ref}\``,
    );
  const all = await npmView(pkg.npm, 'versions');
  const known = all.ok ? [all.value].flat().filter((v): v is string => typeof v === 'string') : [];
  throw new InputError(
    `${flag} ${ref}: ${pkg.npm} has no version "${spec}" on npm${r.ok ? '' : ` (${r.summary})`}; ` +
      (known.length
        ? `give one it has, e.g. ${decl.name}@${known.slice(-5).join(`, ${decl.name}@`)} (all: npm view ${pkg.npm} versions)`
        : `see \`npm view ${pkg.npm} versions\``),
  );
}

/**
 * Load what --target names, each `name@version` resolved to an exact version on npm and declared
 * as `name@version` (installed into the cache beside the pinned one); the pinned version, asked
 * for by number or by a tag that resolves to it, is the plain target. Bad input is an InputError
 * naming the flag; a target asked for twice (by any spelling) is one too.
 */
export async function loadTargetRefs(
  refs: string[],
  log: (line: string) => void = () => {},
  flag = '--target',
): Promise<VersionedTarget[]> {
  const out: VersionedTarget[] = [];
  const seen = new Map<string, string>();
  for (const ref of refs) {
    const { name, spec } = splitTargetRef(ref);
    const t = await loadVersioned(flag, ref, loadTarget(name), spec);
    if (t.override && t.override.requested !== t.decl.package!.version)
      log(`memeval: ${flag} ${ref} resolved to ${t.decl.package!.npm}@${t.decl.package!.version} (npm view)`);
    const prev = seen.get(t.decl.name);
    if (prev !== undefined)
      throw new InputError(
        `${flag}: ${ref} and ${prev} are both ${t.decl.name}${t.override ? ` (${t.decl.package!.version})` : ''}; give each target and version once`,
      );
    seen.set(t.decl.name, ref);
    out.push(t);
  }
  return out;
}

async function loadVersioned(
  flag: string,
  ref: string,
  t: LoadedTarget,
  spec: string | undefined,
): Promise<VersionedTarget> {
  if (spec === undefined) return t;
  const pkg = t.decl.package;
  if (!pkg)
    throw new InputError(
      `${flag} ${ref}: target ${t.decl.name} (${t.file}) runs server.command and declares no npm package, so it has no other version to run; drop "@${spec}", or declare package { npm, version, bin } in ${t.file}`,
    );
  if (!spec)
    throw new InputError(
      `${flag} ${ref}: no version after "@"; give an exact version, e.g. ${t.decl.name}@${pkg.version}`,
    );
  const version = spec === pkg.version ? spec : await resolveSpec(flag, ref, t.decl, spec);
  // the pinned version keeps the plain name, so its cell ids stay those of every baseline,
  // expected-failures entry and earlier run (a tag or range that resolved to it is recorded);
  // another version is the column `name@version`
  if (version === pkg.version)
    return spec === version ? t : { ...t, override: { pinned: pkg.version, requested: spec } };
  return {
    ...t,
    override: { pinned: pkg.version, requested: spec },
    decl: {
      ...t.decl,
      name: `${t.decl.name}@${version}`,
      package: { ...pkg, version, source: 'cache', install_name: pkg.install_name ?? t.decl.name },
    },
  };
}

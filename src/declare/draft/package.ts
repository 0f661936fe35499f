import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { InputError } from '../../util/errors.js';

/** An npm package as `targets new` is given it: a name and, optionally, a version or range. */
export interface PackageSpec {
  npm: string;
  version?: string;
}

const NPM_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/;

/** "@scope/pkg@1.2.3" → { npm: "@scope/pkg", version: "1.2.3" }; a malformed name is exit 3. */
export function parsePackageSpec(spec: string): PackageSpec {
  const at = spec.lastIndexOf('@');
  const [npm, version] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, undefined];
  if (!NPM_NAME.test(npm) || npm.length > 214)
    throw new InputError(
      `<package>: "${spec}" is not an npm package name (expected name, name@version, @scope/name or @scope/name@version)`,
    );
  if (version !== undefined && !/^[\w.^~<>=| *-]+$/.test(version))
    throw new InputError(`<package>: "${version}" in "${spec}" is not a version (expected e.g. 1.2.3)`);
  return { npm, version };
}

/** Names too generic to stand alone as a target name: "@ai-devkit/memory" becomes "ai-devkit-memory". */
const GENERIC = ['memory', 'server', 'mcp', 'cli', 'core', 'mcp-server', 'memory-mcp', 'mcp-memory'];

/** The target name a package's declaration gets: its unscoped name, with the scope when that is generic. */
export function draftName(npm: string): string {
  const [scope, base] = npm.startsWith('@') ? npm.slice(1).split('/') : [undefined, npm];
  const raw = scope && GENERIC.includes(base) ? `${scope}-${base}` : base;
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export interface ResolvedPackage {
  npm: string;
  /** the exact version the spec resolved to */
  version: string;
  /** bin name → file, as the package declares them */
  bins: Record<string, string>;
}

/** A package folder on disk (a server not published yet): given as a path, ./x, ../x or /x. */
export function isLocalSpec(spec: string): boolean {
  return /^(\.{1,2}|)\//.test(spec) || spec === '.' || spec === '..';
}

/** The name, version and bins a local package folder's package.json declares. */
export function readLocalPackage(spec: string): ResolvedPackage & { dir: string } {
  const dir = resolve(spec);
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest) || !statSync(dir).isDirectory())
    throw new InputError(`<package>: ${spec} is not a package folder (no package.json in it)`);
  const json = JSON.parse(readFileSync(manifest, 'utf8')) as ManifestInfo;
  return { ...fromManifest(json), dir };
}

interface ManifestInfo {
  name: string;
  version: string;
  bin?: string | Record<string, string>;
}

function fromManifest(info: ManifestInfo): ResolvedPackage {
  const base = info.name.replace(/^@[^/]+\//, '');
  const bins = typeof info.bin === 'string' ? { [base]: info.bin } : (info.bin ?? {});
  return { npm: info.name, version: info.version, bins };
}

/**
 * The exact version a spec names and the bins it declares: from memeval's own copy when the spec
 * pins the version of a package memeval depends on (no registry call), else from the npm registry.
 */
export async function resolvePackage(spec: PackageSpec, dependencyManifest?: string): Promise<ResolvedPackage> {
  if (spec.version && dependencyManifest && existsSync(dependencyManifest)) {
    const own = JSON.parse(readFileSync(dependencyManifest, 'utf8')) as ManifestInfo;
    if (own.version === spec.version) return fromManifest(own);
  }
  const r = await execa(
    'npm',
    ['view', `${spec.npm}@${spec.version ?? 'latest'}`, 'name', 'version', 'bin', '--json'],
    {
      reject: false,
    },
  );
  const out = r.stdout.trim();
  if (r.exitCode !== 0 || !out)
    throw new InputError(
      `<package>: npm has no ${spec.npm}${spec.version ? `@${spec.version}` : ''}: ${(r.stderr.match(/npm error .*/g) ?? ['nothing found']).slice(0, 2).join('; ')}`,
    );
  const parsed = JSON.parse(out) as unknown;
  // a range that several versions satisfy lists each; the last is the newest
  return fromManifest((Array.isArray(parsed) ? parsed.at(-1) : parsed) as ManifestInfo);
}

/** The bin that starts the MCP server: the one asked for, the only one, or the one named for MCP. */
export function chooseBin(pkg: ResolvedPackage, wanted?: string): { bin: string; note?: string } {
  const names = Object.keys(pkg.bins);
  if (wanted) {
    if (!names.includes(wanted))
      throw new InputError(
        `--bin: ${pkg.npm}@${pkg.version} has no bin "${wanted}" (its bins: ${names.join(', ') || 'none'})`,
      );
    return { bin: wanted };
  }
  if (!names.length)
    throw new InputError(`<package>: ${pkg.npm}@${pkg.version} declares no bin, so there is nothing to start`);
  if (names.length === 1) return { bin: names[0] };
  const mcp = names.find((n) => /mcp|server/i.test(n)) ?? names[0];
  return {
    bin: mcp,
    note: `bin: ${pkg.npm} has ${names.length} bins (${names.join(', ')}); the draft starts "${mcp}" (another: --bin NAME)`,
  };
}

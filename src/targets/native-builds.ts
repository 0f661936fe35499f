import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, type Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { cacheDir } from './cache.js';

/** A package in an installed tree whose install runs a script (or node-gyp, for binding.gyp). */
export interface ScriptedPackage {
  name: string;
  version: string;
  dir: string;
  /** it has a binding.gyp: node-gyp builds a .node file into build/Release */
  gyp: boolean;
  /** npm marked it optional: a failed build is tolerated, as npm install tolerates it */
  optional: boolean;
}

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

/** Every package under prefix/node_modules (nested ones too) that npm would run an install step for. */
export function scriptedPackages(prefix: string): ScriptedPackage[] {
  const out: ScriptedPackage[] = [];
  const optional = optionalDirs(prefix);
  const walk = (nodeModules: string): void => {
    for (const entry of safeReaddir(nodeModules)) {
      if (entry.startsWith('.')) continue;
      const dirs = entry.startsWith('@')
        ? safeReaddir(join(nodeModules, entry)).map((e) => join(nodeModules, entry, e))
        : [join(nodeModules, entry)];
      for (const dir of dirs) {
        const pkg = readManifest(dir);
        if (!pkg) continue;
        const scripts = (pkg.scripts ?? {}) as Record<string, unknown>;
        const gyp = pkg.gypfile !== false && existsSync(join(dir, 'binding.gyp'));
        if (gyp || INSTALL_SCRIPTS.some((s) => typeof scripts[s] === 'string'))
          out.push({
            name: String(pkg.name),
            version: String(pkg.version),
            dir,
            gyp,
            optional: optional.has(relative(prefix, dir).split(sep).join('/')),
          });
        walk(join(dir, 'node_modules'));
      }
    }
  };
  walk(join(prefix, 'node_modules'));
  return out;
}

/**
 * Required gyp packages with no .node file anywhere in them (build/Release, or prebuilds/ for
 * node-gyp-build packages that ship binaries): installed with scripts off, or a failed build.
 */
export function unbuiltPackages(prefix: string, skip: Record<string, string>): ScriptedPackage[] {
  return scriptedPackages(prefix).filter((p) => p.gyp && !p.optional && !(p.name in skip) && !hasNodeFile(p.dir));
}

/** Package paths (node_modules/a/node_modules/b) npm's hidden lockfile marks optional. */
function optionalDirs(prefix: string): Set<string> {
  try {
    const lock = JSON.parse(readFileSync(join(prefix, 'node_modules', '.package-lock.json'), 'utf8')) as {
      packages?: Record<string, { optional?: boolean }>;
    };
    return new Set(Object.entries(lock.packages ?? {}).flatMap(([k, v]) => (v.optional ? [k] : [])));
  } catch {
    return new Set();
  }
}

function hasNodeFile(dir: string, depth = 4): boolean {
  if (depth < 0) return false;
  for (const e of safeReaddirTyped(dir)) {
    if (e.isFile() && e.name.endsWith('.node')) return true;
    if (e.isDirectory() && e.name !== 'node_modules' && hasNodeFile(join(dir, e.name), depth - 1)) return true;
  }
  return false;
}

/**
 * The build cache: a gyp package's build/Release/*.node for one package version, Node ABI,
 * platform and architecture, so that several targets pinning the same better-sqlite3 compile
 * it once (about 2 minutes on 2 cores) instead of once each.
 */
export function buildCacheKey(p: Pick<ScriptedPackage, 'name' | 'version'>): string {
  const name = p.name.replace('/', '+');
  return `${name}@${p.version}-node-abi${process.versions.modules}-${process.platform}-${process.arch}`;
}

/** The cache entry of one build (and, with .lock appended, the lock its builder holds). */
export function buildCacheDir(p: Pick<ScriptedPackage, 'name' | 'version'>): string {
  return join(cacheDir(), 'builds', buildCacheKey(p));
}

/** Copy a cached build into the package; false when there is none. */
export function seedBuild(p: ScriptedPackage): boolean {
  const cached = buildCacheDir(p);
  const files = builtFiles(cached, '');
  if (!files.length) return false;
  const release = join(p.dir, 'build', 'Release');
  mkdirSync(release, { recursive: true });
  for (const f of files) cpSync(join(cached, f), join(release, f));
  return true;
}

/** Keep a fresh build's .node files; the first writer of a key wins (rename is atomic). */
export function saveBuild(p: ScriptedPackage): void {
  const files = builtFiles(p.dir);
  const target = buildCacheDir(p);
  if (!files.length || existsSync(target)) return;
  const tmp = `${target}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const f of files) cpSync(join(p.dir, 'build', 'Release', f), join(tmp, f));
  try {
    renameSync(tmp, target);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another install saved it first
  }
}

/** The .node files node-gyp leaves in build/Release (or directly in dir, for a cache entry). */
function builtFiles(dir: string, sub = join('build', 'Release')): string[] {
  return safeReaddir(join(dir, sub)).filter((f) => f.endsWith('.node'));
}

function readManifest(dir: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function safeReaddirTyped(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

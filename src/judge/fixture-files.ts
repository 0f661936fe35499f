import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A file in the fixture the judges read, labelled by its path inside the fixture. */
export interface FixtureFile {
  abs: string;
  label: string;
}

/** The fixture as the judges see it: where it is and the placeholders that name its folders. */
export interface FixtureView {
  root: string;
  project: string;
  vars: Record<string, string>;
}

// the names agents give their own memory and instruction files; their session logs are not memory
const MEMORY_NAMES = new Set(['CLAUDE.md', 'CLAUDE.local.md', 'AGENTS.md', 'AGENTS.override.md', 'GEMINI.md', 'QWEN.md', 'MEMORY.md']);
const MEMORY_DIRS = new Set(['memory', 'memories']);
const MAX_BYTES = 5 * 1024 * 1024;

function walk(dir: string, out: string[], skip: (abs: string) => boolean): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const abs = join(dir, e.name);
    if (skip(abs)) continue;
    if (e.isDirectory()) walk(abs, out, skip);
    else if (e.isFile()) out.push(abs);
  }
}

/**
 * Files beyond the store where an agent could keep memory: every file of the fixture project
 * the scenario's setup did not write as it is now, and the agent's own memory and instruction
 * files under its profile dirs (CLAUDE.md, GEMINI.md, MEMORY.md, memory/…). Store files are
 * left out: the store is judged on its own.
 */
export function fixtureFilesToScan(o: { fixture: FixtureView; profileDirs: string[]; setupFiles: { path: string; content: string }[]; storePath: string }): FixtureFile[] {
  const storePath = resolve(o.storePath);
  // the store file or folder, and SQLite's companions of a store file (-wal, -shm, -journal)
  const isStore = (abs: string) => abs === storePath || abs.startsWith(storePath + sep) || abs.startsWith(storePath + '-');
  const setup = new Map(o.setupFiles.map((f) => [resolve(o.fixture.project, f.path), f.content]));
  const out: string[] = [];
  walk(o.fixture.project, out, (abs) => isStore(abs) || basename(abs) === '.git');
  const project = out.filter((abs) => {
    const original = setup.get(abs);
    return original === undefined || readFileSync(abs, 'utf8') !== original;
  });
  const profile: string[] = [];
  for (const dir of o.profileDirs) {
    const all: string[] = [];
    walk(dir, all, isStore);
    profile.push(...all.filter((abs) => MEMORY_NAMES.has(basename(abs)) || relative(dir, abs).split(sep).some((part) => MEMORY_DIRS.has(part))));
  }
  return [...new Set([...project, ...profile])]
    .filter((abs) => statSync(abs).size <= MAX_BYTES)
    .map((abs) => ({ abs, label: relative(o.fixture.root, abs) }));
}

/** A `file` assertion's path inside the fixture; undefined when it would leave the fixture. */
export function resolveFixturePath(f: FixtureView, path: string): string | undefined {
  const filled = path.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => f.vars[k] ?? m);
  const abs = isAbsolute(filled) ? resolve(filled) : resolve(f.project, filled);
  const rel = relative(f.root, abs);
  return rel.startsWith('..') || isAbsolute(rel) ? undefined : abs;
}

export function readIfExists(abs: string): string | undefined {
  return existsSync(abs) && statSync(abs).isFile() ? readFileSync(abs, 'utf8') : undefined;
}

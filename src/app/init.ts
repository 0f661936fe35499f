import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { InputError } from '../util/errors.js';
import { PROJECT_ROOT } from '../util/paths.js';
import { shellWord } from '../util/text.js';
import { jsonSchemaFor } from './schema.js';

const STARTER = (schemaRef: string) => `{
  // Editors validate this file against the schema below (regenerate it with \`memeval init --force\`).
  $schema: "${schemaRef}",
  schema_version: 1,
  id: "remembers-package-manager",
  title: "The package manager the user prefers is stored once",
  description: "The user states a preference once; it is stored once, and a violation (storing an API key) is caught.",
  tags: ["starter"],
  deterministic: {
    well_behaved: [{ op: "remember", content: "User prefers pnpm over npm" }],
    violation: {
      expectation: "detect",
      steps: [{ op: "remember", content: "deploy key sk_live_starter0000example" }],
    },
  },
  assertions: [
    { kind: "count", name: "stored once", phase: "well-behaved", contains: "pnpm", op: "eq", value: 1 },
    { kind: "absent", name: "no key anywhere", phase: "both", text: "sk_live_starter0000example" },
  ],
}
`;

export interface InitFiles {
  /** the scenario JSON Schema the starter's $schema line points at */
  schema: string;
  scenario: string;
  config: string;
}

/**
 * Write a starter scenario (with its $schema line), the schema and a memeval.config.json under
 * `dir`; refuses (invalid input) to overwrite any of them unless `force`. Returns the files written.
 */
export function initProject(dir: string, force = false): InitFiles {
  const root = resolve(dir);
  const files: InitFiles = {
    schema: join(root, '.memeval', 'scenario.schema.json'),
    scenario: join(root, 'memeval', 'scenarios', 'remembers-package-manager.json5'),
    config: join(root, 'memeval.config.json'),
  };
  const existing = Object.values(files).filter((f) => existsSync(f));
  if (existing.length && !force)
    throw new InputError(`init: ${existing.join(', ')} exist already; add --force to overwrite`);
  for (const f of Object.values(files)) mkdirSync(join(f, '..'), { recursive: true });
  writeFileSync(files.schema, JSON.stringify(jsonSchemaFor('scenario'), null, 2) + '\n');
  writeFileSync(files.scenario, STARTER(relative(join(files.scenario, '..'), files.schema)));
  writeFileSync(
    files.config,
    JSON.stringify(
      {
        scenarios: 'memeval/scenarios',
        targets: ['server-memory'],
        reporters: ['console', 'junit'],
        out: 'memeval/runs',
      },
      null,
      2,
    ) + '\n',
  );
  return files;
}

const sameDir = (a: string, b: string): boolean => existsSync(a) && realpathSync(a) === realpathSync(b);

const packageName = (dir: string): string | undefined => {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name;
  } catch {
    return undefined;
  }
};

/**
 * How to run memeval from `projectDir`, for the memeval at `memevalRoot`: `npx memeval` finds it
 * only when it is a dependency of that project (or of a folder above it), or is the project itself;
 * a clone elsewhere is run by its launcher's path, since `npx memeval` there would fetch memeval
 * from the registry instead of the memeval the user just ran. The answer is ready for a shell.
 */
export function memevalCommandFor(projectDir: string, memevalRoot = PROJECT_ROOT): string {
  for (let d = resolve(projectDir); ; d = dirname(d)) {
    if (sameDir(join(d, 'node_modules', 'memeval'), memevalRoot)) return 'npx memeval';
    if (packageName(d) === 'memeval' && sameDir(d, memevalRoot)) return 'npx memeval';
    if (dirname(d) === d) return shellWord(join(memevalRoot, 'bin', 'memeval'));
  }
}

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../util/errors.js';
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

export function registerInit(program: Command): void {
  program
    .command('init')
    .argument('[dir]', 'project folder', '.')
    .description('write a starter scenario (with its $schema line) and a memeval.config.json')
    .option('--force', 'overwrite files that exist')
    .action((dir: string, opts: { force?: boolean }) => {
      const root = resolve(dir);
      const files = {
        schema: join(root, '.memeval', 'scenario.schema.json'),
        scenario: join(root, 'memeval', 'scenarios', 'remembers-package-manager.json5'),
        config: join(root, 'memeval.config.json'),
      };
      const existing = Object.values(files).filter((f) => existsSync(f));
      if (existing.length && !opts.force) throw new InputError(`init: ${existing.join(', ')} exist already; add --force to overwrite`);
      for (const f of Object.values(files)) mkdirSync(join(f, '..'), { recursive: true });
      writeFileSync(files.schema, JSON.stringify(jsonSchemaFor('scenario'), null, 2) + '\n');
      writeFileSync(files.scenario, STARTER(relative(join(files.scenario, '..'), files.schema)));
      writeFileSync(
        files.config,
        JSON.stringify({ scenarios: 'memeval/scenarios', targets: ['server-memory'], reporters: ['console', 'junit'], out: 'memeval/runs' }, null, 2) + '\n',
      );
      for (const f of Object.values(files)) process.stdout.write(`wrote ${relative(process.cwd(), f) || f}\n`);
      process.stdout.write('next: npx memeval run   (add --install the first time to install the target)\n');
    });
}

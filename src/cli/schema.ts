import type { Command } from 'commander';
import { jsonSchemaFor } from '../app/schema.js';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of the scenario format (or --target for target declarations), for editors')
    .option('--target', 'the schema of target declarations instead')
    .action((opts: { target?: boolean }) => {
      process.stdout.write(JSON.stringify(jsonSchemaFor(opts.target ? 'target' : 'scenario'), null, 2) + '\n');
    });
}

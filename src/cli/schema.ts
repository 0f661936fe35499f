import type { Command } from 'commander';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of the scenario format (or --target for target declarations), for editors')
    .option('--target', 'the schema of target declarations instead')
    .action(async (opts: { target?: boolean }) => {
      const { jsonSchemaFor } = await import('../app/schema.js');
      process.stdout.write(JSON.stringify(jsonSchemaFor(opts.target ? 'target' : 'scenario'), null, 2) + '\n');
    });
}

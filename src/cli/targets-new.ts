import type { Command } from 'commander';
import chalk from 'chalk';
import type { CheckPoint } from '../app/target-check.js';
import { EXIT } from '../core/results.js';
import { InputError } from '../util/errors.js';
import { uncheckedLines } from './targets-check.js';
import type { CliContext } from './options.js';

const COLOR: Record<CheckPoint['status'], (s: string) => string> = {
  pass: chalk.green,
  fail: chalk.red,
  skip: chalk.dim,
  unchecked: chalk.yellow,
};

/** `--env KEY=VALUE`, repeatable. */
function envPair(value: string, prev: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq < 1) throw new InputError(`--env: "${value}" is not KEY=VALUE (e.g. --env DATA_DIR={{data}})`);
  return { ...prev, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** `memeval targets new <package>`: draft a declaration, check it, say what is left to decide. */
export function registerTargetsNew(targets: Command, cli: CliContext): void {
  targets
    .command('new')
    .description(
      'draft a declaration for an npm MCP memory server: install it, map the ops to its tools, find its store, read its result formats, then check the draft',
    )
    .argument('<package>', 'npm package, optionally @version (default: the latest, pinned exactly), or ./folder')
    .argument('[server-args...]', 'arguments the server is started with (after --)')
    .option('--name <name>', 'target name (default: from the package name)')
    .option('--bin <bin>', "which of the package's bins starts the MCP server")
    .option('--env <KEY=VALUE>', 'environment for the server, repeatable; values may use {{data}}, {{home}}', envPair)
    .option('--out <file>', 'where to write the draft (default: eval/targets/<name>.json5)')
    .option('--force', 'overwrite an existing file')
    .option('--allow-unchecked', "exit 0 even when a point of the draft's check could not be checked")
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  memeval targets new mcp-memory-keeper@0.14.1\n' +
        '  memeval targets new @ai-devkit/memory --out my/ai-devkit-memory.json5   (the latest version, pinned)\n' +
        '  memeval targets new agentdb@1.6.1 --env AGENTDB_PATH={{data}}/agentdb.db -- mcp start\n' +
        '  memeval targets new ./my-server              (a package folder on disk: a local command)\n' +
        '\nExit codes: 0 the draft passes `targets check`, 1 it does not, or a point could not be checked (the\n' +
        'draft is still written, its header lists those points), 3 bad input (package, flags, an existing\n' +
        'file without --force).',
    )
    .action(
      async (
        spec: string,
        args: string[],
        opts: {
          name?: string;
          bin?: string;
          env?: Record<string, string>;
          out?: string;
          force?: boolean;
          allowUnchecked?: boolean;
        },
      ) => {
        const log = (line: string) => process.stdout.write(chalk.dim(line) + '\n');
        const { formatPoint, summaryLine } = await import('../app/target-check.js');
        const { draftTarget } = await import('../app/target-new.js');
        const r = await draftTarget({ spec, args, ...opts, log });
        const out = (s = '') => process.stdout.write(s + '\n');
        out();
        out(chalk.bold(`targets check ${r.file}`));
        const ok = typeof r.check !== 'string' && r.check.ok;
        if (typeof r.check === 'string') out(chalk.red(r.check));
        else {
          for (const p of r.check.points) out(COLOR[p.status](formatPoint(p)));
          for (const line of uncheckedLines(r.check.unchecked, r.check.allow_unchecked)) out(line);
          out(`${ok ? chalk.green('ok') : chalk.red('failed')}: ${summaryLine(r.check.points)}`);
        }
        if (r.notes.length) {
          out();
          out(chalk.bold('seen while drafting:'));
          for (const n of r.notes) out(`  - ${n}`);
        }
        out();
        out(chalk.bold('still to decide:'));
        for (const d of r.toDecide) out(`  - ${d}`);
        out();
        out(`draft: ${r.file}${ok ? '' : ' (with the failing points in its header)'}`);
        cli.exitCode = ok ? EXIT.ok : EXIT.failed;
      },
    );
}

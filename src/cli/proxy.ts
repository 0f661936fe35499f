import type { Command } from 'commander';
import { runProxy } from '../mcp/proxy.js';
import { positiveInt, type CliContext } from './main.js';

export function registerProxy(program: Command, cli: CliContext): void {
  program
    .command('mcp-proxy')
    .description('stdio MCP proxy that logs every tools/call to a JSONL file (used to record what real agents do)')
    .requiredOption('--log <file>', 'calls log to append to')
    .option('--session <n>', 'session number written into each record, or "auto" to count up per start', (v: string) => (v === 'auto' ? 'auto' : positiveInt(v)), 1 as number | 'auto')
    .option('--cwd <dir>', "the server's working directory")
    .argument('<command...>', 'the MCP server command, after --')
    .usage('--log FILE [--session N] -- <server command> [args...]')
    .action(async (command: string[], opts: { log: string; session: number | 'auto'; cwd?: string }) => {
      const code = await runProxy({ log: opts.log, session: opts.session, command: command[0], args: command.slice(1), cwd: opts.cwd });
      cli.exitCode = code;
    });
}

import type { Command } from 'commander';
import { positiveInt, type CliContext } from './options.js';
import { InputError } from '../util/errors.js';

export function registerProxy(program: Command, cli: CliContext): void {
  program
    .command('mcp-proxy')
    .description('stdio MCP proxy that logs every tools/call to a JSONL file (used to record what real agents do)')
    .requiredOption('--log <file>', 'calls log to append to')
    .option(
      '--session <n>',
      'session number written into each record, or "auto" to count up per start',
      (v: string) => (v === 'auto' ? 'auto' : positiveInt(v)),
      1 as number | 'auto',
    )
    .option('--cwd <dir>', "the server's working directory")
    .option('--max-message-bytes <n>', 'largest JSON-RPC message passed on (default 64 MiB)', positiveInt)
    .option('--max-calls <n>', 'refuse tools/call past N in this session (noted in <log>.capped)', positiveInt)
    .option(
      '--launch <file>',
      "JSON {command, args, env, cwd, store_failure}: start the server exactly so, with that environment and none of the proxy's (store_failure: the declaration's patterns of a store that could not be opened)",
    )
    .argument('[command...]', 'the MCP server command, after -- (it inherits the proxy environment); or use --launch')
    .usage('--log FILE [--session N] (--launch FILE | -- <server command> [args...])')
    .action(
      async (
        command: string[],
        opts: {
          log: string;
          session: number | 'auto';
          cwd?: string;
          launch?: string;
          maxCalls?: number;
          maxMessageBytes?: number;
        },
      ) => {
        const { readLaunchFile, runProxy } = await import('../mcp/proxy.js');
        if (opts.launch && command.length)
          throw new InputError('mcp-proxy: give either --launch or a command after --, not both');
        if (!opts.launch && !command.length)
          throw new InputError('mcp-proxy: missing the server: --launch FILE or -- <command>');
        const l = opts.launch ? readLaunchFile(opts.launch) : undefined;
        // loaded only when the store was pinned: the proxy starts once per agent session
        const pins = l?.pins
          ? await import('../mcp/store-pins.js').then((m) => {
              const f = m.readPins(l.pins!);
              return new m.PinWatch(f.store, f.rows);
            })
          : undefined;
        const code = await runProxy(
          l
            ? {
                log: opts.log,
                session: opts.session,
                maxCalls: opts.maxCalls,
                maxMessageBytes: opts.maxMessageBytes,
                command: l.command,
                args: l.args,
                env: l.env,
                cwd: l.cwd,
                storeFailures: l.store_failure,
                pins,
              }
            : {
                log: opts.log,
                session: opts.session,
                maxCalls: opts.maxCalls,
                maxMessageBytes: opts.maxMessageBytes,
                command: command[0],
                args: command.slice(1),
                cwd: opts.cwd,
              },
        );
        cli.exitCode = code;
      },
    );
}

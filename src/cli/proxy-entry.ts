import { installSignals } from '../util/signals.js';
import { drained } from '../util/drain.js';

/**
 * The entry agents start the recording proxy through (`memeval mcp-proxy ...`, agent/self.ts):
 * only the proxy's own modules load, not the whole CLI. Every agent session waits for its
 * memory server behind this proxy, and loading the whole CLI doubled an agent cell's time.
 * Exit codes as the full CLI's: the server's, 3 for invalid flags, 1 for anything else.
 */
installSignals();
const { Command, CommanderError } = await import('commander');
const { registerProxy } = await import('./proxy.js');
const { InputError } = await import('../util/errors.js');
const { EXIT } = await import('../core/results.js');

const cli = { exitCode: EXIT.ok as number, hardExit: (c: number): never => process.exit(c) };
const program = new Command('memeval').exitOverride();
registerProxy(program, cli);
let code: number;
try {
  await program.parseAsync(process.argv);
  code = cli.exitCode;
} catch (e) {
  if (e instanceof CommanderError)
    code = ['commander.helpDisplayed', 'commander.help'].includes(e.code) ? EXIT.ok : EXIT.invalid;
  else if (e instanceof InputError) {
    for (const p of e.problems) process.stderr.write(`error: ${p}\n`);
    code = EXIT.invalid;
  } else {
    process.stderr.write(`memeval mcp-proxy: ${(e as Error).stack ?? String(e)}\n`);
    code = EXIT.failed;
  }
}
// a proxy whose agent still holds stdin open would otherwise linger; what it sent the agent drains first
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);

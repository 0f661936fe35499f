import { fileURLToPath } from 'node:url';

/**
 * How a child process runs memeval's recording proxy (agents start it; the arguments are
 * `mcp-proxy ...` as for the CLI): the proxy's lean entry, built, or its TypeScript source
 * through tsx when memeval itself runs from source.
 */
export function selfCommand(): { command: string; args: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`../cli/proxy-entry.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  return { command: process.execPath, args: fromSource ? ['--import', import.meta.resolve('tsx'), entry] : [entry] };
}

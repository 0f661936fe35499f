import { fileURLToPath } from 'node:url';

/**
 * How to run memeval's own CLI from a child process (agents start the recording proxy):
 * the built entry, or the TypeScript source through tsx when memeval itself runs from source.
 */
export function selfCommand(): { command: string; args: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`../cli/entry.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  return { command: process.execPath, args: fromSource ? ['--import', import.meta.resolve('tsx'), entry] : [entry] };
}

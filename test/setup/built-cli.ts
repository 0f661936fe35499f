// Tests spawn memeval many times; from the TypeScript source each spawn pays tsx's start-up and,
// in a test with its own TMPDIR, a cold transform cache (seconds on a loaded machine). The built
// CLI is used instead, but only when every source file is older than its built file, so a test
// never runs code older than the source it checks.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The first source file whose built file is missing or older, or undefined when dist/ is current. */
export function staleBuiltFile(root: string): string | undefined {
  const src = join(root, 'src');
  for (const file of tsFiles(src)) {
    const built = join(root, 'dist', relative(src, file).replace(/\.ts$/, '.js'));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(file).mtimeMs) return relative(root, file);
  }
  return undefined;
}

import type { TargetDecl } from '../targets/schema.js';
import { clip } from '../util/text.js';

/**
 * Lines any server prints when the module behind its store cannot load or its store file cannot
 * be opened: a native addon that was never built (installed with scripts off) or built for
 * another Node, SQLite refusing the file. A server that logs one and carries on has fallen back
 * to something other than the declared store.
 */
export const BUILT_IN_STORE_FAILURES: readonly RegExp[] = [
  /Could not locate the bindings file/,
  /was compiled against a different Node\.js version/,
  /SQLITE_CANTOPEN|unable to open database file/,
];

const LINE_CHARS = 400;
/** a line longer than this is tested by its first LINE_BUFFER characters (a flood must not grow memory) */
const LINE_BUFFER = 8192;

/**
 * Watches a server's stderr and its stdout lines that are not JSON-RPC for the first line a
 * store-failure pattern matches. Watching the stream, not the saved logs, because those keep
 * only a head and a tail.
 */
export class StoreFailureWatch {
  private partial = '';
  /** the first matching line, clipped, and where it was */
  found?: { line: string; stream: 'stderr' | 'stdout' };

  constructor(private readonly patterns: readonly RegExp[]) {}

  /** A chunk of stderr: complete lines are tested, the rest waits for its newline. */
  stderr(chunk: string): void {
    if (this.found) return;
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!.slice(0, LINE_BUFFER);
    for (const l of lines) this.test(l, 'stderr');
  }

  /** A whole stdout line that was not JSON-RPC. */
  stdout(line: string): void {
    this.test(line, 'stdout');
  }

  /** The stderr line left without a newline when the stream closed. */
  end(): void {
    this.test(this.partial, 'stderr');
    this.partial = '';
  }

  private test(line: string, stream: 'stderr' | 'stdout'): void {
    if (this.found || !line) return;
    const probe = line.slice(0, LINE_BUFFER);
    if (this.patterns.some((p) => p.test(probe))) this.found = { line: clip(line.trim(), LINE_CHARS), stream };
  }
}

/** The built-in patterns and the declaration's own (server.store_failure, checked at load). */
export function storeFailurePatterns(decl: Pick<TargetDecl, 'server'>): RegExp[] {
  return storeFailureRegexes(decl.server.store_failure);
}

/** The built-in patterns and these declared sources (the proxy gets them through its launch file). */
export function storeFailureRegexes(declared: readonly string[]): RegExp[] {
  return [...BUILT_IN_STORE_FAILURES, ...declared.map((r) => new RegExp(r, 'u'))];
}

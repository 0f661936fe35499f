import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { memevalArgv, ROOT, tempDir, timeLimit } from '../helpers.js';

/** Packages that take most of memeval's start-up; only the commands that use them may load them. */
const HEAVY = ['better-sqlite3', '@modelcontextprotocol/sdk', 'openai', '@anthropic-ai/sdk', 'playwright-core'];

/**
 * Run memeval under a module hook that writes every URL it resolves to a file, and return the
 * packages among them. The hook is registered last, so it sees the final URL (after tsx's).
 */
async function packagesLoaded(t: { after: (fn: () => void) => void }, args: string[]): Promise<Set<string>> {
  const dir = tempDir(t, 'memeval-imports-');
  const log = join(dir, 'resolved.txt');
  writeFileSync(log, '');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
  return r;
}\n`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const argv = memevalArgv();
  const r = await execa(
    process.execPath,
    [...argv.slice(0, -1), '--import', pathToFileURL(register).href, argv.at(-1)!, ...args],
    { cwd: ROOT, reject: false, env: { NO_COLOR: '1' }, timeout: timeLimit(60_000) },
  );
  assert.equal(r.exitCode, 0, `memeval ${args.join(' ')}: ${r.stderr}`);
  const packages = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (m) packages.add(m[1]);
  }
  // the hook saw the CLI's own imports: an empty record would pass anything
  assert.ok(packages.has('commander'), `the hook recorded no commander import: ${[...packages].join(', ')}`);
  return packages;
}

for (const args of [['--version'], ['--help'], ['run', '--help']])
  test(`memeval ${args.join(' ')} loads none of the heavy packages`, async (t) => {
    const loaded = await packagesLoaded(t, args);
    assert.deepEqual(
      HEAVY.filter((p) => loaded.has(p)),
      [],
    );
  });

// list and validate check SQL in declarations (SQLite), but talk to no server, model or npm
for (const args of [['list'], ['validate']])
  test(`memeval ${args.join(' ')} loads no MCP SDK, model client, browser or process runner`, async (t) => {
    const loaded = await packagesLoaded(t, args);
    assert.deepEqual(
      [...HEAVY.filter((p) => p !== 'better-sqlite3'), 'execa'].filter((p) => loaded.has(p)),
      [],
    );
  });

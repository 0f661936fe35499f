import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { InputError } from '../util/errors.js';
import { parseWith, readJson5File } from '../util/json5-file.js';

/** Project defaults for `memeval run`; flags on the command line win. Paths are relative to the config file. */
export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  scenarios: z.string().optional().describe('folder of scenario files'),
  targets: z.array(z.string()).optional().describe('targets to run against (names, files, or "all")'),
  reporters: z.array(z.string()).optional().describe('console, json, junit, markdown, github'),
  baseline: z.string().optional().describe('a previous run dir or report.json: fail only on regressions'),
  expected_failures: z.string().optional().describe('file of {scenario, target, phase, [agent], verdict, assertions, [reason_contains], reason}'),
  fail_on: z.enum(['regressions', 'failures']).optional(),
  out: z.string().optional().describe('where run directories are written'),
  workers: z.number().int().positive().optional(),
});
export type MemevalConfig = z.infer<typeof configSchema>;

export const CONFIG_FILES = ['memeval.config.json', 'memeval.config.json5'];

/** The project's memeval config: memeval.config.json(5) in `cwd`, else package.json's "memeval" key. */
export function loadConfig(cwd = process.cwd()): { config: MemevalConfig; file: string } | undefined {
  for (const name of CONFIG_FILES) {
    const file = join(cwd, name);
    if (existsSync(file)) return { config: absolutise(parseWith(file, readJson5File(file), configSchema), dirname(file)), file };
  }
  const pkg = join(cwd, 'package.json');
  if (!existsSync(pkg)) return undefined;
  let raw: { memeval?: unknown };
  try {
    raw = JSON.parse(readFileSync(pkg, 'utf8'));
  } catch (e) {
    throw new InputError(`${pkg}: not valid JSON (${(e as Error).message})`);
  }
  if (raw.memeval === undefined) return undefined;
  const config = parseWith(`${pkg} (key "memeval")`, raw.memeval, configSchema);
  return { config: absolutise(config, cwd), file: pkg };
}

function absolutise(c: MemevalConfig, base: string): MemevalConfig {
  const abs = (p?: string) => (p === undefined ? undefined : resolve(base, p));
  return { ...c, scenarios: abs(c.scenarios), baseline: abs(c.baseline), expected_failures: abs(c.expected_failures), out: abs(c.out) };
}

/** Where runs are: --runs when given, else the config's `out`, else ./runs. */
export function runsDir(flag: string | undefined): string {
  return flag ?? loadConfig()?.config.out ?? 'runs';
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { RUN_DEFAULTS, runFields, type RunConfigInput } from '../core/config.js';
import { InputError, messageOf } from '../util/errors.js';
import { parseWith, readJson5File } from '../util/json5-file.js';

/**
 * Project defaults for `memeval run`; flags on the command line win. Paths are relative to the
 * config file. Each field is the run config's own (core/config.ts runFields), under the file's
 * snake_case name, and without a default: what the file leaves out, the run config fills.
 */
export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  scenarios: runFields.scenariosDir.optional(),
  targets: runFields.targets.optional(),
  reporters: runFields.reporters.optional(),
  baseline: runFields.baseline.optional(),
  expected_failures: runFields.expectedFailures.optional(),
  fail_on: runFields.failOn.optional(),
  out: runFields.outDir.optional(),
  workers: runFields.workers.optional(),
  retries: runFields.retries.optional(),
});
export type MemevalConfig = z.infer<typeof configSchema>;

/** A config file's settings as run config input (only those it sets). */
export function configInput(c: MemevalConfig): RunConfigInput {
  const gate = { baseline: c.baseline, expectedFailures: c.expected_failures, failOn: c.fail_on };
  return {
    scenariosDir: c.scenarios,
    targets: c.targets,
    reporters: c.reporters,
    outDir: c.out,
    workers: c.workers,
    retries: c.retries,
    ...(Object.values(gate).some((v) => v !== undefined) ? { gate } : {}),
  };
}

export const CONFIG_FILES = ['memeval.config.json', 'memeval.config.json5'];

/** The project's memeval config: memeval.config.json(5) in `cwd`, else package.json's "memeval" key. */
export function loadConfig(cwd = process.cwd()): { config: MemevalConfig; file: string } | undefined {
  for (const name of CONFIG_FILES) {
    const file = join(cwd, name);
    if (existsSync(file))
      return { config: absolutise(parseWith(file, readJson5File(file), configSchema), dirname(file)), file };
  }
  const pkg = join(cwd, 'package.json');
  if (!existsSync(pkg)) return undefined;
  let raw: { memeval?: unknown };
  try {
    raw = JSON.parse(readFileSync(pkg, 'utf8'));
  } catch (e) {
    throw new InputError(`${pkg}: not valid JSON (${messageOf(e)})`);
  }
  if (raw.memeval === undefined) return undefined;
  const config = parseWith(`${pkg} (key "memeval")`, raw.memeval, configSchema);
  return { config: absolutise(config, cwd), file: pkg };
}

function absolutise(c: MemevalConfig, base: string): MemevalConfig {
  const abs = (p?: string) => (p === undefined ? undefined : resolve(base, p));
  return {
    ...c,
    scenarios: abs(c.scenarios),
    baseline: abs(c.baseline),
    expected_failures: abs(c.expected_failures),
    out: abs(c.out),
  };
}

/** Where runs are: --runs when given, else the config's `out`, else ./runs. */
export function runsDir(flag: string | undefined): string {
  return flag ?? loadConfig()?.config.out ?? RUN_DEFAULTS.outDir;
}

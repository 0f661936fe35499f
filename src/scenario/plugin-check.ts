import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

// what comes after it is the probe's answer, whatever the module printed as it loaded
const MARK = '@@memeval-plugin-probe@@';

/** How long loading a plug-in module to look at its exports may take. */
const LOAD_CHECK_MS = 15_000;

// imports the module in a child (its top-level code must not run inside memeval, nor hang it)
const PROBE = `
const m = await import(process.argv[1]);
const f = typeof m.judge === 'function' ? 'judge' : typeof m.default === 'function' ? 'default' : null;
process.stdout.write('\\n' + process.argv[2] + JSON.stringify({ fn: f, exports: Object.keys(m) }));
`;

/**
 * Why a plug-in judge module cannot be used (undefined: it can): it must exist, be a
 * JavaScript module, load, and export a function `judge` (or a default function).
 */
export function pluginModuleProblem(abs: string): string | undefined {
  if (!existsSync(abs)) return `${abs} does not exist (the path is relative to the scenario file)`;
  if (!statSync(abs).isFile()) return `${abs} is not a file`;
  if (!/\.(m|c)?js$/.test(abs)) return `${abs} is not a JavaScript module (.mjs, .js or .cjs)`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(abs).href, MARK], {
    encoding: 'utf8',
    timeout: LOAD_CHECK_MS,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.error || r.status !== 0) {
    const lines = r.stderr.trim().split('\n').filter(Boolean);
    // node prints the source line and a caret first; the error's own line is what says why
    const why =
      r.error?.message ??
      (lines.find((l) => /^\w*(Error|Exception)\b/.test(l)) ?? lines.slice(-3).join(' ')).slice(0, 400);
    return `${abs} does not load: ${why}`;
  }
  let out: { fn: string | null; exports: string[] };
  try {
    out = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf(MARK) + MARK.length)) as typeof out;
  } catch {
    return `${abs}: loading it printed something other than memeval's probe expected`;
  }
  if (!out.fn)
    return `${abs} exports no function \`judge\` (exports: ${out.exports.join(', ') || 'none'}); add \`export function judge(evidence, options) { … }\``;
  return undefined;
}

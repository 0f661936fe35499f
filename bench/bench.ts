/**
 * Benchmark (not a test): the built-in suite against server-memory with 1 and 2 workers,
 * and a bare baseline that makes the same MCP calls with the SDK and no harness.
 * Prints the memeval/bare ratio and the 2-worker speed-up, measured side by side.
 *
 *   npm run bench [-- --repeat N]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadScenarios, scenarioFiles } from '../src/scenario/loader.js';
import { loadTarget, DEFAULT_TARGET } from '../src/target/loader.js';
import { resolveTargetBin } from '../src/target/resolve-bin.js';
import { runDeterministic } from '../src/replay/run.js';
import { BUILTIN_SCENARIOS } from '../src/util/paths.js';

const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 3;
const scenarios = loadScenarios(scenarioFiles(BUILTIN_SCENARIOS));
const target = loadTarget(DEFAULT_TARGET);
const bin = resolveTargetBin(target.decl);
const runTarget = { ...target, bin };

interface Call { session: number; tool: string; arguments: Record<string, unknown> }

async function memeval(workers: number) {
  const out = mkdtempSync(join(tmpdir(), 'memeval-bench-'));
  const t0 = performance.now();
  const r = await runDeterministic({ scenarios, targets: [runTarget], workers, keep: false, outDir: out });
  const ms = performance.now() - t0;
  return { ms, out, runDir: join(out, r.report.run_id), report: r.report };
}

/** The calls one cell made, grouped by server session, probes last. */
function cellSessions(cellDir: string): Call[][] {
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Call) : []);
  const main = read(join(cellDir, 'calls.jsonl'));
  const probes = read(join(cellDir, 'probe-calls.jsonl'));
  const sessions = new Map<number, Call[]>();
  for (const c of main) sessions.set(c.session, [...(sessions.get(c.session) ?? []), c]);
  const list = [...sessions.keys()].sort((a, b) => a - b).map((k) => sessions.get(k)!);
  if (probes.length) list.push(probes);
  return list;
}

/** The same calls, made by a minimal SDK client with no harness around them. */
async function bare(cells: Call[][][]): Promise<number> {
  const t0 = performance.now();
  for (const sessions of cells) {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-bare-'));
    for (const calls of sessions) {
      const transport = new StdioClientTransport({ command: process.execPath, args: [bin.file], env: { PATH: process.env.PATH ?? '', HOME: dir, MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, cwd: dir, stderr: 'ignore' });
      const client = new Client({ name: 'bare', version: '1' });
      await client.connect(transport);
      for (const c of calls) await client.callTool({ name: c.tool, arguments: c.arguments });
      await client.close();
    }
    rmSync(dir, { recursive: true, force: true });
  }
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows: { m1: number; m2: number; b: number }[] = [];
// warm-up: fills the OS page cache and gives us the call script for the bare run
const warm = await memeval(1);
const cells = warm.report.results.map((r) => cellSessions(join(warm.runDir, r.cell_dir)));
const nCalls = cells.flat(2).length;
rmSync(warm.out, { recursive: true, force: true });

for (let i = 0; i < repeat; i++) {
  // interleave the three so machine noise hits them alike
  const b = await bare(cells);
  const m1 = await memeval(1);
  const m2 = await memeval(2);
  rmSync(m1.out, { recursive: true, force: true });
  rmSync(m2.out, { recursive: true, force: true });
  rows.push({ m1: m1.ms, m2: m2.ms, b });
  console.log(`round ${i + 1}: bare ${b.toFixed(0)} ms, memeval 1 worker ${m1.ms.toFixed(0)} ms, 2 workers ${m2.ms.toFixed(0)} ms`);
}
const m1 = median(rows.map((r) => r.m1));
const m2 = median(rows.map((r) => r.m2));
const b = median(rows.map((r) => r.b));
console.log(`\n${scenarios.length} scenarios, ${warm.report.results.length} phases, ${nCalls} MCP calls against ${DEFAULT_TARGET}, median of ${repeat}`);
console.log(`bare SDK script       ${b.toFixed(0)} ms`);
console.log(`memeval, 1 worker     ${m1.toFixed(0)} ms   overhead ${(m1 / b).toFixed(2)}x bare (aim <= 1.25x)`);
console.log(`memeval, 2 workers    ${m2.toFixed(0)} ms   speed-up ${(m1 / m2).toFixed(2)}x (aim >= 1.6x)`);

/**
 * Benchmark (not a test): the built CLI's start-up beside bare node (bench/startup.ts), then the
 * built-in suite against server-memory with 1 and 2 workers, and a bare baseline that makes the
 * same MCP calls with the SDK and no harness. Prints the memeval/bare ratio and the 2-worker
 * speed-up, measured side by side.
 *
 *   npm run bench [-- --repeat N] [--startup-against <checkout>] [--targets] [--install-times] [--agents]
 *
 * --startup-against another memeval checkout with a built dist/ (e.g. main): its start-up timed in the same rounds
 * --targets        per installed target: server start to ready, median/p95 per tool call, phase wall time;
 *                  for targets pointed at the model provider, the time it spent answering (and holding answers) as a share of cell time
 * --install-times  per target: a fresh install into a throwaway cache (slow: native builds)
 * --agents         per installed agent: per-scenario wall time on the scripted model, and its start-up share
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadScenarios, scenarioFiles } from '../src/scenario/loader.js';
import { loadAllTargets, loadTarget, DEFAULT_TARGET } from '../src/targets/loader.js';
import { installTarget } from '../src/targets/install-target.js';
import { isInstalled } from '../src/targets/resolve-bin.js';
import { AGENTS, resolveAgentBin } from '../src/agent/registry.js';
import { DEFAULT_MCP_TIMEOUT_MS } from '../src/agent/types.js';
import { runRealModel } from '../src/app/run.js';
import { costGate, SCRIPTED_MODEL } from '../src/agent/cost-gate.js';
import { resolveTargetBin } from '../src/targets/resolve-bin.js';
import { runDeterministic } from '../src/app/run.js';
import { BUILTIN_SCENARIOS } from '../src/util/paths.js';
import { benchStartup } from './startup.js';

const argv = process.argv.slice(2);
const repeat = Number(argv[argv.indexOf('--repeat') + 1]) || 3;
benchStartup(9, argv.includes('--startup-against') ? argv[argv.indexOf('--startup-against') + 1] : undefined);
const scenarios = loadScenarios(scenarioFiles(BUILTIN_SCENARIOS));
const target = loadTarget(DEFAULT_TARGET);
const bin = resolveTargetBin(target.decl);
const runTarget = { ...target, bin };

interface Call {
  session: number;
  method?: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/**
 * CPU seconds used so far by this process and every child it has waited for (servers, their
 * wrappers and the judge process are all waited for, so they count): /proc/self/stat fields 14–17.
 */
function cpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return fields.slice(11, 15).reduce((a, f) => a + Number(f), 0) / 100;
}

async function memeval(workers: number) {
  const out = mkdtempSync(join(tmpdir(), 'memeval-bench-'));
  const c0 = cpuSeconds();
  const t0 = performance.now();
  const r = await runDeterministic({ scenarios, targets: [runTarget], workers, keep: false, outDir: out });
  const ms = performance.now() - t0;
  return { ms, cpu: cpuSeconds() - c0, out, runDir: join(out, r.report.run_id), report: r.report };
}

/** The calls one cell made, grouped by server session, probes last. */
function cellSessions(cellDir: string): Call[][] {
  // the handshake is logged too; the bare client makes its own
  const read = (f: string) =>
    existsSync(f)
      ? readFileSync(f, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Call)
          .filter((c) => (c.method ?? 'tools/call') === 'tools/call')
      : [];
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
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [bin.file],
        env: { PATH: process.env.PATH ?? '', HOME: dir, MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        cwd: dir,
        stderr: 'ignore',
      });
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
const rows: { m1: number; m2: number; b: number; cores1: number; cpu1: number; bareCpu: number }[] = [];
// warm-up: fills the OS page cache and gives us the call script for the bare run
const warm = await memeval(1);
const cells = warm.report.results.map((r) => cellSessions(join(warm.runDir, r.cell_dir)));
const nCalls = cells.flat(2).length;
rmSync(warm.out, { recursive: true, force: true });

for (let i = 0; i < repeat; i++) {
  // interleave the three so machine noise hits them alike
  const cb = cpuSeconds();
  const b = await bare(cells);
  const bareCpu = cpuSeconds() - cb;
  const m1 = await memeval(1);
  const m2 = await memeval(2);
  rmSync(m1.out, { recursive: true, force: true });
  rmSync(m2.out, { recursive: true, force: true });
  rows.push({ m1: m1.ms, m2: m2.ms, b, cores1: m1.cpu / (m1.ms / 1000), cpu1: m1.cpu, bareCpu });
  console.log(
    `round ${i + 1}: bare ${b.toFixed(0)} ms, memeval 1 worker ${m1.ms.toFixed(0)} ms, 2 workers ${m2.ms.toFixed(0)} ms`,
  );
}
const m1 = median(rows.map((r) => r.m1));
const m2 = median(rows.map((r) => r.m2));
const b = median(rows.map((r) => r.b));
console.log(
  `\n${scenarios.length} scenarios, ${warm.report.results.length} phases, ${nCalls} MCP calls against ${DEFAULT_TARGET}, median of ${repeat}`,
);
console.log(`bare SDK script       ${b.toFixed(0)} ms`);
console.log(`memeval, 1 worker     ${m1.toFixed(0)} ms   overhead ${(m1 / b).toFixed(2)}x bare (aim <= 1.15x)`);
console.log(`memeval, 2 workers    ${m2.toFixed(0)} ms   speed-up ${(m1 / m2).toFixed(2)}x (aim >= 1.7x)`);
// a 1-worker run already keeps more than one core busy (the server, memeval, the judge process):
// with C cores the 2-worker run cannot be faster than total CPU / C
const cores1 = median(rows.map((r) => r.cores1));
const ncpu = availableParallelism();
console.log(
  `CPU time (with children): bare ${median(rows.map((r) => r.bareCpu)).toFixed(1)} s, memeval 1 worker ${median(rows.map((r) => r.cpu1)).toFixed(1)} s`,
);
console.log(
  `1-worker run keeps ${cores1.toFixed(2)} cores busy (CPU time of memeval and its children / wall); on ${ncpu} cores the speed-up cannot exceed ${(Math.min(2, ncpu) / cores1).toFixed(2)}x`,
);
// where a cell's time goes, summed over the warm-up run's cells (1 worker)
const stages = new Map<string, number>();
for (const r of warm.report.results)
  for (const [k, v] of Object.entries(r.timings_ms ?? {})) stages.set(k, (stages.get(k) ?? 0) + v);
const total = [...stages.values()].reduce((a, b) => a + b, 0);
console.log(
  `cell stages (1 worker, summed): ${[...stages].map(([k, v]) => `${k} ${v.toFixed(0)} ms (${((v / total) * 100).toFixed(0)}%)`).join(', ')}`,
);

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const f0 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(0));

if (argv.includes('--install-times')) {
  console.log('\nfresh install per target into a throwaway cache (npm cache as it is):');
  for (const { decl } of loadAllTargets()) {
    if (decl.package?.source !== 'cache') continue;
    const cache = mkdtempSync(join(tmpdir(), 'memeval-bench-cache-'));
    process.env.MEMEVAL_CACHE_DIR = cache;
    const t0 = performance.now();
    await installTarget(decl, () => {});
    console.log(`  ${decl.name.padEnd(20)} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    rmSync(cache, { recursive: true, force: true });
  }
  delete process.env.MEMEVAL_CACHE_DIR;
}

if (argv.includes('--targets')) {
  console.log('\nper target, built-in suite with 2 workers (ms):');
  console.log(
    `  ${'target'.padEnd(20)} ${'start→ready med'.padStart(16)} ${'call med'.padStart(9)} ${'call p95'.padStart(9)} ${'phase med'.padStart(10)} ${'phase p95'.padStart(10)} ${'suite'.padStart(8)} ${'provider'.padStart(9)} ${'share'.padStart(6)}`,
  );
  for (const t of loadAllTargets()) {
    if (!isInstalled(t.decl)) {
      console.log(`  ${t.decl.name.padEnd(20)} not installed (memeval targets install ${t.decl.name})`);
      continue;
    }
    const out = mkdtempSync(join(tmpdir(), 'memeval-bench-'));
    const t0 = performance.now();
    const { report } = await runDeterministic({
      scenarios,
      targets: [{ ...t, bin: resolveTargetBin(t.decl) }],
      workers: 2,
      keep: false,
      outDir: out,
    });
    const suite = performance.now() - t0;
    const runDir = join(out, report.run_id);
    const starts = report.results.flatMap((r) => r.server_start_ms ?? []);
    const calls = readFileSync(join(runDir, 'calls.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((c) => (c.method ?? 'tools/call') === 'tools/call')
      .map((c) => c.ms as number);
    const phases = report.results.map((r) => r.duration_ms);
    // the provider's own handling time per request (held answers count: the server waited on them)
    const provider = report.results.flatMap((r) => {
      const f = join(runDir, r.cell_dir, 'provider.jsonl');
      return existsSync(f)
        ? readFileSync(f, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => (JSON.parse(l) as { ms: number }).ms)
        : [];
    });
    const providerMs = provider.reduce((a, b) => a + b, 0);
    const cellMs = phases.reduce((a, b) => a + b, 0);
    const share = provider.length ? `${((providerMs / cellMs) * 100).toFixed(1)}%` : '-';
    console.log(
      `  ${t.decl.name.padEnd(20)} ${f0(pct(starts, 50)).padStart(16)} ${f0(pct(calls, 50)).padStart(9)} ${f0(pct(calls, 95)).padStart(9)} ${f0(pct(phases, 50)).padStart(10)} ${f0(pct(phases, 95)).padStart(10)} ${f0(suite).padStart(8)} ${(provider.length ? f0(providerMs) : '-').padStart(9)} ${share.padStart(6)}`,
    );
    rmSync(out, { recursive: true, force: true });
  }
}

if (argv.includes('--agents')) {
  console.log('\nper agent on the scripted model against server-memory, well-behaved policy (ms):');
  const withPrompts = scenarios.filter((s) => s.scenario.real_model);
  for (const adapter of AGENTS) {
    const bin = resolveAgentBin(adapter);
    if (!bin) {
      console.log(`  ${adapter.name}: not installed (memeval agents install ${adapter.name})`);
      continue;
    }
    const out = mkdtempSync(join(tmpdir(), 'memeval-bench-'));
    const { report } = await runRealModel({
      gate: costGate({ agent: adapter.name, model: SCRIPTED_MODEL }),
      scenarios: withPrompts,
      targets: [runTarget],
      adapter,
      agentBin: bin.file,
      agentVersion: bin.version,
      model: SCRIPTED_MODEL,
      policy: 'well-behaved',
      repeat: 1,
      promptTimeoutMs: 300000,
      mcpTimeoutMs: DEFAULT_MCP_TIMEOUT_MS,
      workers: 1,
      keep: false,
      outDir: out,
    });
    for (const r of report.results) {
      const turns = r.agent?.turns ?? [];
      const startup = turns.reduce((a, t) => a + (t.startup_ms ?? 0), 0);
      const wall = turns.reduce((a, t) => a + t.ms, 0);
      console.log(
        `  ${adapter.name.padEnd(12)} ${r.scenario.padEnd(34)} ${r.verdict.padEnd(8)} cell ${f0(r.duration_ms).padStart(6)}  agent ${f0(wall).padStart(6)}  start-up ${f0(startup).padStart(6)} (${f0((startup / wall) * 100)}%)`,
      );
    }
    rmSync(out, { recursive: true, force: true });
  }
}

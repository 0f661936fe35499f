import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { CellResult, Report } from '../../core/results.js';

/** Per-cell material the page shows beside the report: calls, transcripts, evidence paths. */
export interface CellExtras {
  calls: { seq?: number; method?: string; session?: number; stage?: string; op?: string; tool?: string; arguments?: string; result_text?: string; is_error?: boolean; ms?: number }[];
  calls_omitted: number;
  transcripts: { name: string; text: string }[];
  evidence: { cell_dir: string; files: string[] };
}

const MAX_CALLS = 200;
const MAX_TEXT = 4000;

const clip = (s: string, max = MAX_TEXT) => (s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s);

function readTail(file: string, max = MAX_TEXT): string | undefined {
  if (!existsSync(file) || !statSync(file).isFile()) return undefined;
  const text = readFileSync(file, 'utf8');
  return text.length > max ? `… (${text.length - max} earlier characters)\n${text.slice(-max)}` : text;
}

function calls(cellDir: string): Pick<CellExtras, 'calls' | 'calls_omitted'> {
  const file = join(cellDir, 'calls.jsonl');
  if (!existsSync(file)) return { calls: [], calls_omitted: 0 };
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const out: CellExtras['calls'] = [];
  for (const line of lines.slice(0, MAX_CALLS)) {
    try {
      const c = JSON.parse(line) as Record<string, unknown>;
      out.push({
        seq: c.seq as number,
        method: (c.method as string) ?? undefined,
        session: c.session as number,
        stage: c.stage as string,
        op: (c.op as string) ?? undefined,
        tool: c.tool as string,
        arguments: clip(JSON.stringify(c.arguments ?? null), 1500),
        result_text: clip(String(c.result_text ?? ''), 1500),
        is_error: Boolean(c.is_error),
        ms: c.ms as number,
      });
    } catch {
      out.push({ result_text: clip(line, 1500) });
    }
  }
  return { calls: out, calls_omitted: Math.max(0, lines.length - MAX_CALLS) };
}

export function gatherCell(r: CellResult, runDir: string): CellExtras {
  const cellDir = isAbsolute(r.cell_dir) ? r.cell_dir : join(runDir, r.cell_dir);
  const transcripts: CellExtras['transcripts'] = [];
  for (const turn of r.agent?.turns ?? [])
    for (const [kind, f] of [
      ['stdout', turn.stdout_file],
      ['stderr', turn.stderr_file],
    ] as const) {
      const text = readTail(isAbsolute(f) ? f : join(cellDir, f)) ?? readTail(join(runDir, f));
      if (text) transcripts.push({ name: `session ${turn.session} prompt ${turn.prompt} ${kind}`, text });
    }
  for (const f of ['stderr.1.log', 'stderr.2.log', 'stderr.3.log']) {
    const text = readTail(join(cellDir, f), 2000);
    if (text?.trim()) transcripts.push({ name: `server ${f}`, text });
  }
  const files = ['evidence.db', 'evidence.sql', 'calls.jsonl', 'store'].map((f) => join(cellDir, f)).filter((f) => existsSync(f));
  return { ...calls(cellDir), transcripts, evidence: { cell_dir: cellDir, files } };
}

export function gatherAll(report: Report, runDir: string): Record<string, CellExtras> {
  return Object.fromEntries(report.results.map((r) => [r.cell_id, gatherCell(r, runDir)]));
}

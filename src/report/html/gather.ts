import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import Database from 'better-sqlite3';
import type { CellResult, Report } from '../../core/results.js';
import { readCallsLog } from '../../mcp/calls-log.js';
import { JsonlError, tornLine } from '../../util/jsonl.js';
import { messageOf } from '../../util/errors.js';

/** Per-cell material the page shows beside the report: calls, transcripts, evidence paths. */
export interface CellExtras {
  calls: {
    seq?: number;
    method?: string;
    session?: number;
    stage?: string;
    op?: string;
    tool?: string;
    arguments?: string;
    result_text?: string;
    is_error?: boolean;
    ms?: number;
  }[];
  calls_omitted: number;
  transcripts: { name: string; text: string }[];
  evidence: { cell_dir: string; files: string[] };
  /** the recall probes the cell's judges read (evidence.db `recall_probes`); a note when none can be read */
  probes: {
    query: string;
    items: { rank: number; content: string }[];
    result_text: string;
    is_error: boolean;
    unreadable: string | null;
    ms: number;
  }[];
  probes_note?: string;
}

const MAX_CALLS = 200;
const MAX_TEXT = 4000;

/** Cut long text for the page, saying how much was left out. */
const shorten = (s: string, max = MAX_TEXT) =>
  s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s;

function readTail(file: string, max = MAX_TEXT): string | undefined {
  if (!existsSync(file) || !statSync(file).isFile()) return undefined;
  const text = readFileSync(file, 'utf8');
  return text.length > max ? `… (${text.length - max} earlier characters)\n${text.slice(-max)}` : text;
}

function calls(cellDir: string): Pick<CellExtras, 'calls' | 'calls_omitted'> {
  const file = join(cellDir, 'calls.jsonl');
  let log: ReturnType<typeof readCallsLog>;
  try {
    log = readCallsLog(file);
  } catch (e) {
    if (!(e instanceof JsonlError)) throw e;
    return { calls: [{ result_text: `the calls log cannot be read: ${e.message}` }], calls_omitted: 0 };
  }
  const out: CellExtras['calls'] = log.calls.slice(0, MAX_CALLS).map((c) => ({
    seq: c.seq,
    method: c.method,
    session: c.session,
    stage: c.stage,
    op: c.op ?? undefined,
    tool: c.tool,
    arguments: shorten(JSON.stringify(c.arguments ?? null), 1500),
    result_text: shorten(c.result_text, 1500),
    is_error: c.is_error,
    ms: c.ms,
  }));
  if (log.torn !== undefined) out.push({ result_text: tornLine(file, log.torn) });
  return { calls: out, calls_omitted: Math.max(0, log.calls.length - MAX_CALLS) };
}

/**
 * The cell's stored recall probes, read from its evidence DB as the evidence layer wrote them
 * (evidence/recall-probes.ts; report/ reads the table directly rather than depend on evidence/).
 */
function probes(cellDir: string): Pick<CellExtras, 'probes' | 'probes_note'> {
  const file = join(cellDir, 'evidence.db');
  if (!existsSync(file)) return { probes: [] };
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recall_probes'`).get())
      return { probes: [], probes_note: 'this evidence keeps no recall probes (written by an earlier memeval)' };
    const rows = db.prepare('SELECT * FROM recall_probes ORDER BY seq').all() as {
      query: string;
      items: string;
      result_text: string;
      is_error: number;
      unreadable: string | null;
      ms: number | null;
    }[];
    return {
      probes: rows.map((r) => {
        let items: { rank: number; content: string }[] = [];
        try {
          items = (JSON.parse(r.items) as { rank: number; content: string }[]).map((i) => ({
            rank: i.rank,
            content: shorten(String(i.content), 1500),
          }));
        } catch {
          // shown as unreadable below: judges over such a row are `error` too
        }
        return {
          query: r.query,
          items,
          result_text: shorten(r.result_text, 1500),
          is_error: r.is_error === 1,
          unreadable: r.unreadable,
          ms: r.ms ?? 0,
        };
      }),
    };
  } catch (e) {
    return { probes: [], probes_note: `the recall probes cannot be read: ${messageOf(e)}` };
  } finally {
    db?.close();
  }
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
  const files = ['evidence.db', 'evidence.sql', 'calls.jsonl', 'store']
    .map((f) => join(cellDir, f))
    .filter((f) => existsSync(f));
  return { ...calls(cellDir), ...probes(cellDir), transcripts, evidence: { cell_dir: cellDir, files } };
}

export function gatherAll(report: Pick<Report, 'results'>, runDir: string): Record<string, CellExtras> {
  return Object.fromEntries(report.results.map((r) => [r.cell_id, gatherCell(r, runDir)]));
}

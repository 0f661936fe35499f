import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { LlmSubject } from '../../scenario/llm-schema.js';
import { MemevalError } from '../../util/errors.js';
import type { Grounding } from './grounding.js';

/** What the judge was shown, and how much was cut to fit. */
export interface SubjectText {
  label: string;
  text: string;
  items_total: number;
  items_shown: number;
  /** items shortened to max_chars */
  items_cut: number;
  max_items: number;
  max_chars: number;
}

/** Sources a subject can come from; a judge without the one it needs abstains. */
export interface SubjectSources {
  db?: Database.Database;
  /**
   * recall results as items (null when the target's results cannot be itemised), plus the raw text;
   * `unreadable` (with its detail) when the recall was refused or its text holds none of the declared forms
   */
  recall?: (query: string) => Promise<{ items: string[] | null; text: string; unreadable?: string }>;
  answer?: string;
  fixtureDir?: string;
  /** items given directly (calibration cases): used whatever the subject */
  inline?: { label: string; items: string[] };
  /** what the answer may be grounded in (faithful, hallucination), or why it could not be read */
  grounding?: Grounding | { problem: string };
}

/** The answer a grounded check judges: a calibration case's items, else the cell's final answer. */
export function answerText(src: SubjectSources): string | undefined {
  return src.inline ? src.inline.items.join('\n') : src.answer;
}

export class SubjectUnavailable extends MemevalError {
  constructor(message: string) {
    super('SUBJECT_UNAVAILABLE', message);
  }
}

interface SubjectSpec {
  subject: LlmSubject;
  where?: string;
  query?: string;
  sql?: string;
  files?: string[];
  max_items: number;
  max_chars: number;
}

function readonlyRows(db: Database.Database, sql: string): Record<string, unknown>[] {
  const stmt = db.prepare(sql);
  if (!stmt.reader || !stmt.readonly) throw new Error('the subject query must be a read-only SELECT');
  return stmt.all() as Record<string, unknown>[];
}

async function items(spec: SubjectSpec, src: SubjectSources): Promise<{ label: string; items: string[] }> {
  if (src.inline) return src.inline;
  switch (spec.subject) {
    case 'memories': {
      if (!src.db) throw new SubjectUnavailable('no evidence store to read memories from');
      const where = ['coalesce(is_deleted, 0) = 0', ...(spec.where ? [`(${spec.where})`] : [])].join(' AND ');
      const rows = readonlyRows(src.db, `SELECT content, category FROM memories WHERE ${where}`);
      return {
        label: spec.where ? `stored memories where ${spec.where}` : 'stored memories',
        items: rows.map((r) => (r.category ? `[${String(r.category)}] ` : '') + String(r.content ?? '')),
      };
    }
    case 'recall': {
      if (!src.recall) throw new SubjectUnavailable('no recall probe available (the target is not running)');
      const r = await src.recall(spec.query!);
      // an unreadable recall shown as "(none)" would let a judge pass an empty list over the memory itself
      if (r.unreadable) throw new Error(r.unreadable);
      // unitemised results are judged as one block: the judge still sees everything, unnumbered
      return { label: `recall results for "${spec.query}"`, items: r.items ?? (r.text.trim() ? [r.text] : []) };
    }
    case 'answer':
      if (src.answer === undefined) throw new SubjectUnavailable('no agent final answer in this cell');
      return { label: "the agent's final answer", items: [src.answer] };
    case 'sql': {
      if (!src.db) throw new SubjectUnavailable('no evidence store to query');
      return { label: `rows of ${spec.sql}`, items: readonlyRows(src.db, spec.sql!).map((r) => JSON.stringify(r)) };
    }
    case 'files': {
      if (!src.fixtureDir)
        throw new SubjectUnavailable('no fixture directory (it is removed after the run unless --keep)');
      const root = resolve(src.fixtureDir);
      return {
        label: `fixture files ${spec.files!.join(', ')}`,
        items: spec.files!.map((f) => {
          const p = resolve(root, f);
          if (relative(root, p).startsWith('..')) throw new Error(`file ${f} is outside the fixture`);
          return `${f}:\n${readFileSync(p, 'utf8')}`;
        }),
      };
    }
  }
}

/** Gather and truncate the subject predictably: the first max_items items, each cut at max_chars. */
export async function loadSubject(spec: SubjectSpec, src: SubjectSources): Promise<SubjectText> {
  const { label, items: all } = await items(spec, src);
  const shown = all.slice(0, spec.max_items);
  let cut = 0;
  const lines = shown.map((t, i) => {
    const one = t.length > spec.max_chars ? (cut++, t.slice(0, spec.max_chars) + ' […cut]') : t;
    return `${i + 1}. ${one}`;
  });
  if (all.length > shown.length) lines.push(`(${all.length - shown.length} more item(s) not shown)`);
  return {
    label,
    text: lines.length ? lines.join('\n') : '(none)',
    items_total: all.length,
    items_shown: shown.length,
    items_cut: cut,
    max_items: spec.max_items,
    max_chars: spec.max_chars,
  };
}

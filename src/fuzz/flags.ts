import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../util/errors.js';
import type { FuzzCase } from './case.js';
import { signature, type Finding } from './checks.js';
import type { DismissReason } from './settings.js';

/**
 * Schema steps, applied in order; step i takes a file from user_version i to i + 1. Never
 * edit a released step: add one, so a file made by an older memeval gains columns in order.
 */
export const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE flags (
      fingerprint TEXT NOT NULL,
      target TEXT NOT NULL,
      recipe TEXT NOT NULL,
      ever_flagged INTEGER NOT NULL DEFAULT 0,
      first_flagged_reason TEXT,
      first_flagged_at TEXT,
      last_run_at TEXT,
      last_result TEXT,
      last_reason TEXT,
      currently_flagged INTEGER NOT NULL DEFAULT 0,
      review_status TEXT NOT NULL DEFAULT 'none',
      PRIMARY KEY (fingerprint, target)
    )`,
  ],
  [
    'ALTER TABLE flags ADD COLUMN last_flagged_at TEXT',
    'ALTER TABLE flags ADD COLUMN last_signature TEXT',
    'ALTER TABLE flags ADD COLUMN last_findings TEXT',
    'ALTER TABLE flags ADD COLUMN flagged_case TEXT',
    'ALTER TABLE flags ADD COLUMN dismissed_signature TEXT',
    'ALTER TABLE flags ADD COLUMN dismissed_at TEXT',
    'ALTER TABLE flags ADD COLUMN runs INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE flags ADD COLUMN flagged_runs INTEGER NOT NULL DEFAULT 0',
  ],
  [
    // each call's latency, by target and recipe key, so a run is judged against earlier runs from its first call
    `CREATE TABLE latency (
      target TEXT NOT NULL,
      key TEXT NOT NULL,
      ms REAL NOT NULL,
      at TEXT NOT NULL
    )`,
    'CREATE INDEX latency_target_key ON latency (target, key)',
  ],
  [
    // the smallest case a shrink observed raising the flag again (the original stays in flagged_case)
    'ALTER TABLE flags ADD COLUMN shrunk_case TEXT',
    'ALTER TABLE flags ADD COLUMN shrunk_findings TEXT',
    'ALTER TABLE flags ADD COLUMN shrunk_signature TEXT',
    'ALTER TABLE flags ADD COLUMN shrink_note TEXT',
  ],
  [
    // what a person decided about a flag, and the flag they decided it about: the detector's precision
    'ALTER TABLE flags ADD COLUMN outcome TEXT',
    'ALTER TABLE flags ADD COLUMN outcome_signature TEXT',
    'ALTER TABLE flags ADD COLUMN outcome_at TEXT',
  ],
];

export { DISMISS_REASONS, type DismissReason } from './settings.js';
export type Outcome = 'confirmed' | DismissReason;
/** Outcomes that say the flag pointed at a real defect (a duplicate too: it was right, just found before). */
const TRUE_POSITIVE: Record<Outcome, boolean> = {
  confirmed: true,
  duplicate: true,
  'false-positive': false,
  expected: false,
};

/** Precision over the flags people decided about, for one check or one target. */
export interface PrecisionRow {
  key: string;
  outcomes: Record<Outcome, number>;
  /** confirmed + duplicate */
  right: number;
  decided: number;
}

export interface FlagStats {
  by_check: PrecisionRow[];
  by_target: PrecisionRow[];
  /** rows with an outcome */
  decided: number;
  /** rows ever flagged */
  flagged: number;
  /** dismissed without a reason: no outcome, not counted */
  dismissed_without_reason: number;
}

/** How many of a recipe key's latest samples the store keeps per target. */
export const LATENCY_KEEP = 500;
export const SCHEMA_VERSION = MIGRATIONS.length;

export type ReviewStatus = 'none' | 'open' | 'dismissed';

export interface FlagRow {
  fingerprint: string;
  target: string;
  recipe: string;
  ever_flagged: number;
  first_flagged_reason: string | null;
  first_flagged_at: string | null;
  last_run_at: string | null;
  /** `unjudged`: no finding, but a claim check could not judge (a refused recall): not a clean run */
  last_result: 'flagged' | 'clean' | 'unjudged' | null;
  last_reason: string | null;
  currently_flagged: number;
  review_status: ReviewStatus;
  last_flagged_at: string | null;
  last_signature: string | null;
  last_findings: string | null;
  flagged_case: string | null;
  dismissed_signature: string | null;
  dismissed_at: string | null;
  runs: number;
  flagged_runs: number;
  /** the shrunk case (JSON), observed raising `shrunk_signature`; null when no shrink produced one */
  shrunk_case: string | null;
  shrunk_findings: string | null;
  shrunk_signature: string | null;
  /** what the last shrink did, or why it kept the original */
  shrink_note: string | null;
  /** what a person decided: a confirmed defect, or why it was dismissed */
  outcome: Outcome | null;
  /** the flag (checks and claims) the outcome was decided about */
  outcome_signature: string | null;
  outcome_at: string | null;
}

export function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION)
    throw new InputError(
      `${db.name}: flag store schema ${version} is newer than this memeval understands (${SCHEMA_VERSION})`,
    );
  for (let v = version; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      for (const sql of MIGRATIONS[v]) db.exec(sql);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/** The review queue: one row per fingerprint × target; flags are sticky until a person dismisses them. */
export class FlagStore {
  readonly db: Database.Database;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    migrate(this.db);
  }

  close(): void {
    this.db.close();
  }

  /**
   * A target's stored latency samples for one recipe key, oldest first. A sample that is not a
   * finite, non-negative number is a damaged history: this throws rather than judge against it.
   */
  latencySamples(target: string, key: string): number[] {
    const rows = this.db
      .prepare('SELECT ms FROM latency WHERE target = ? AND key = ? ORDER BY rowid')
      .pluck()
      .all(target, key) as unknown[];
    const bad = rows.find((ms) => typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0);
    if (bad !== undefined)
      throw new Error(`${this.file}: a latency sample of ${target} / ${key} is not a duration (${String(bad)})`);
    return rows as number[];
  }

  /** Add samples and keep only the latest LATENCY_KEEP of that key. */
  addLatency(target: string, key: string, ms: number[], now = new Date().toISOString()): void {
    if (!ms.length) return;
    const ins = this.db.prepare('INSERT INTO latency (target, key, ms, at) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const m of ms) ins.run(target, key, m, now);
      this.db
        .prepare(
          'DELETE FROM latency WHERE target = ? AND key = ? AND rowid NOT IN (SELECT rowid FROM latency WHERE target = ? AND key = ? ORDER BY rowid DESC LIMIT ?)',
        )
        .run(target, key, target, key, LATENCY_KEEP);
    })();
  }

  /** Fingerprints already run against a target, for novelty. */
  seen(target: string): string[] {
    return this.db.prepare('SELECT fingerprint FROM flags WHERE target = ?').pluck().all(target) as string[];
  }

  /**
   * Record one case's result. A clean run never resets ever_flagged or the first reason. A run
   * without findings whose claim checks could not all judge (`unjudged`) is no clean run: it
   * leaves currently_flagged as it was, and says why in last_reason.
   */
  record(
    c: FuzzCase,
    target: string,
    findings: Finding[],
    now = new Date().toISOString(),
    unjudged: string[] = [],
  ): FlagRow {
    const prev = this.get(c.fingerprint, target);
    const flagged = findings.length > 0;
    const undecided = !flagged && unjudged.length > 0;
    const sig = flagged ? signature(findings) : null;
    const reason = flagged
      ? findings.map((f) => `${f.check}${f.claim ? ` (${f.claim})` : ''}: ${f.reason}`).join(' | ')
      : undecided
        ? `unjudged: ${unjudged.join(' | ')}`
        : null;
    let status: ReviewStatus = prev?.review_status ?? 'none';
    // a dismissed row comes back only for a flag different from the one dismissed
    if (flagged) status = status === 'dismissed' && prev?.dismissed_signature === sig ? 'dismissed' : 'open';
    this.db
      .prepare(
        `INSERT INTO flags (fingerprint, target, recipe, ever_flagged, first_flagged_reason, first_flagged_at, last_run_at, last_result, last_reason,
           currently_flagged, review_status, last_flagged_at, last_signature, last_findings, flagged_case, runs, flagged_runs)
         VALUES (@fingerprint, @target, @recipe, @flagged, @firstReason, @flaggedAt, @now, @result, @reason, @current, @status, @flaggedAt, @sig, @findings, @caseJson, 1, @flagged)
         ON CONFLICT (fingerprint, target) DO UPDATE SET
           ever_flagged = max(ever_flagged, excluded.ever_flagged),
           first_flagged_reason = coalesce(first_flagged_reason, excluded.first_flagged_reason),
           first_flagged_at = coalesce(first_flagged_at, excluded.first_flagged_at),
           last_run_at = excluded.last_run_at,
           last_result = excluded.last_result,
           last_reason = excluded.last_reason,
           currently_flagged = excluded.currently_flagged,
           review_status = excluded.review_status,
           last_flagged_at = coalesce(excluded.last_flagged_at, last_flagged_at),
           last_signature = coalesce(excluded.last_signature, last_signature),
           last_findings = coalesce(excluded.last_findings, last_findings),
           flagged_case = coalesce(excluded.flagged_case, flagged_case),
           runs = runs + 1,
           flagged_runs = flagged_runs + excluded.flagged_runs`,
      )
      .run({
        fingerprint: c.fingerprint,
        target,
        recipe: c.recipe,
        flagged: flagged ? 1 : 0,
        reason,
        firstReason: flagged ? reason : null,
        current: flagged ? 1 : undecided ? (prev?.currently_flagged ?? 0) : 0,
        flaggedAt: flagged ? now : null,
        now,
        result: flagged ? 'flagged' : undecided ? 'unjudged' : 'clean',
        status,
        sig,
        findings: flagged ? JSON.stringify(findings) : null,
        caseJson: flagged ? JSON.stringify(c) : null,
      });
    return this.get(c.fingerprint, target)!;
  }

  /**
   * What a shrink of the row's flagged case found. A shrink that reproduced nothing records its
   * note only: an earlier shrunk case stays (it was observed), and export checks its signature.
   */
  recordShrink(
    fingerprint: string,
    target: string,
    r: { shrunk?: FuzzCase; findings?: Finding[]; signature: string; note: string },
  ): void {
    if (r.shrunk && r.findings)
      this.db
        .prepare(
          'UPDATE flags SET shrunk_case = ?, shrunk_findings = ?, shrunk_signature = ?, shrink_note = ? WHERE fingerprint = ? AND target = ?',
        )
        .run(JSON.stringify(r.shrunk), JSON.stringify(r.findings), r.signature, r.note, fingerprint, target);
    else
      this.db
        .prepare('UPDATE flags SET shrink_note = ? WHERE fingerprint = ? AND target = ?')
        .run(r.note, fingerprint, target);
  }

  get(fingerprint: string, target: string): FlagRow | undefined {
    return this.db.prepare('SELECT * FROM flags WHERE fingerprint = ? AND target = ?').get(fingerprint, target) as
      FlagRow | undefined;
  }

  /** The queue: every row ever flagged and not dismissed (or all ever flagged), newest first. */
  list(all = false): FlagRow[] {
    return this.db
      .prepare(
        `SELECT * FROM flags WHERE ever_flagged = 1 ${all ? '' : "AND review_status <> 'dismissed'"}
         ORDER BY coalesce(last_flagged_at, first_flagged_at) DESC, fingerprint`,
      )
      .all() as FlagRow[];
  }

  /** Rows for a fingerprint (or a unique prefix of one), optionally of one target. Unknown is an error. */
  find(fingerprint: string, target?: string): FlagRow[] {
    const rows = (
      this.db
        .prepare("SELECT * FROM flags WHERE ever_flagged = 1 AND fingerprint LIKE ? || '%' ORDER BY target")
        .all(fingerprint) as FlagRow[]
    ).filter((r) => !target || r.target === target);
    const fps = new Set(rows.map((r) => r.fingerprint));
    if (!rows.length)
      throw new InputError(
        `no flag with fingerprint "${fingerprint}"${target ? ` for target ${target}` : ''} in ${this.file} (see \`memeval flags --all\`)`,
      );
    if (fps.size > 1)
      throw new InputError(
        `fingerprint prefix "${fingerprint}" matches ${fps.size} flags (${[...fps].join(', ')}); give more of it`,
      );
    return rows;
  }

  /**
   * Take rows out of the queue. History stays; a different flag later brings them back. With a
   * reason, the dismissal is an outcome the precision counts; without one it counts nowhere.
   */
  dismiss(fingerprint: string, target?: string, now = new Date().toISOString(), reason?: DismissReason): FlagRow[] {
    const rows = this.find(fingerprint, target);
    const upd = this.db.prepare(
      "UPDATE flags SET review_status = 'dismissed', dismissed_signature = last_signature, dismissed_at = ? WHERE fingerprint = ? AND target = ?",
    );
    this.db.transaction(() =>
      rows.forEach((r) => {
        upd.run(now, r.fingerprint, r.target);
        if (reason) this.setOutcome(r, reason, now);
      }),
    )();
    return rows.map((r) => this.get(r.fingerprint, r.target)!);
  }

  /** Record a flag as a confirmed defect; it stays in the queue until it is fixed and dismissed. */
  confirm(fingerprint: string, target?: string, now = new Date().toISOString()): FlagRow[] {
    const rows = this.find(fingerprint, target);
    this.db.transaction(() => rows.forEach((r) => this.setOutcome(r, 'confirmed', now)))();
    return rows.map((r) => this.get(r.fingerprint, r.target)!);
  }

  private setOutcome(r: FlagRow, outcome: Outcome, now: string): void {
    this.db
      .prepare(
        'UPDATE flags SET outcome = ?, outcome_signature = last_signature, outcome_at = ? WHERE fingerprint = ? AND target = ?',
      )
      .run(outcome, now, r.fingerprint, r.target);
  }

  /**
   * The detector's precision from recorded outcomes, per check (a broken claim per claim) and per
   * target. Only rows someone decided about count: no outcome is no precision, never 100%.
   */
  stats(): FlagStats {
    const rows = this.list(true);
    const decided = rows.filter((r) => r.outcome !== null);
    const tally = (keyOf: (r: FlagRow) => string[]): PrecisionRow[] => {
      const by = new Map<string, PrecisionRow>();
      for (const r of decided)
        for (const key of keyOf(r)) {
          const p = by.get(key) ?? {
            key,
            outcomes: { confirmed: 0, duplicate: 0, 'false-positive': 0, expected: 0 },
            right: 0,
            decided: 0,
          };
          p.outcomes[r.outcome!]++;
          p.decided++;
          if (TRUE_POSITIVE[r.outcome!]) p.right++;
          by.set(key, p);
        }
      return [...by.values()].sort((a, b) => a.key.localeCompare(b.key));
    };
    return {
      by_check: tally((r) => (r.outcome_signature ?? r.last_signature ?? '(unknown)').split(',')),
      by_target: tally((r) => [r.target]),
      decided: decided.length,
      flagged: rows.length,
      dismissed_without_reason: rows.filter((r) => r.review_status === 'dismissed' && r.outcome === null).length,
    };
  }
}

import type Database from 'better-sqlite3';
import type { ProviderCall } from '../model/provider/types.js';
import { PROVIDER_CALLS_COLUMNS } from './schema.js';

/**
 * `provider_calls`: what the memory server asked its model provider. `inputs` is the JSON array
 * of inputs (embedding texts, or "role: text" chat messages); `input_text` joins them so `instr()`
 * can look for a string in any; `matched` names the answer rule or, per input, the similarity
 * that shaped the vector; `fault` is the fault served instead of a good answer (http-429,
 * timeout, ...; NULL when none), `fault_rule` the scenario's fault rule that served it, and
 * `answer` then says what went on the wire. A timeout's `status` is 0: nothing was sent.
 */
export function writeProviderCalls(db: Database.Database, calls: ProviderCall[]): void {
  db.exec(`CREATE TABLE provider_calls (seq INTEGER PRIMARY KEY, ts TEXT, method TEXT, path TEXT, protocol TEXT, kind TEXT, model TEXT,
    inputs TEXT, input_text TEXT, dimensions INTEGER, matched TEXT, answer TEXT, held_ms REAL, status INTEGER, ms REAL,
    fault TEXT, fault_rule TEXT)`);
  const ins = db.prepare(
    `INSERT INTO provider_calls (${PROVIDER_CALLS_COLUMNS.join(', ')}) VALUES (${PROVIDER_CALLS_COLUMNS.map(() => '?').join(',')})`,
  );
  db.transaction(() => {
    for (const c of calls)
      ins.run(
        c.seq,
        c.ts,
        c.method,
        c.path,
        c.protocol,
        c.kind,
        c.model,
        JSON.stringify(c.inputs),
        c.inputs.join('\n'),
        c.dimensions,
        c.matched.join(', '),
        c.answer,
        c.held_ms,
        c.status,
        c.ms,
        c.fault ?? null,
        c.fault_rule ?? null,
      );
  })();
}

/** The fault rule of every call in the evidence that was served a fault, in call order. */
export function servedFaultRules(db: Database.Database): { fault_rule: string }[] {
  const has = db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'provider_calls'").pluck().get() as number;
  if (!has) return [];
  return db.prepare('SELECT fault_rule FROM provider_calls WHERE fault_rule IS NOT NULL ORDER BY seq').all() as {
    fault_rule: string;
  }[];
}

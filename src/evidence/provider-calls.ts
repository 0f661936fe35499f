import type Database from 'better-sqlite3';
import type { ProviderCall, ProviderStage } from '../model/provider/types.js';
import { PROVIDER_CALLS_COLUMNS } from './schema.js';

/**
 * `provider_calls`: what the memory server asked its model provider. `inputs` is the JSON array
 * of inputs (embedding texts, or "role: text" chat messages); `input_text` joins them so `instr()`
 * can look for a string in any; `matched` names the answer rule or, per input, the similarity
 * that shaped the vector; `fault` is the fault served instead of a good answer (http-429,
 * timeout, ...; NULL when none), `fault_rule` the scenario's fault rule that served it, and
 * `answer` then says what went on the wire. A timeout's `status` is 0: nothing was sent.
 * `stage` is where in the cell the request arrived: setup, step (memeval's phase steps), agent
 * (an agent's run) or judge (after the phase); NULL where none was set.
 */
export function writeProviderCalls(db: Database.Database, calls: ProviderCall[]): void {
  db.exec(`CREATE TABLE provider_calls (seq INTEGER PRIMARY KEY, ts TEXT, method TEXT, path TEXT, protocol TEXT, kind TEXT, model TEXT,
    inputs TEXT, input_text TEXT, dimensions INTEGER, matched TEXT, answer TEXT, held_ms REAL, status INTEGER, ms REAL,
    fault TEXT, fault_rule TEXT, stage TEXT)`);
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
        c.stage ?? null,
      );
  })();
}

/**
 * The fault rule and stage of every call in the evidence that was served a fault, in call order.
 * Evidence from before the `stage` column gives a null stage: where it was served is unknown.
 */
export function servedFaultRules(db: Database.Database): { fault_rule: string; stage: ProviderStage | null }[] {
  const has = db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'provider_calls'").pluck().get() as number;
  if (!has) return [];
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('provider_calls') as string[];
  const stage = columns.includes('stage') ? 'stage' : 'NULL AS stage';
  return db
    .prepare(`SELECT fault_rule, ${stage} FROM provider_calls WHERE fault_rule IS NOT NULL ORDER BY seq`)
    .all() as { fault_rule: string; stage: ProviderStage | null }[];
}

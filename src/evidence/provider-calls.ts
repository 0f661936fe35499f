import type Database from 'better-sqlite3';
import type { ProviderCall } from '../model/provider/types.js';
import { PROVIDER_CALLS_COLUMNS } from './schema.js';

/**
 * `provider_calls`: what the memory server asked its model provider. `inputs` is the JSON array
 * of inputs (embedding texts, or "role: text" chat messages); `input_text` joins them so `instr()`
 * can look for a string in any; `matched` names the answer rule or, per input, the similarity
 * that shaped the vector.
 */
export function writeProviderCalls(db: Database.Database, calls: ProviderCall[]): void {
  db.exec(`CREATE TABLE provider_calls (seq INTEGER PRIMARY KEY, ts TEXT, method TEXT, path TEXT, protocol TEXT, kind TEXT, model TEXT,
    inputs TEXT, input_text TEXT, dimensions INTEGER, matched TEXT, answer TEXT, held_ms REAL, status INTEGER, ms REAL)`);
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
      );
  })();
}

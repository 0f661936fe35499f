import type Database from 'better-sqlite3';
import type { ProviderCall } from '../model/provider/types.js';

/**
 * `provider_calls`: what the memory server asked its model provider. `input_text` joins the
 * inputs (embedding texts, or "role: text" messages) so `instr()` can look for a string in any.
 */
export function writeProviderCalls(db: Database.Database, calls: ProviderCall[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS provider_calls (
    seq INTEGER PRIMARY KEY, ts TEXT, method TEXT, path TEXT, protocol TEXT, kind TEXT, model TEXT,
    inputs TEXT, input_text TEXT, dimensions INTEGER, matched TEXT, answer TEXT, held_ms REAL, status INTEGER, ms REAL)`);
  const ins = db.prepare('INSERT INTO provider_calls VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)');
  db.transaction(() => {
    for (const c of calls)
      ins.run(c.seq, c.ts, c.method, c.path, c.protocol, c.kind, c.model, JSON.stringify(c.inputs), c.inputs.join('\n'), c.dimensions, c.matched.join(', '), c.answer, c.held_ms, c.status, c.ms);
  })();
}

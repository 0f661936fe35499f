import type { Assertion } from '../../scenario/schema.js';
import type { JudgeContext } from '../context.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { clip } from '../../util/text.js';

type Integrity = Extract<Assertion, { kind: 'integrity' }>;

interface Row {
  file: string;
  checked: string;
  ok: number;
  detail: string;
}

const EXPECTED = 'the store opens and every file is well-formed';

/**
 * Whether the store opens and is well-formed, from the check the snapshot made of each of its
 * files (evidence/integrity.ts). A store that does not open is a fail naming why: the check
 * observed it. Nothing checked (no table, no row) is an error, never a pass.
 */
export function judgeIntegrity(a: Integrity, ctx: JudgeContext): Judgment {
  let rows: Row[];
  try {
    rows = ctx.evidence.db.prepare('SELECT file, checked, ok, detail FROM store_integrity ORDER BY seq').all() as Row[];
  } catch (e) {
    return judgment(
      a,
      'error',
      null,
      EXPECTED,
      `store_integrity: ${(e as Error).message} (evidence written before memeval checked the store's integrity)`,
    );
  }
  if (!rows.length)
    return judgment(
      a,
      'error',
      null,
      EXPECTED,
      'no file of the store was checked: there was no store on disk (a store kept in the process, or one never created)',
    );
  const bad = rows.filter((r) => !r.ok);
  const line = (r: Row) => `${r.file} (${r.checked}): ${clip(r.detail, 300)}`;
  return decided(a, bad.length === 0, {
    actual: bad.length ? bad.map(line) : 'intact',
    expected: EXPECTED,
    detail: (bad.length ? bad : rows).map(line).join('; '),
    observed: rows.map((r) => `${line(r)} [${r.ok ? 'ok' : 'failed'}]`).join('; '),
  });
}

/** What a point of `memeval targets check` is about. */
export const CHECK_POINT_KINDS = [
  'server',
  'tool',
  'remember',
  'capture_id',
  'ids',
  'store',
  'view',
  'memories',
  'recall',
  'recall-rank',
  'recall-empty',
  'update',
  'forget',
  'claim',
] as const;
export type CheckPointKind = (typeof CHECK_POINT_KINDS)[number];

/**
 * One checked point of a declaration. `skip` is a point that does not apply (the op is not
 * declared, the store is the server's process); `unchecked` is one that applies but could not be
 * checked (an earlier point failed, the server gave nothing to check it on): the detail says why.
 * Neither counts as a pass; a declaration with a `fail` fails, and one with an `unchecked` point
 * fails too unless the check was told to allow it (`--allow-unchecked`).
 */
export interface CheckPoint {
  kind: CheckPointKind;
  /** the part of the declaration it is about, e.g. `ops.remember[0]`, `views.memories`, `claims.forget` */
  subject: string;
  status: 'pass' | 'fail' | 'skip' | 'unchecked';
  /** what was seen */
  detail: string;
  /** for a failure: what to change in the declaration */
  fix?: string;
}

export const pass = (kind: CheckPointKind, subject: string, detail: string): CheckPoint => ({
  kind,
  subject,
  status: 'pass',
  detail,
});
export const fail = (kind: CheckPointKind, subject: string, detail: string, fix: string): CheckPoint => ({
  kind,
  subject,
  status: 'fail',
  detail,
  fix,
});
export const skip = (kind: CheckPointKind, subject: string, detail: string): CheckPoint => ({
  kind,
  subject,
  status: 'skip',
  detail,
});

/** A point that applies but was not checked: why, in its detail. */
export const unchecked = (kind: CheckPointKind, subject: string, detail: string): CheckPoint => ({
  kind,
  subject,
  status: 'unchecked',
  detail,
});

const MARK = { pass: '✓', fail: '✗', skip: '–', unchecked: '?' } as const;

/** One line per point: mark, subject, what was seen, and for a failure the fix. */
export function formatPoint(p: CheckPoint): string {
  return `${MARK[p.status]} ${p.subject}: ${oneLine(p.detail)}${p.fix ? ` → fix: ${oneLine(p.fix)}` : ''}`;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ⏎ ');

/** The closing line: how many points held, failed, could not be checked and did not apply. */
export function summaryLine(points: CheckPoint[]): string {
  const n = (s: CheckPoint['status']) => points.filter((p) => p.status === s).length;
  const failed = n('fail');
  return (
    `${failed ? `${failed} of ${points.length} point(s) failed` : `all ${n('pass')} checked point(s) hold`}` +
    `${n('unchecked') ? `, ${n('unchecked')} could not be checked` : ''}${n('skip') ? `, ${n('skip')} do not apply` : ''}`
  );
}

/**
 * Whether a check's points approve the declaration: none failed, and none was left unchecked
 * unless that is allowed. A point that could not be checked is never a silent pass.
 */
export function pointsHold(points: CheckPoint[], allowUnchecked: boolean): boolean {
  return !points.some((p) => p.status === 'fail' || (p.status === 'unchecked' && !allowUnchecked));
}

/** Dot paths of the arrays in a JSON text, shallowest first ("" for a top-level array). */
export function jsonArrayPaths(text: string): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const out: string[] = [];
  const walk = (v: unknown, path: string, depth: number) => {
    if (Array.isArray(v)) out.push(path);
    else if (v && typeof v === 'object' && depth < 3)
      for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k, depth + 1);
  };
  walk(doc, '', 0);
  return out.slice(0, 5);
}

/** What a point of `memeval targets check` is about. */
export const CHECK_POINT_KINDS = [
  'server',
  'tool',
  'remember',
  'capture_id',
  'store',
  'view',
  'memories',
  'recall',
  'recall-empty',
  'update',
  'forget',
  'claim',
] as const;
export type CheckPointKind = (typeof CHECK_POINT_KINDS)[number];

/**
 * One checked point of a declaration. `skip` is a point that does not apply or was not reached
 * (the detail says which); it never counts as a pass, and a declaration with a `fail` fails.
 */
export interface CheckPoint {
  kind: CheckPointKind;
  /** the part of the declaration it is about, e.g. `ops.remember[0]`, `views.memories`, `claims.forget` */
  subject: string;
  status: 'pass' | 'fail' | 'skip';
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

const MARK = { pass: '✓', fail: '✗', skip: '–' } as const;

/** One line per point: mark, subject, what was seen, and for a failure the fix. */
export function formatPoint(p: CheckPoint): string {
  return `${MARK[p.status]} ${p.subject}: ${oneLine(p.detail)}${p.fix ? ` → fix: ${oneLine(p.fix)}` : ''}`;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ⏎ ');

/** The closing line: how many points held, failed and did not apply. */
export function summaryLine(points: CheckPoint[]): string {
  const n = (s: CheckPoint['status']) => points.filter((p) => p.status === s).length;
  const failed = n('fail');
  return `${failed ? `${failed} of ${points.length} point(s) failed` : `all ${n('pass')} checked point(s) hold`}${n('skip') ? `, ${n('skip')} not checked` : ''}`;
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

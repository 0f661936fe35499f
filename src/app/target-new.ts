import { draftDeclaration, type Draft, type DraftOptions } from '../declare/draft/draft.js';
import { writeDraft } from '../declare/draft/write.js';
import { InputError, messageOf } from '../util/errors.js';
import { checkTarget, formatPoint, type TargetCheckReport } from './target-check.js';

export interface NewTargetOptions extends DraftOptions {
  /** the draft's check passes with points that could not be checked */
  allowUnchecked?: boolean;
}

export interface NewTargetResult extends Draft {
  /** `targets check` over the written draft, or why it stopped before it could report */
  check: TargetCheckReport | string;
}

/**
 * `memeval targets new`: draft a declaration for a package (`declare/draft/`), then run
 * `targets check` on the written draft; the points that fail it are written into the draft.
 */
export async function draftTarget(o: NewTargetOptions): Promise<NewTargetResult> {
  const draft = await draftDeclaration(o);
  const { file, decl, toDecide } = draft;
  o.log(`checking the draft: memeval targets check ${file}`);
  let check: TargetCheckReport | string;
  try {
    check = await checkTarget(file, { log: o.log, allowUnchecked: o.allowUnchecked });
  } catch (e) {
    // the draft was written and loads: a check that cannot finish over it fails the draft, and the draft stays
    if (e instanceof InputError) throw e;
    check = `targets check stopped: ${messageOf(e)}`;
  }
  // the points that fail the draft: failed ones, and (unless allowed) those that could not be checked
  const failing =
    typeof check === 'string'
      ? [check]
      : check.points
          .filter((p) => p.status === 'fail' || (p.status === 'unchecked' && !check.allow_unchecked))
          .map(formatPoint);
  if (failing.length) writeDraft(file, decl, toDecide, failing);
  return { ...draft, check };
}

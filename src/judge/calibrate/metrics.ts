/**
 * Agreement between a judge and labelled cases. The positive class is `fail`: the judge flags
 * a problem (noise, a secret, an irrelevant result). An undecided judgment (abstain or error)
 * counts as wrong for accuracy and as a miss for recall; Cohen's kappa is computed over the
 * decided judgments only, where both raters use the same two labels.
 */
export type Label = 'pass' | 'fail';
export type Judged = Label | 'undecided';

export interface Confusion {
  /** expected → judged → count */
  pass: Record<Judged, number>;
  fail: Record<Judged, number>;
}

export interface Metrics {
  judgments: number;
  decided: number;
  undecided: number;
  correct: number;
  accuracy: number | null;
  /** of the judge's fail verdicts, the share labelled fail */
  precision: number | null;
  /** of the cases labelled fail, the share the judge failed */
  recall: number | null;
  /** of the cases labelled pass, the share the judge passed (true-negative rate of a problem detector) */
  specificity: number | null;
  kappa: number | null;
  confusion: Confusion;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);

export function metrics(pairs: { expected: Label; judged: Judged }[]): Metrics {
  const confusion: Confusion = { pass: { pass: 0, fail: 0, undecided: 0 }, fail: { pass: 0, fail: 0, undecided: 0 } };
  for (const p of pairs) confusion[p.expected][p.judged]++;
  const tp = confusion.fail.fail;
  const fp = confusion.pass.fail;
  const tn = confusion.pass.pass;
  const fnDecided = confusion.fail.pass;
  const decided = tp + fp + tn + fnDecided;
  const correct = tp + tn;
  // Cohen's kappa over decided pairs: (po - pe) / (1 - pe)
  let kappa: number | null = null;
  if (decided > 0) {
    const po = correct / decided;
    const expFail = (tp + fnDecided) / decided;
    const judgedFail = (tp + fp) / decided;
    const pe = expFail * judgedFail + (1 - expFail) * (1 - judgedFail);
    kappa = pe === 1 ? (po === 1 ? 1 : 0) : (po - pe) / (1 - pe);
  }
  return {
    judgments: pairs.length,
    decided,
    undecided: pairs.length - decided,
    correct,
    accuracy: ratio(correct, pairs.length),
    precision: ratio(tp, tp + fp),
    recall: ratio(tp, confusion.fail.pass + confusion.fail.fail + confusion.fail.undecided),
    specificity: ratio(tn, confusion.pass.pass + confusion.pass.fail + confusion.pass.undecided),
    kappa,
    confusion,
  };
}

/** The share of cases whose judged verdict was not the same on every repeat. */
export function flipRate(perCase: Judged[][]): number | null {
  const repeated = perCase.filter((v) => v.length > 1);
  if (!repeated.length) return null;
  return repeated.filter((v) => new Set(v).size > 1).length / repeated.length;
}

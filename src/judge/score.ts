/** A judgment's score: pass/fail, a number against a threshold, or a category. */
export type Score =
  | { type: 'boolean'; value: boolean | null }
  | { type: 'numeric'; value: number | null; min: number; max: number; threshold: number }
  | { type: 'categorical'; value: string | null; passing: string[] };

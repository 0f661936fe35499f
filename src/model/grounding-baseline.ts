/**
 * The scripted judge's answer to a grounded prompt (faithful, hallucination) when its script asks
 * for `grounding`: a lexical baseline, not a model. Every specific token of the answer (one with
 * a digit or a capital letter: names, versions, numbers, identifiers) must occur as a token of
 * the prompts or the recalled results, a number or version whole ("2" is not "20"); any that does
 * not is an unsupported claim. It catches an invented version or tool and misses a negation or a
 * paraphrase; the calibration figures say by how much. It reads the fenced blocks every judge
 * prompt holds (util/data-fence.ts: `prompts`, `recalled`, and the answer as `subject`).
 */

import { readFences } from '../util/data-fence.js';
import { QUOTED_RESULT_CHARS } from './policy.js';

/** Capitalised words that start sentences and claim nothing by themselves. */
const FILLER = new Set(
  (
    "a an the i i'm i've it its it's you your yes no done this that these those there here we our they their " +
    'according based from in on my sure ok okay found nothing none note also however so and but or if as at to ' +
    'for with by of is are was were be your memory memories recalled results result answer search searched ' +
    'let me what which who when where why how do does did not unfortunately sorry looks seems use'
  ).split(' '),
);

const TOKEN = /[A-Za-z0-9]+(?:[._\-/+][A-Za-z0-9]+)*/g;

const tokens = (text: string) => text.match(TOKEN) ?? [];

/** The answer's specific tokens that neither the prompts nor the recalled results contain. */
export function unsupportedTokens(answer: string, sources: string): string[] {
  const known = new Set(tokens(sources).map((t) => t.toLowerCase()));
  // the subject is rendered as a numbered list: its numbering is not the agent's claim
  const claimed = tokens(answer.replace(/^\d+\. /gm, '')).filter(
    (t) => (/[0-9A-Z]/.test(t) || /[._\-/+]/.test(t)) && !FILLER.has(t.toLowerCase()),
  );
  const all = tokens(answer);
  const last = all[all.length - 1]?.toLowerCase();
  // an answer cut at a length limit (the scripted agent quotes QUOTED_RESULT_CHARS) ends in part of a
  // word; a figure ("2", "1.2", "v2") is a claim of its own, never taken for the start of a longer one
  // ("20", "1.22", "v21"), unless the answer is long enough to have been cut there
  const cut = (t: string) =>
    t.toLowerCase() === last &&
    (!/[0-9]/.test(t) || answer.length > QUOTED_RESULT_CHARS) &&
    [...known].some((k) => k.startsWith(last));
  const supported = (t: string) => known.has(t.toLowerCase()) || cut(t);
  return [...new Set(claimed.filter((t) => !supported(t)))];
}

/** The verdict for a grounded prompt, or null when the prompt lacks the blocks to read. */
export function groundingVerdict(prompt: string): { verdict: 'pass' | 'fail'; reasoning: string } | null {
  const { blocks } = readFences(prompt);
  const answer = blocks.get('subject');
  const recalled = blocks.get('recalled');
  const prompts = blocks.get('prompts');
  if (answer === undefined || recalled === undefined || prompts === undefined) return null;
  const missing = unsupportedTokens(answer, `${prompts}\n${recalled}`);
  return missing.length
    ? {
        verdict: 'fail',
        reasoning: `lexical baseline: ${missing.slice(0, 8).join(', ')} ${missing.length === 1 ? 'is' : 'are'} in neither the recalled results nor the prompts`,
      }
    : {
        verdict: 'pass',
        reasoning: 'lexical baseline: every name, number and version of the answer was recalled or prompted',
      };
}

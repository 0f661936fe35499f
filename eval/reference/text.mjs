// Text helpers of the reference server: what a stored text is cleaned of, how it splits into
// search terms, and when two texts say the same thing by their words.

// Zero-width characters look like nothing and hide a token from every pattern: always dropped.
// ZWJ and ZWNJ shape some scripts, so they go only between ASCII letters and digits.
const INVISIBLE = /[\u200B\u2060\uFEFF\u00AD]/g;
const JOINERS_IN_ASCII = /(?<=[A-Za-z0-9])[\u200C\u200D]+(?=[A-Za-z0-9])/g;

/** The text as stored: invisible characters dropped, Unicode composed. */
export function clean(value) {
  return String(value ?? '')
    .replace(INVISIBLE, '')
    .replace(JOINERS_IN_ASCII, '')
    .normalize('NFC');
}

// Greek and Cyrillic letters drawn like Latin ones: a key written with them looks like the key
const LOOKALIKES = Object.fromEntries(
  [
    ['ΑАA', 'A'],
    ['ΒВB', 'B'],
    ['СC', 'C'],
    ['ΕЕE', 'E'],
    ['ΗНH', 'H'],
    ['ΙІI', 'I'],
    ['ЈJ', 'J'],
    ['ΚКK', 'K'],
    ['ΜМM', 'M'],
    ['ΝN', 'N'],
    ['ΟОO', 'O'],
    ['ΡРP', 'P'],
    ['ЅS', 'S'],
    ['ΤТT', 'T'],
    ['ΧХX', 'X'],
    ['ΥУY', 'Y'],
    ['ΖZ', 'Z'],
    ['аa', 'a'],
    ['сc', 'c'],
    ['ԁd', 'd'],
    ['еe', 'e'],
    ['һh', 'h'],
    ['іιi', 'i'],
    ['јj', 'j'],
    ['κk', 'k'],
    ['оοo', 'o'],
    ['рρp', 'p'],
    ['ԛq', 'q'],
    ['ѕs', 's'],
    ['υu', 'u'],
    ['νv', 'v'],
    ['ԝw', 'w'],
    ['хχx', 'x'],
    ['уy', 'y'],
  ].flatMap(([from, to]) => [...from].filter((ch) => ch !== to).map((ch) => [ch, to])),
);
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'u');

/**
 * The text as it reads: compatibility forms folded (full-width letters), and in every word that
 * mixes Latin letters or digits with Greek or Cyrillic look-alikes, the look-alikes drawn as the
 * Latin letters they imitate. A word wholly in another script is left as written.
 */
export function unmask(value) {
  return value
    .normalize('NFKC')
    .replace(/[\p{L}\p{N}_]+/gu, (w) =>
      /[A-Za-z0-9]/.test(w) && LOOKALIKE.test(w) ? [...w].map((ch) => LOOKALIKES[ch] ?? ch).join('') : w,
    );
}

/** For exact-duplicate checks: case and spacing do not make a memory new. */
export function sameText(a, b) {
  const n = (s) => s.toLowerCase().replace(/\s+/g, ' ').trim();
  return n(a) === n(b);
}

// Words that say nothing about what a memory is about. Negations (no, not, never) are kept:
// "X is allowed" and "X is not allowed" must never look alike.
const STOP = new Set(
  (
    'a an the and or but if so as at by for from in into of on onto to with without per each every any all ' +
    'is are was were be been being am it its this that these those there here their they them we our us you ' +
    'your he she his her i me my has have had do does did can could should would will shall may also only just ' +
    'via than then what which who whom how when where why about'
  ).split(' '),
);

/** The plural -s, enough for "builds" to find "Builds" and "build" alike. */
function stem(w) {
  if (w.length >= 4 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/** The distinct search terms of a text: lower-cased words and numbers, stop words dropped, plurals folded. */
export function terms(text) {
  const out = new Set();
  for (const w of String(text)
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [])
    if (!STOP.has(w)) out.add(stem(w));
  return out;
}

const numbers = (t) =>
  [...t]
    .filter((w) => /\d/.test(w))
    .sort()
    .join(' ');
const NEGATIONS = ['no', 'not', 'never'];
const negated = (t) => NEGATIONS.some((w) => t.has(w));

/**
 * Two texts are near-duplicates by their words when most of their terms are shared (Jaccard at
 * least `threshold`), they name the same numbers and neither negates what the other says:
 * "Node 18" and "Node 20" differ in what matters most.
 */
export function nearDuplicate(a, b, threshold = 0.6) {
  const [x, y] = [terms(a), terms(b)];
  if (!x.size || !y.size) return false;
  if (numbers(x) !== numbers(y) || negated(x) !== negated(y)) return false;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / (x.size + y.size - shared) >= threshold;
}

// Secret redaction of the reference server: every field of a write is redacted before it is
// stored or sent to the model provider, so a secret reaches neither. What stays is the fact
// around it ("the Stripe key is [REDACTED]"): where a secret lives is worth remembering.

export const MARK = '[REDACTED]';

const hasUpper = (s) => /[A-Z]/.test(s);
const hasLower = (s) => /[a-z]/.test(s);
const digits = (s) => (s.match(/\d/g) ?? []).length;
const letters = (s) => (s.match(/[A-Za-z]/g) ?? []).length;

/** A value after a password label: anything after ":" or "=", else only what does not read as a word. */
function passwordValue(sep, value) {
  return /[:=]/.test(sep) || /[\d\W_]/.test(value);
}

/** A long token mixing upper case, lower case and digits is a key, whatever its prefix. */
const keyLike = (t) => t.length >= 16 && hasUpper(t) && hasLower(t) && digits(t) >= 1;
/** Beside the word token, key, password or secret, a shorter mixed token is one too (a key split in parts). */
const partLike = (t) => t.length >= 10 && hasUpper(t) && hasLower(t) && digits(t) >= 2 && letters(t) >= 2;
const SECRET_WORD = /\b(?:tokens?|keys?|secrets?|passwords?|passphrases?|credentials?|api[ _-]?keys?)\b/i;

/** [pattern, replacement] in order; connection strings first, so their host stays readable. */
const RULES = [
  // user:password@host in a URL: the password goes, the scheme, user and host stay
  [/\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/@]*):([^\s@/]+)@/gi, (_m, scheme, user) => `${scheme}${user}:${MARK}@`],
  // key shapes of well-known providers
  [/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}/g, MARK],
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, MARK],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, MARK],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, MARK],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, MARK],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, MARK],
  // a labelled password or passphrase: "password: x", "passphrase x-y-z-42", "pwd=x"
  [
    /\b(pass(?:word|phrase)|passwd|pwd)(\s*[:=]\s*|\s+is\s+|\s+)([^\s,;]+?)(?=[.,;)]?(?:\s|$))/gi,
    (m, label, sep, value) => (passwordValue(sep, value) ? `${label}${sep}${MARK}` : m),
  ],
  // a diceware passphrase: four or more words joined by hyphens (correct-horse-battery-staple)
  [/\b[A-Za-z]{3,}(?:-[A-Za-z]{3,}){3,}(?:-\d+)?\b/g, MARK],
];

const TOKEN = /[A-Za-z0-9_+/=-]+/g;
/** In a short label field (subject, category, source), any word mixing letters and digits may be a password. */
const labelSecret = (t) => t.length >= 8 && digits(t) >= 1 && letters(t) >= 2;

// A secret written in parts ("the token, in two parts: part 1: ab12, part 2: cd34") matches no
// key shape, yet each part is a leak: in a text that announces parts or talks about secrets,
// every part's value goes.
const SPLIT = /\bin (?:two|three|four|\d+) (?:parts|pieces|halves)\b/i;
const PARTS = [
  /(\bpart \d+\s*[:=]\s*)([^\s,;]+)/gi,
  /(\b(?:first|second|third|fourth|last|other|next) (?:part|half|piece) is\s+)([^\s,;]+?)(?=[.,;]?(?:\s|$))/gi,
];

/**
 * The text with every secret it holds replaced by [REDACTED], and how many were. Patterns first,
 * then the parts of a split secret, then long mixed tokens anywhere, then shorter mixed tokens in
 * a text that talks about secrets.
 */
export function redact(value) {
  let text = String(value);
  let count = 0;
  for (const [re, to] of RULES)
    text = text.replace(re, (...args) => {
      const out = typeof to === 'function' ? to(...args) : to;
      if (out !== args[0]) count++;
      return out;
    });
  const aboutSecrets = SECRET_WORD.test(text);
  if (aboutSecrets || SPLIT.test(text))
    for (const re of PARTS)
      text = text.replace(re, (_m, label, value) => {
        if (value === MARK) return `${label}${value}`;
        count++;
        return `${label}${MARK}`;
      });
  text = text.replace(TOKEN, (t) => {
    if (!keyLike(t) && !(aboutSecrets && partLike(t))) return t;
    count++;
    return MARK;
  });
  return { text, count };
}

/** A label field (subject, category, source): redacted as text, and wholly when a word of it looks like a password. */
export function redactLabel(value) {
  const r = redact(value);
  if (r.text === MARK || !(r.text.match(TOKEN) ?? []).some(labelSecret)) return r;
  return { text: MARK, count: r.count + 1 };
}

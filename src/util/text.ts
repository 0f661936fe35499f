/** The first `n` characters of `s`, with an ellipsis when it was longer (for messages and records). */
export function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

/** A word as a POSIX shell reads it back unchanged, quoted only when it needs to be. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The first `n` characters of `s`, with an ellipsis when it was longer (for messages and records). */
export function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

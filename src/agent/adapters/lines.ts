/** Parse JSONL output, skipping lines that are not JSON objects (banners, warnings). */
export function* jsonLines(text: string): Generator<Record<string, any>> {
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      yield JSON.parse(t);
    } catch {
      /* a torn or non-JSON line */
    }
  }
}

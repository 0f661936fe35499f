// The reference server's model provider client (OpenAI-compatible, at PROVIDER): embeddings for
// search by meaning, and the formation model that decides what a write near an existing memory
// does. Every failure degrades, never loses a write: a memory without a vector is still found
// by its words, a formation answer that cannot be read keeps the write (ADD).

const ATTEMPTS = 3;
const MAX_WAIT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** How long to wait before asking again: Retry-After (seconds) when the provider sends one, capped. */
function retryDelay(res) {
  const s = Number(res?.headers.get('retry-after'));
  return Number.isFinite(s) && s >= 0 ? Math.min(s * 1000, MAX_WAIT_MS) : 500;
}

/** POST JSON, asking again (up to ATTEMPTS) after a rate limit, a server error or no answer. */
async function post(url, body) {
  for (let attempt = 1; ; attempt++) {
    let res;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer reference' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      if (res.ok) return await res.json();
      if (res.status !== 429 && res.status < 500) return undefined;
    } catch {
      /* no answer or not JSON: as transient as a 503 */
    }
    if (attempt >= ATTEMPTS) return undefined;
    await sleep(retryDelay(res));
  }
}

export class Model {
  /** @param {string | undefined} base the provider's base URL; none: no embeddings, no formation model */
  constructor(base, dimensions) {
    this.base = base?.replace(/\/+$/, '');
    this.dimensions = dimensions;
  }

  get enabled() {
    return Boolean(this.base);
  }

  /**
   * The text's embedding, or null: no provider, no answer after the retries, or a vector that is
   * not one (wrong size, empty, not finite). A bad vector is never stored: one of another size
   * would break every comparison it takes part in.
   */
  async embed(text) {
    if (!this.base) return null;
    const body = await post(`${this.base}/v1/embeddings`, {
      model: 'reference-embed',
      input: text,
      dimensions: this.dimensions,
    });
    const v = body?.data?.[0]?.embedding;
    if (!Array.isArray(v) || v.length !== this.dimensions || !v.every((x) => Number.isFinite(x))) return null;
    return Float32Array.from(v);
  }

  /**
   * The formation model's decision about a new text and the stored memories most like it:
   * { decision: ADD | UPDATE | DELETE | NONE, id }. Anything unreadable is ADD.
   */
  async decide(text, similar) {
    const prompt = formationPrompt(text, similar);
    const body = this.base
      ? await post(`${this.base}/v1/chat/completions`, {
          model: 'reference-formation',
          temperature: 0,
          messages: [{ role: 'user', content: prompt }],
        })
      : undefined;
    const answer = body?.choices?.[0]?.message?.content;
    try {
      const parsed = JSON.parse(String(answer).replace(/^```(?:json)?\s*|\s*```$/g, ''));
      const decision = String(parsed.decision ?? '').toUpperCase();
      const id = parsed.id === undefined || parsed.id === null ? undefined : String(parsed.id);
      if (decision === 'ADD') return { decision };
      if (['UPDATE', 'DELETE', 'NONE'].includes(decision) && similar.some((m) => String(m.id) === id))
        return { decision, id };
    } catch {
      /* fall through: keep the write */
    }
    return { decision: 'ADD' };
  }
}

/** The formation prompt; scenarios script its answer by the first line and the NEW: line. */
export function formationPrompt(text, similar) {
  return [
    'memeval reference formation',
    'A new memory is about to be stored. Compare it with the stored memories most similar to it and decide:',
    'ADD: it is new, store it. UPDATE <id>: it refines that memory, replace its text. DELETE <id>: it contradicts that memory, retire it and store the new one. NONE <id>: that memory already says it, store nothing.',
    'Answer with JSON only: {"decision": "ADD" | "UPDATE" | "DELETE" | "NONE", "id": "<the id it concerns>"}',
    `NEW: ${text}`,
    'SIMILAR:',
    ...similar.map((m) => `[${m.id}] (similarity ${m.similarity.toFixed(2)}) ${m.text}`),
  ].join('\n');
}

export function cosine(a, b) {
  if (!a || !b || a.length !== b.length) return 0;
  let [d, na, nb] = [0, 0, 0];
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? d / Math.sqrt(na * nb) : 0;
}

// Provenance of the reference server: who a memory came from, and how far it is trusted. A write's
// `source` says where its text came from. The user, the agent and memeval's default name the
// conversation itself; a source of the form `<kind>:<where>` whose kind is one of UNTRUSTED_KINDS
// (a fetched page, a tool's output, a file, a mail, another session, anything external) names
// content that reached the agent from outside it: it is kept, marked untrusted, and
//   - is stored beside a trusted memory with the same text, never deduplicated into it
//     (who said it is what tells the two apart);
//   - never replaces or retires a trusted memory through the formation model;
//   - ranks below trusted memories at equal relevance, and surfaces only for a query it matches
//     well (a record stuffed with words to match every query does not answer unrelated ones);
//   - is shown with its source in every recall result.
export const UNTRUSTED_KINDS = ['web', 'tool', 'file', 'email', 'session', 'external', 'fetch', 'import'];

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** Is a memory from this source untrusted (content from outside the conversation)? */
export function untrusted(source) {
  const kind = SCHEME.exec(String(source ?? ''))?.[1]?.toLowerCase();
  return Boolean(kind && UNTRUSTED_KINDS.includes(kind));
}

/** The trust a memory from this source is stored with: 0.2 untrusted, else 0.5 (the store's default). */
export const trustOf = (source) => (untrusted(source) ? 0.2 : 0.5);

/** A recall result: the text, and for an untrusted memory its source, so a reader can tell it from the user's word. */
export const shown = (m) => (untrusted(m.source) ? `${m.text} (source: ${m.source}; untrusted)` : m.text);

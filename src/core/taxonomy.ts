/**
 * Scenario tags that name an entry of a published list of risks. A cell of a scenario with such
 * a tag carries the entry's id (`taxonomy` in report.json), and the reporters group and filter by
 * it. A tag is mapped here, once; a scenario only tags itself.
 */
export interface TaxonomyEntry {
  /** the id reports carry and filter by */
  id: string;
  /** the list it belongs to */
  standard: string;
  title: string;
}

export const TAG_TAXONOMY: Readonly<Record<string, TaxonomyEntry>> = {
  'memory-poisoning': {
    id: 'OWASP-ASI06',
    standard: 'OWASP Top 10 for Agentic Applications (2026)',
    title: 'ASI06 Memory & Context Poisoning',
  },
};

/** The taxonomy ids a scenario's tags map to, in the tags' order, each once. */
export function taxonomyOf(tags: readonly string[]): string[] {
  return [...new Set(tags.flatMap((t) => (TAG_TAXONOMY[t] ? [TAG_TAXONOMY[t].id] : [])))];
}

/** The entry of a taxonomy id, for a heading ("OWASP-ASI06: ASI06 Memory & Context Poisoning"). */
export function taxonomyEntry(id: string): TaxonomyEntry | undefined {
  return Object.values(TAG_TAXONOMY).find((e) => e.id === id);
}

export const taxonomyHeading = (id: string): string => {
  const e = taxonomyEntry(id);
  return e ? `${e.title} (${e.standard})` : id;
};

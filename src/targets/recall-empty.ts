/** Where a target's declared "found nothing" (`recall_results.empty`) names the query. */
export const QUERY_PLACEHOLDER = '{{query}}';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `recall_results.empty.regex` for one query: it must match the whole text, {{query}} standing for the query itself. */
export function emptyPattern(regex: string, query: string): RegExp {
  return new RegExp(`^(?:${regex.split(QUERY_PLACEHOLDER).join(escapeRegex(query))})$`, 'u');
}

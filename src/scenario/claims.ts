/** The defences a target can claim and a violation phase can probe (README: "Claims"). */
export const CLAIMS = [
  'exact-dedupe',
  'semantic-dedupe',
  'supersede',
  'secret-redaction',
  'secret-purge',
  'forget',
  'noise-filter',
  'tentative-filter',
  'workspace-dedupe',
  'recall',
  /** keeps the source a write names (a web page, a tool, another session) and tells untrusted content from the user's word */
  'provenance',
] as const;
export type Claim = (typeof CLAIMS)[number];

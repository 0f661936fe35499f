/** Columns of the evidence DB's tables and views, shared by the builder, the opener and load-time checks. */
export const CALLS_COLUMNS = [
  'seq',
  'session',
  'stage',
  'method',
  'op',
  'op_call',
  'tool',
  'arguments',
  'result_text',
  'is_error',
  'ms',
  'ts',
] as const;
/** Every canonical `memories` view yields these; the first five are required of a target. */
export const MEMORIES_COLUMNS = ['id', 'content', 'category', 'source', 'is_deleted', 'subject', 'created_at'] as const;
export const REQUIRED_VIEW_COLUMNS = MEMORIES_COLUMNS.slice(0, 5);
/** `provider_calls`: what a provider-backed target asked memeval's model provider (see provider-calls.ts). */
export const PROVIDER_CALLS_COLUMNS = [
  'seq',
  'ts',
  'method',
  'path',
  'protocol',
  'kind',
  'model',
  'inputs',
  'input_text',
  'dimensions',
  'matched',
  'answer',
  'held_ms',
  'status',
  'ms',
  'fault',
  'fault_rule',
] as const;

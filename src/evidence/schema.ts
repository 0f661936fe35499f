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
  // a recall call's answer read as the target declares its results (ops/recall.ts): the items
  // as a JSON array, or why it cannot be read (refused, an error, another format, no itemisation)
  'result_items',
  'result_unreadable',
  // 1: no answer came because memeval killed the server while the call was in flight (a `kill` step);
  // such a call is neither acknowledged nor refused
  'killed',
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
  'stage',
] as const;
/** `recall_probes`: each distinct recall query the cell's judges read, asked once after the snapshot (see recall-probes.ts). */
export const RECALL_PROBES_COLUMNS = [
  'seq',
  'query',
  'result_text',
  'items',
  'itemised',
  'is_error',
  'unreadable',
  'ms',
  'ts',
] as const;
/** `store_sql`: the scenario's `setup.store_sql` statements as they ran, one row each. */
export const STORE_SQL_COLUMNS = ['seq', 'sql', 'expect_rows', 'rows', 'ok', 'error'] as const;
/** `agent_usage`: an agent cell's spend per prompt (see agent-usage.ts); absent in other cells. */
export const AGENT_USAGE_COLUMNS = [
  'session',
  'prompt',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cost_usd',
  'turns',
  'tool_calls',
  'memory_calls',
  'finish_reason',
  'exit_code',
  'ms',
  'usage_estimated',
  'agent',
  'model',
] as const;
/**
 * `writes`: every write op memeval issued in the cell (seeds, setup steps, the phase's steps) and
 * whether the target acknowledged it (every call of the op answered without error), was refused,
 * or never answered because memeval killed the server first (see writes.ts). Agent cells hold
 * only setup's: an agent's own writes are in `calls`.
 */
export const WRITES_COLUMNS = [
  'seq',
  'stage',
  'step',
  'call',
  'op',
  'memory',
  'content',
  'acknowledged',
  'killed',
] as const;
/** `store_integrity`: what the snapshot found checking the store's files (see integrity.ts), one row per file. */
export const STORE_INTEGRITY_COLUMNS = ['seq', 'file', 'format', 'checked', 'ok', 'detail'] as const;

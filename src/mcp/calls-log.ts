import { z } from 'zod';
import { MemevalError } from '../util/errors.js';
import { readJsonl, tornLine } from '../util/jsonl.js';

/** JSON-RPC methods the recording point logs: the calls, and the handshake that offers tools. */
export const RECORDED_METHODS = ['tools/call', 'initialize', 'tools/list'] as const;
export type RecordedMethod = (typeof RECORDED_METHODS)[number];

/** One request that crossed the MCP boundary, with its answer: one line of a cell's calls.jsonl. */
export const callRecordSchema = z.object({
  seq: z.number(),
  session: z.number(),
  stage: z.string(),
  /** absent in logs written before the handshake was recorded: a tools/call */
  method: z.enum(RECORDED_METHODS).optional(),
  op: z.string().nullable(),
  /** the memory op this call belongs to (memeval's own ops); absent for an agent's calls and in older logs */
  op_call: z.number().optional(),
  tool: z.string(),
  arguments: z.unknown(),
  result_text: z.string(),
  is_error: z.boolean(),
  ms: z.number(),
  ts: z.string(),
  /** no answer came: memeval killed the server while this call was in flight (a `kill` step); absent: false */
  killed: z.boolean().optional(),
});
export type CallRecord = z.infer<typeof callRecordSchema>;

/** A `tools/call` (not the handshake). */
export const isToolCall = (c: Pick<CallRecord, 'method'>): boolean => (c.method ?? 'tools/call') === 'tools/call';

/** The calls log as it stands; a torn last line is left out and named in `torn` (util/jsonl.ts). */
export function readCallsLog(file: string): { calls: CallRecord[]; torn?: string } {
  const { records, torn } = readJsonl(file, callRecordSchema);
  return { calls: records, ...(torn !== undefined ? { torn } : {}) };
}

/** The calls log cannot be read whole: a call whose record is lost cannot be judged. */
/** A calls log that lost a call (a torn last line): what a verdict reads from it is not all there. */
export class CallsLogError extends MemevalError {
  constructor(message: string) {
    super('EVIDENCE', message);
  }
}

/**
 * Every call in the log, for what judges or decides from it. A torn last line is a call whose
 * record is lost, so this throws rather than answer with the calls that happen to remain.
 */
export function readCalls(file: string): CallRecord[] {
  const { calls, torn } = readCallsLog(file);
  if (torn !== undefined) throw new CallsLogError(tornLine(file, torn));
  return calls;
}

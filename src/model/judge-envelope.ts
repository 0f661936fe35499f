import type { IncomingHttpHeaders } from 'node:http';
import { SCRIPTED_JUDGE_HEADER, scriptedJudgeSchema, type ScriptedJudgeEnvelope } from '../core/scripted-judge.js';

export function encodeScriptedJudgeEnvelope(e: ScriptedJudgeEnvelope): string {
  return Buffer.from(JSON.stringify(e), 'utf8').toString('base64');
}

/** The judge script a request carries, or undefined for an ordinary model request. */
export function scriptedJudgeEnvelope(headers: IncomingHttpHeaders): ScriptedJudgeEnvelope | undefined {
  const raw = headers[SCRIPTED_JUDGE_HEADER];
  if (typeof raw !== 'string') return undefined;
  const parsed = JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as { script?: unknown; repeat?: unknown };
  return {
    script: scriptedJudgeSchema.parse(parsed.script ?? {}),
    repeat: typeof parsed.repeat === 'number' ? parsed.repeat : 0,
  };
}

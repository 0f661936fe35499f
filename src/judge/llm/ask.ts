import { encodeScriptedJudgeEnvelope } from '../../model/judge-envelope.js';
import { SCRIPTED_JUDGE_HEADER, type ScriptedJudge } from '../../core/scripted-judge.js';
import type { ChatTurn, JudgeModel } from './client.js';
import { endpointOf } from './config.js';
import { parseJudgeAnswer, type JudgeAnswer } from './parse.js';
import { messageOf } from '../../util/errors.js';

/** Parse failures are retried at most this many times, in the same conversation. */
export const MAX_PARSE_RETRIES = 2;

/** Everything about one request to a judge model, for the report. */
export interface JudgeCallRecord {
  attempt: number;
  model: string;
  endpoint: string;
  protocol: string;
  scripted: boolean;
  /** the text sent: the rendered prompt on the first attempt, the retry request after */
  prompt: string;
  raw: string | null;
  parsed: JudgeAnswer | null;
  parse_problem: string | null;
  error: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number;
  temperature: number | null;
  /** null when unknown: memeval keeps no price list; free endpoints are 0 */
  cost_usd: number | null;
}

export interface AskResult {
  answer: JudgeAnswer | null;
  /** why there is no answer */
  problem: string | null;
  calls: JudgeCallRecord[];
}

export interface AskOptions {
  /** what the scripted judge should answer (only sent to the scripted model) */
  scripted?: ScriptedJudge;
  repeat?: number;
}

const retryText = (problem: string) =>
  `Your answer could not be read (${problem}). Reply again with only the JSON object described in the answer format: ` +
  '{"verdict": "pass" or "fail", "confidence": a number from 0 to 1, "reasoning": "..."}';

/**
 * Ask the judge one question and parse the answer, failing closed: a transport error ends at
 * once; an unparseable answer is asked again at most MAX_PARSE_RETRIES times, and if it still
 * cannot be read the result has no answer (the judgment becomes `error`, never `pass`).
 */
export async function askJudge(model: JudgeModel, prompt: string, opts: AskOptions = {}): Promise<AskResult> {
  const cfg = model.config;
  const headers: Record<string, string> = {};
  if (cfg.scripted)
    headers[SCRIPTED_JUDGE_HEADER] = encodeScriptedJudgeEnvelope({
      script: opts.scripted ?? { rules: [], confidence: 0.9, quirk: 'none', grounding: false },
      repeat: opts.repeat ?? 0,
    });
  const turns: ChatTurn[] = [{ role: 'user', content: prompt }];
  const calls: JudgeCallRecord[] = [];
  for (let attempt = 1; attempt <= 1 + MAX_PARSE_RETRIES; attempt++) {
    const started = performance.now();
    const rec: JudgeCallRecord = {
      attempt,
      model: cfg.model,
      endpoint: cfg.scripted ? 'scripted (loopback)' : endpointOf(cfg),
      protocol: cfg.protocol,
      scripted: cfg.scripted,
      prompt: turns[turns.length - 1].content,
      raw: null,
      parsed: null,
      parse_problem: null,
      error: null,
      input_tokens: null,
      output_tokens: null,
      latency_ms: 0,
      temperature: null,
      cost_usd: cfg.scripted || cfg.loopback ? 0 : null,
    };
    calls.push(rec);
    try {
      const reply = await model.complete(turns, headers);
      Object.assign(rec, {
        raw: reply.text,
        model: reply.model,
        input_tokens: reply.input_tokens,
        output_tokens: reply.output_tokens,
        temperature: reply.temperature,
      });
    } catch (e) {
      rec.error = messageOf(e);
      rec.latency_ms = Math.round(performance.now() - started);
      return { answer: null, problem: `judge model request failed: ${rec.error}`, calls };
    }
    rec.latency_ms = Math.round(performance.now() - started);
    const parsed = parseJudgeAnswer(rec.raw ?? '');
    if (parsed.ok) {
      rec.parsed = parsed.answer;
      return { answer: parsed.answer, problem: null, calls };
    }
    rec.parse_problem = parsed.problem;
    turns.push({ role: 'assistant', content: rec.raw ?? '' }, { role: 'user', content: retryText(parsed.problem) });
  }
  const last = calls[calls.length - 1];
  const excerpt = (last.raw ?? '').slice(0, 200);
  return {
    answer: null,
    problem: `the judge's answer could not be parsed after ${calls.length} attempts (${last.parse_problem}); last answer: ${JSON.stringify(excerpt)}`,
    calls,
  };
}

export function callTotals(calls: JudgeCallRecord[]): {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
} {
  let cost: number | null = 0;
  for (const c of calls) cost = cost === null || c.cost_usd === null ? null : cost + c.cost_usd;
  return {
    calls: calls.length,
    input_tokens: calls.reduce((n, c) => n + (c.input_tokens ?? 0), 0),
    output_tokens: calls.reduce((n, c) => n + (c.output_tokens ?? 0), 0),
    cost_usd: cost,
  };
}

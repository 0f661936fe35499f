import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track, untrack } from '../fixture/processes.js';
import type { Assertion } from '../scenario/schema.js';
import type { JudgeContext } from './context.js';
import type { Judgment } from './judgment.js';
import { runJudges } from './registry.js';

/** How long one judge of scenario-written SQL or regex may run (env MEMEVAL_JUDGE_TIMEOUT_MS). */
export const DEFAULT_JUDGE_TIMEOUT_MS = 30000;

export function judgeTimeoutMs(): number {
  const n = Number(process.env.MEMEVAL_JUDGE_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_JUDGE_TIMEOUT_MS;
}

/** Judges whose work a scenario controls (its SQL, its regex) and so may never end. */
function unbounded(a: Assertion): boolean {
  return a.kind === 'sql' || (a.kind === 'transcript' && a.regex !== undefined);
}

const CHILD = fileURLToPath(new URL(`./judge-child.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url));

function errorJudgment(a: Assertion, detail: string): Judgment {
  return { name: a.name, kind: a.kind, phase: a.phase, outcome: 'error', passed: null, actual: null, expected: null, detail };
}

/** One assertion in a child process that is killed when it runs past the time limit. */
function judgeInChild(a: Assertion, cellDir: string, transcript: string | undefined, ms: number): Promise<Judgment> {
  return new Promise((resolve) => {
    const child = fork(CHILD, [], { execArgv: process.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
    track(child);
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    let done = false;
    const finish = (j: Judgment) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      untrack(child);
      child.kill('SIGKILL');
      resolve(j);
    };
    const timer = setTimeout(() => finish(errorJudgment(a, `judge timed out after ${ms} ms`)), ms);
    child.on('message', (m: Judgment | { error: string }) => finish('outcome' in m ? m : errorJudgment(a, m.error)));
    child.on('exit', (code, signal) => finish(errorJudgment(a, `judge process ended (${signal ?? `code ${code}`}) without an answer: ${stderr.trim().slice(-300)}`)));
    child.on('error', (e) => finish(errorJudgment(a, `judge process: ${e.message}`)));
    child.send({ cellDir, assertion: a, transcript });
  });
}

/**
 * Judge like runJudges, but every judge that runs scenario-written SQL or a regex does so in a
 * child process with a time limit: a judge that runs past it is `error` "judge timed out after
 * N ms", and memeval stays responsive to Ctrl-C meanwhile. The rest run here, as before.
 */
export async function runJudgesBounded(assertions: Assertion[], ctx: JudgeContext, cellDir: string, ms = judgeTimeoutMs()): Promise<Judgment[]> {
  const inline = assertions.filter((a) => !unbounded(a));
  const byInline = new Map(inline.map((a, i) => [a, i]));
  const inlineResults = await runJudges(inline, ctx);
  const out: Judgment[] = [];
  for (const a of assertions) {
    const i = byInline.get(a);
    out.push(i !== undefined ? inlineResults[i] : await judgeInChild(a, cellDir, ctx.transcript, ms));
  }
  return out;
}

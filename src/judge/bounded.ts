import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track, untrack } from '../util/processes.js';
import type { Assertion } from '../scenario/schema.js';
import type { JudgeContext } from './context.js';
import type { FixtureFile } from './fixture-files.js';
import { judgment, type Judgment } from './judgment.js';
import { runJudges } from './registry.js';

/** How long one judge of scenario-written SQL or regex may run (env MEMEVAL_JUDGE_TIMEOUT_MS). */
export const DEFAULT_JUDGE_TIMEOUT_MS = 30000;

export function judgeTimeoutMs(): number {
  const n = Number(process.env.MEMEVAL_JUDGE_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_JUDGE_TIMEOUT_MS;
}

/** What the judge process gets besides the evidence it opens itself. */
export interface ChildContext {
  transcript?: string;
  /** the fixture's files beside the store (a live cell only), for plug-ins */
  files?: FixtureFile[];
}

/** How long the judge process may take to load (a cold tsx start on a loaded machine takes seconds). */
const JUDGE_START_MS = 120_000;

const CHILD = fileURLToPath(new URL(`./judge-child.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url));

function errorJudgment(a: Assertion, detail: string): Judgment {
  return judgment(a, 'error', null, null, detail);
}

/**
 * The judge process, forked once and reused: starting one per assertion costs more than most
 * judgments. Requests go one at a time; one that runs past its limit gets the process killed,
 * and the next request forks a fresh one.
 */
class JudgeProcess {
  private child?: ChildProcess;
  /** settles once the child has loaded its modules: the time limit counts the judging, not the start */
  private ready?: Promise<string | undefined>;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 0;

  judge(a: Assertion, cellDir: string, ctx: ChildContext, ms: number): Promise<Judgment> {
    const run = this.queue.then(() => this.once(a, cellDir, ctx, ms));
    this.queue = run.catch(() => {});
    return run;
  }

  private spawn(): ChildProcess {
    const child = fork(CHILD, [], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    track(child);
    this.ready = new Promise((resolve) => {
      const onReady = (m: { ready?: boolean }) => {
        if (!m?.ready) return;
        child.off('message', onReady);
        clearTimeout(limit);
        resolve(undefined);
      };
      child.on('message', onReady);
      child.once('exit', (code, signal) => {
        clearTimeout(limit);
        resolve(`judge process ended (${signal ?? `code ${code}`}) before it was ready`);
      });
      // not unref'd: while a judgment waits for the process, this keeps memeval waiting too
      const limit = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(`judge process did not start within ${JUDGE_START_MS} ms`);
      }, JUDGE_START_MS);
    });
    child.on('exit', () => {
      untrack(child);
      if (this.child === child) this.child = undefined;
    });
    // the judge process must not keep memeval alive once the run is done: not the process, its
    // IPC channel or its stderr pipe
    child.unref();
    (child as unknown as { channel?: { unref(): void } }).channel?.unref();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    return child;
  }

  private async once(a: Assertion, cellDir: string, ctx: ChildContext, ms: number): Promise<Judgment> {
    const child = (this.child ??= this.spawn());
    const notReady = await this.ready;
    if (notReady) {
      if (this.child === child) this.child = undefined;
      return errorJudgment(a, notReady);
    }
    const id = ++this.nextId;
    return new Promise((resolve) => {
      let stderr = '';
      const onErr = (d: Buffer) => (stderr = (stderr + d).slice(-2000));
      const finish = (j: Judgment, kill: boolean) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.stderr?.off('data', onErr);
        if (kill) {
          child.kill('SIGKILL');
          if (this.child === child) this.child = undefined;
        }
        resolve(j);
      };
      const onMessage = (m: { id: number; answer: Judgment | { error: string } }) => {
        if (m.id === id) finish('outcome' in m.answer ? m.answer : errorJudgment(a, m.answer.error), false);
      };
      const onExit = (code: number | null, signal: string | null) =>
        finish(
          errorJudgment(
            a,
            `judge process ended (${signal ?? `code ${code}`}) without an answer: ${stderr.trim().slice(-300)}`,
          ),
          false,
        );
      const timer = setTimeout(() => finish(errorJudgment(a, `judge timed out after ${ms} ms`), true), ms);
      child.stderr?.on('data', onErr);
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send({ id, cellDir, assertion: a, ...ctx });
    });
  }
}

const judgeProcess = new JudgeProcess();

/**
 * Judge like runJudges, but every judge whose work the scenario writes (its SQL, a regex, a
 * plug-in: the kind's record says which, scenario/kinds.ts `bounded`) runs in a child process
 * with a time limit, whether it is an assertion of its own or a juror or cascade tier inside
 * one: a judge that runs past it is `error` "judge timed out after N ms", and memeval stays
 * responsive to Ctrl-C meanwhile. The rest run here.
 */
export async function runJudgesBounded(
  assertions: Assertion[],
  ctx: JudgeContext,
  cellDir: string,
  ms = judgeTimeoutMs(),
): Promise<Judgment[]> {
  return runJudges(assertions, {
    ...ctx,
    bounded: (a) => judgeProcess.judge(a, cellDir, { transcript: ctx.transcript, files: ctx.files }, ms),
  });
}

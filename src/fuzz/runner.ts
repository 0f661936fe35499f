import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildEvidence, type Evidence } from '../evidence/build.js';
import { createFixture, disposeFixture, gitInit, writeSetupFiles } from '../fixture/fixture.js';
import { guardEnv } from '../fixture/netguard.js';
import type { CallRecord } from '../mcp/recorder.js';
import { TargetError, TargetSession } from '../mcp/session.js';
import { captureId, expandOp, handleFor, type MemoryHandle } from '../ops/ops.js';
import type { MemoryOp } from '../scenario/schema.js';
import type { ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { fillString } from '../util/template.js';
import type { FuzzCase, FuzzStep } from './case.js';

export interface StepOutcome {
  n: number;
  op: string;
  ok: boolean;
  text: string;
  ms: number;
}

/** The server stopped answering: it exited, timed out, or could not start. */
export interface Failure {
  kind: 'crash' | 'hang' | 'protocol';
  message: string;
  step?: number;
  stderr: string;
}

export interface NetworkAttempt {
  host: string;
  port: number | null;
  via: string;
}

/** Everything one case left behind, for the checks. The caller closes `evidence`. */
export interface CaseOutcome {
  fuzzCase: FuzzCase;
  target: string;
  cellDir: string;
  /** every call of every session, in order; `stage` is `fuzz:<n>` for the step that made it */
  calls: CallRecord[];
  steps: Map<number, StepOutcome>;
  failure?: Failure;
  protocolErrors: string[];
  network: NetworkAttempt[];
  toolSchemas: Map<string, Record<string, unknown>>;
  evidence?: Evidence;
  /** problems building evidence: a harness problem, never a flag against the target */
  harnessError?: string;
  ms: number;
}

/** What runs a generated case through a target. One implementation today: a fresh fixture per case. */
export interface FuzzRunner {
  run(c: FuzzCase, cellDir: string): Promise<CaseOutcome>;
}

export interface RunnerOptions {
  decl: TargetDecl;
  bin: ResolvedBin;
  keepFixtures?: boolean;
}

function readNetwork(file: string): NetworkAttempt[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        const r = JSON.parse(l) as NetworkAttempt;
        return [{ host: r.host, port: r.port, via: r.via }];
      } catch {
        return [];
      }
    });
}

function failureOf(e: unknown, step: number | undefined, stderr: string): Failure {
  const err = e as Error;
  if (e instanceof TargetError) {
    if (e.exit) return { kind: 'crash', message: `${err.message} (exit code ${e.exit.code}, signal ${e.exit.signal})`, step, stderr: e.stderrTail };
    if (/timed? ?out/i.test(err.message)) return { kind: 'hang', message: err.message, step, stderr: e.stderrTail };
    return { kind: 'protocol', message: err.message, step, stderr: e.stderrTail };
  }
  return { kind: 'protocol', message: err.message, step, stderr };
}

/** Runs each case in a fresh fixture through the real target, with the network guard and the call recorder. */
export class FixtureRunner implements FuzzRunner {
  constructor(private readonly o: RunnerOptions) {}

  async run(c: FuzzCase, cellDir: string): Promise<CaseOutcome> {
    const t0 = performance.now();
    const { decl, bin } = this.o;
    mkdirSync(cellDir, { recursive: true });
    const logFile = join(cellDir, 'calls.jsonl');
    writeFileSync(logFile, '');
    writeFileSync(join(cellDir, 'case.json'), JSON.stringify(c, null, 2));
    const netLog = join(cellDir, 'network.jsonl');
    const env = guardEnv(netLog);
    const fixture = await createFixture(`fuzz-${decl.name}-${c.fingerprint}`);
    const out: CaseOutcome = { fuzzCase: c, target: decl.name, cellDir, calls: [], steps: new Map(), protocolErrors: [], network: [], toolSchemas: new Map(), ms: 0 };
    const handles = new Map<string, MemoryHandle>();
    let session: TargetSession | undefined;
    let sessionNo = 0;
    const start = async () => {
      session = await TargetSession.start({ decl, bin, fixture, session: ++sessionNo, logFile, stderrFile: join(cellDir, `stderr.${sessionNo}.log`), env });
      if (!out.toolSchemas.size) out.toolSchemas = await session.toolSchemas();
    };
    const stop = async () => {
      const s = session;
      if (!s) return;
      session = undefined;
      // a server that died between calls is a crash too, even if no call noticed
      const died = s.exitInfo;
      out.protocolErrors.push(...s.protocolErrors);
      await s.close();
      out.calls.push(...s.recorder.records);
      if (died && !out.failure) out.failure = { kind: 'crash', message: `server exited on its own (exit code ${died.code}, signal ${died.signal})`, stderr: s.stderr() };
    };

    const callOp = async (op: MemoryOp, vars: Record<string, unknown>, n: number) => {
      const texts: string[] = [];
      let ms = 0;
      let id: string | undefined;
      for (const call of expandOp(decl, op, vars)) {
        const r = await session!.callTool(call.tool, call.args, { op, stage: `fuzz:${n}` });
        texts.push(r.text);
        ms += r.ms;
        if (!r.ok) return { ok: false, text: texts.join('\n'), ms };
        id = captureId(call.capture_id, r.text) ?? id;
      }
      return { ok: true, text: texts.join('\n'), ms, id };
    };

    const runStep = async (s: FuzzStep): Promise<void> => {
      if (s.op === 'parallel') {
        const results = await Promise.allSettled(s.steps.map(runStep));
        const bad = results.find((r) => r.status === 'rejected');
        if (bad) throw (bad as PromiseRejectedResult).reason;
        return;
      }
      let r: { ok: boolean; text: string; ms: number; id?: string };
      try {
        switch (s.op) {
          case 'restart': {
            const t = performance.now();
            await stop();
            if (out.failure) throw new TargetError(out.failure.message, out.failure.stderr, { code: null, signal: null });
            await start();
            r = { ok: true, text: '', ms: performance.now() - t };
            break;
          }
          case 'remember': {
            const h = handleFor(decl, s);
            r = await callOp('remember', { ...h }, s.n);
            if (r.ok) {
              h.id = r.id ?? h.key;
              handles.set(s.ref, h);
            }
            break;
          }
          case 'update':
          case 'forget': {
            const h = handles.get(s.ref);
            if (!h) {
              r = { ok: false, text: `skipped: ${s.ref} was never stored`, ms: 0 };
              break;
            }
            r = await callOp(s.op, { memory: { ...h }, content: s.op === 'update' ? s.content : undefined }, s.n);
            if (r.ok && s.op === 'update') h.content = s.content;
            break;
          }
          case 'recall':
            r = await callOp('recall', { query: s.query }, s.n);
            break;
        }
      } catch (e) {
        (e as { step?: number }).step ??= s.n;
        throw e;
      }
      out.steps.set(s.n, { n: s.n, op: s.op, ok: r.ok, text: r.text, ms: r.ms });
    };

    try {
      if (decl.fixture.git_init) await gitInit(fixture, decl.fixture.git_remote);
      await writeSetupFiles(fixture, c.files);
      try {
        await start();
        for (const s of c.steps) await runStep(s);
      } catch (e) {
        out.failure ??= failureOf(e, (e as { step?: number }).step, session?.stderr() ?? '');
      }
      await stop().catch(() => {});
      out.network = readNetwork(netLog);
      const storePath = fillString(decl.store.path, fixture.vars);
      try {
        out.evidence = buildEvidence(decl, storePath, cellDir, out.calls);
      } catch (e) {
        out.harnessError = `evidence: ${(e as Error).message}`;
      }
    } finally {
      await stop().catch(() => {});
      await disposeFixture(fixture, this.o.keepFixtures ?? false);
      out.ms = Math.round(performance.now() - t0);
    }
    return out;
  }
}

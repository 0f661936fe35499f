/**
 * A child process that judges one assertion against a cell's evidence and answers over IPC.
 * SQL and regexes from scenarios can run for ever (a recursive CTE, catastrophic backtracking);
 * better-sqlite3 has no interrupt and a worker thread stuck in it cannot be terminated, but a
 * process can be killed. See bounded.ts.
 */
import { openEvidence } from '../evidence/open.js';
import type { Assertion } from '../scenario/schema.js';
import { runJudges } from './registry.js';

process.on('message', async (m: { cellDir: string; assertion: Assertion; transcript?: string }) => {
  let answer: unknown;
  try {
    const evidence = openEvidence(m.cellDir);
    try {
      [answer] = await runJudges([m.assertion], { evidence, transcript: m.transcript });
    } finally {
      evidence.close();
    }
  } catch (e) {
    answer = { error: (e as Error).message };
  }
  process.send!(answer, () => process.exit(0));
});

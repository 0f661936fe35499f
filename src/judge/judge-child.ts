/**
 * A child process that judges assertions against a cell's evidence and answers over IPC, one
 * request at a time, until it is told to stop or killed.
 * SQL and regexes from scenarios can run for ever (a recursive CTE, catastrophic backtracking);
 * better-sqlite3 has no interrupt and a worker thread stuck in it cannot be terminated, but a
 * process can be killed. See bounded.ts.
 */
import { openEvidence } from '../evidence/open.js';
import type { Assertion } from '../scenario/schema.js';
import type { ChildContext } from './bounded.js';
import { allowPlugins } from './kinds/plugin.js';
import { runJudges } from './registry.js';
import { messageOf } from '../util/errors.js';

allowPlugins();

process.on('message', async (m: { id: number; cellDir: string; assertion: Assertion } & ChildContext) => {
  let answer: unknown;
  try {
    const evidence = openEvidence(m.cellDir);
    try {
      [answer] = await runJudges([m.assertion], { evidence, transcript: m.transcript, files: m.files });
    } finally {
      evidence.close();
    }
  } catch (e) {
    answer = { error: messageOf(e) };
  }
  process.send!({ id: m.id, answer });
});
// the parent gone (or done with us): nothing more to judge
process.on('disconnect', () => process.exit(0));
// loaded: from here the parent's time limit counts
process.send!({ ready: true });

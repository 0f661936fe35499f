import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Fixture } from '../../fixture/fixture.js';
import { guardEnv } from '../../fixture/netguard.js';
import { TargetSession } from '../../mcp/session.js';
import { handleFor, runOp } from '../../ops/ops.js';
import type { ResolvedBin } from '../../targets/resolve-bin.js';
import type { TargetDecl } from '../../targets/schema.js';
import { MemevalError } from '../../util/errors.js';
import { mapOps, type JsonSchema, type OpMapping } from './ops.js';
import type { RecallSample } from './results.js';

/** A memory text no server holds by chance, long enough for servers with a minimum length. */
function markerMemory(): { token: string; content: string } {
  const token = `mk${randomBytes(5).toString('hex')}`;
  return { token, content: `memeval draft marker ${token}: the user prefers tabs over spaces for indentation` };
}

/** Queries no memory written while drafting matches. */
const UNRELATED = ['quartz xylophone nebula', 'harbor lantern violet'];

/** What one server session showed: its tools mapped to ops, and the real results of a remember and recalls. */
export interface Exercised {
  mapping: OpMapping[];
  marker: { token: string; content: string };
  remembered: boolean;
  rememberText?: string;
  /** a second marker memory written the same way, and the server's answer: an id the same for both names neither */
  second?: { token: string; text: string; ok: boolean };
  hit?: RecallSample;
  misses: RecallSample[];
  /** a short memory the server refused (a minimum length), and what it answered */
  shortRefused?: { content: string; text: string };
}

/**
 * One server session in the fixture: list the tools with their schemas, map the ops, write the
 * marker (trying the next tool that fits when one is refused, as add_observations is for an
 * entity that does not exist yet), recall it, and recall two unrelated queries. The server is
 * stopped before the store is read (SQLite servers keep rows in the WAL until they close).
 */
export async function exercise(
  decl: TargetDecl,
  bin: ResolvedBin,
  fixture: Fixture,
  work: string,
  log: (line: string) => void,
): Promise<Exercised> {
  log(`starting ${decl.name} in a fixture (${fixture.root})`);
  const session = await TargetSession.start({
    decl,
    bin,
    fixture,
    session: 1,
    logFile: join(work, 'calls.jsonl'),
    stderrFile: join(work, 'stderr.log'),
    noiseFile: join(work, 'noise.jsonl'),
    env: guardEnv(join(work, 'network.jsonl')),
  });
  const marker = markerMemory();
  try {
    const schemas = (await session.toolSchemas()) as Map<string, JsonSchema>;
    log(`${schemas.size} tool(s):`);
    for (const [tool, schema] of schemas) log(`  ${tool}(${describeSchema(schema)})`);
    const mapping = mapOps(schemas);
    for (const m of mapping)
      log(
        m.choice ? `  ${m.op} → ${m.choice.tool} ${JSON.stringify(m.choice.args)}` : `  ${m.op} → (none: ${m.reason})`,
      );
    const live: TargetDecl = {
      ...decl,
      ops: Object.fromEntries(
        mapping.filter((m) => m.choice).map((m) => [m.op, [{ tool: m.choice!.tool, args: m.choice!.args }]]),
      ),
    };
    const out: Exercised = { mapping, marker, remembered: false, misses: [] };
    const remember = mapping.find((m) => m.op === 'remember');
    if (!remember?.choice) return out;
    log(`remember: writing the marker memory "${marker.content}"`);
    for (const c of [remember.choice, ...remember.alternatives]) {
      live.ops.remember = [{ tool: c.tool, args: c.args }];
      const r = await runOp(session, live, 'remember', { ...handleFor(live, { content: marker.content }) }, 'step');
      log(`  ${c.tool}: ${r.ok ? 'accepted' : 'refused'}: ${clipLine(r.text)}`);
      out.rememberText = r.text;
      out.remembered = r.ok;
      if (r.ok) {
        remember.alternatives = [remember.choice, ...remember.alternatives].filter((a) => a !== c);
        if (remember.choice !== c) pairWith(c.tool, schemas, mapping, live, log);
        remember.choice = c;
        break;
      }
    }
    if (!out.remembered) return out;
    const second = markerMemory();
    const w = await runOp(session, live, 'remember', { ...handleFor(live, { content: second.content }) }, 'step');
    log(`remember a second marker "${second.content}": ${w.ok ? 'accepted' : 'refused'}: ${clipLine(w.text)}`);
    out.second = { token: second.token, text: w.text, ok: w.ok };
    if (!live.ops.recall) return out;
    const recall = async (query: string): Promise<RecallSample> => {
      const x = await runOp(session, live, 'recall', { query }, 'step');
      log(`recall "${query}": ${x.ok ? '' : 'refused: '}${clipLine(x.text)}`);
      return { query, text: x.text, ok: x.ok };
    };
    out.hit = await recall(marker.token);
    for (const q of UNRELATED) out.misses.push(await recall(q));
    // scenarios store short memories: a server with a minimum length refuses them (after the
    // recalls, so this one is in none of their answers)
    const short = `tabs ${marker.token.slice(2, 8)}`;
    const s = await runOp(session, live, 'remember', { ...handleFor(live, { content: short }) }, 'step');
    log(`remember a short memory "${short}": ${s.ok ? 'accepted' : 'refused'}: ${clipLine(s.text)}`);
    if (!s.ok) out.shortRefused = { content: short, text: s.text };
    return out;
  } catch (e) {
    if (e instanceof MemevalError) e.message += `\nserver stderr (tail): ${session.stderr().slice(-800)}`;
    throw e;
  } finally {
    await session.close();
  }
}

/**
 * The remember the server accepted is not the first choice: map the other ops again, preferring
 * tools about what it stores (create_entities accepted: delete_entities, not delete_observations).
 */
function pairWith(
  tool: string,
  schemas: Map<string, JsonSchema>,
  mapping: OpMapping[],
  live: TargetDecl,
  log: (line: string) => void,
): void {
  for (const m of mapOps(schemas, tool)) {
    if (m.op === 'remember') continue;
    const at = mapping.findIndex((x) => x.op === m.op);
    if (mapping[at].choice?.tool === m.choice?.tool) continue;
    mapping[at] = m;
    if (m.choice) live.ops[m.op] = [{ tool: m.choice.tool, args: m.choice.args }];
    else delete live.ops[m.op];
    log(`  ${m.op} → ${m.choice ? `${m.choice.tool} ${JSON.stringify(m.choice.args)}` : '(none)'} (beside ${tool})`);
  }
}

const clipLine = (s: string) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 160 ? `${one.slice(0, 160)}…` : one || '(empty)';
};

/** "content*: string, tags: array": each property, * when required, and its type. */
function describeSchema(s: JsonSchema): string {
  const req = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {})
    .map(
      ([k, v]) =>
        `${k}${req.has(k) ? '*' : ''}: ${Array.isArray(v.type) ? v.type.join('|') : (v.type ?? (v.enum ? 'enum' : 'any'))}`,
    )
    .join(', ');
}

// The docs cannot drift from the code: every scenario and target example in README.md and
// docs/*.md loads with memeval's own loaders, every `memeval <command> --flag` they mention is
// a command and flag of the CLI's commander program, every link between them resolves (to a
// heading, for #anchors), and the README's test command is the one CI runs after `npm ci`.
// In process: the examples are written to a temp folder and validated as `memeval validate`
// does (a plug-in's module is checked by schema only: loading it would start a process).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import JSON5 from 'json5';
import type { Command } from 'commander';
import { ROOT, tempDir } from '../helpers.js';
import { buildProgram } from '../../src/cli/main.js';
import { validatePaths } from '../../src/app/load.js';
import { loadScenario } from '../../src/scenario/loader.js';
import { assertionSchema } from '../../src/scenario/schema.js';
import { storeSqlSyntaxProblems } from '../../src/cell/store-sql.js';
import { readExpectedFailures } from '../../src/report/gate.js';
import { loadCalibrationFile } from '../../src/judge/calibrate/cases.js';

interface Doc {
  file: string;
  text: string;
}
interface Block {
  doc: string;
  line: number;
  lang: string;
  text: string;
}
interface Prose {
  doc: string;
  line: number;
  text: string;
}

/** README.md and every page of docs/. */
export function docs(root = ROOT): Doc[] {
  const pages = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join(root, 'docs', f));
  return [join(root, 'README.md'), ...pages].map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

/** A page split into fenced blocks and prose paragraphs (a paragraph's lines joined, as Markdown joins them). */
export function parse(doc: Doc): { blocks: Block[]; prose: Prose[] } {
  const blocks: Block[] = [];
  const prose: Prose[] = [];
  const lines = doc.text.split('\n');
  let fence: { marker: string; lang: string; line: number; body: string[] } | undefined;
  let para: { line: number; body: string[] } | undefined;
  const endPara = () => {
    if (para) prose.push({ doc: doc.file, line: para.line, text: para.body.join(' ') });
    para = undefined;
  };
  lines.forEach((l, i) => {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(l);
    if (fence) {
      if (open && open[2].startsWith(fence.marker) && l.trim() === open[2]) {
        blocks.push({ doc: doc.file, line: fence.line, lang: fence.lang, text: fence.body.join('\n') });
        fence = undefined;
      } else fence.body.push(l);
      return;
    }
    if (open) {
      endPara();
      fence = { marker: open[2], lang: open[3], line: i + 1, body: [] };
      return;
    }
    if (!l.trim()) return endPara();
    // a heading or a table row is a paragraph of its own
    if (/^\s*(#|\|)/.test(l)) {
      endPara();
      prose.push({ doc: doc.file, line: i + 1, text: l });
      return;
    }
    if (para) para.body.push(l.trim());
    else para = { line: i + 1, body: [l.trim()] };
  });
  endPara();
  return { blocks, prose };
}

/** Inline code spans of a paragraph (single or multiple backticks). */
const codeSpans = (text: string) => [...text.matchAll(/(`+)(.+?)\1/g)].map((m) => m[2].trim());
const withoutCode = (text: string) => text.replace(/(`+)(.+?)\1/g, '');

/** GitHub's heading anchors: the text lower-cased, punctuation dropped, spaces as dashes; repeats get -1, -2. */
export function anchors(doc: Doc): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const p of parse(doc).prose) {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(p.text);
    if (!m) continue;
    const text = m[2].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

// ---------------------------------------------------------------- the commands

const STOP = new Set(['--', '|', '||', ';', '&&', '>', '>>', '2>', '2>&1', '\\']);

/** Every `memeval …` invocation in a text: the words after `memeval` up to a pipe, comment or `--`. */
export function invocations(text: string): string[][] {
  const out: string[][] = [];
  // a quoted "memeval …" is a literal text (a prompt's words), not an invocation
  for (const m of text.matchAll(/(?:^|[\s($/])memeval[ \t]+(?=\S)([^\n]*)/g)) {
    const words: string[] = [];
    for (const w of m[1].replace(/\\\|/g, '|').split(/[ \t]+/)) {
      if (STOP.has(w) || w.startsWith('#')) break;
      words.push(w);
    }
    if (words.length) out.push(words);
  }
  return out;
}

const longFlags = (c: Command) => c.options.map((o) => o.long).filter((l): l is string => Boolean(l));

/** What is wrong with one invocation, if anything: an unknown command or subcommand, a flag the command does not take. */
export function invocationProblem(program: Command, words: string[]): string | undefined {
  const first = words[0];
  // a placeholder (`memeval <command> --help`) names no command
  if (/^[<[]/.test(first)) return undefined;
  let cmd: Command = program;
  const chain: Command[] = [program];
  let rest = words;
  if (!first.startsWith('-')) {
    const found = program.commands.find((c) => c.name() === first || c.aliases().includes(first));
    if (!found)
      return `"memeval ${first}": no such command (commands: ${program.commands.map((c) => c.name()).join(', ')})`;
    cmd = found;
    chain.push(found);
    rest = words.slice(1);
    // a group's next bare word must be one of its subcommands
    while (cmd.commands.length && rest.length && /^[a-z][a-z-]*$/.test(rest[0])) {
      const sub = cmd.commands.find((c) => c.name() === rest[0]);
      if (!sub)
        return `"memeval ${cmd.name()} ${rest[0]}": no such subcommand (${cmd.commands.map((c) => c.name()).join(', ')})`;
      cmd = sub;
      chain.push(sub);
      rest = rest.slice(1);
    }
  }
  const allowed = new Set(['--help', '--version', ...chain.flatMap(longFlags)]);
  for (const w of rest) {
    const flag = /^[[({]*(--[A-Za-z0-9][\w-]*)/.exec(w)?.[1];
    if (flag && !allowed.has(flag))
      return `"memeval ${chain
        .slice(1)
        .map((c) => c.name())
        .join(' ')} ${flag}": no such flag (it takes ${longFlags(cmd).join(', ') || 'none'})`;
  }
  return undefined;
}

// ---------------------------------------------------------------- the examples

/** A small scenario examples are merged into: one seed, a well-behaved write, a violation, an agent prompt. */
function baseScenario(): Record<string, unknown> {
  return {
    schema_version: 1,
    id: 'docs-example',
    title: 'a docs example',
    description: 'the scenario the docs test merges a partial example into',
    tags: [],
    setup: { memories: [{ ref: 'seed', content: 'User prefers pnpm over npm' }] },
    deterministic: {
      well_behaved: [{ op: 'remember', content: 'User prefers vitest' }],
      violation: { expectation: 'detect', steps: [{ op: 'remember', content: 'Test run: 14 passed, 3 failed' }] },
    },
    real_model: { sessions: [{ prompts: ['Remember that I prefer vitest.'] }] },
    assertions: [
      { kind: 'count', name: 'kept', phase: 'well-behaved', contains: 'vitest', op: 'eq', value: 1 },
      { kind: 'count', name: 'no test tally', phase: 'both', contains: 'passed,', op: 'eq', value: 0 },
    ],
  };
}
const SCENARIO_KEYS = new Set(Object.keys(baseScenario()).concat(['adapted_from', 'provider']));

type Shape = 'scenario' | 'assertions' | 'step' | 'target' | 'expected-failures' | 'calibration-case';
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parse a block as JSON5: whole, as the inside of an object (top-level keys), or as the inside of a list. */
function parseBlock(text: string): unknown {
  for (const wrap of [(t: string) => t, (t: string) => `{\n${t}\n}`, (t: string) => `[\n${t}\n]`]) {
    try {
      return JSON5.parse(wrap(text));
    } catch {
      // try the next reading
    }
  }
  throw new Error('does not parse as JSON5 (whole, as top-level keys, or as a list)');
}

function shapeOf(v: unknown): { shape: Shape; value: unknown } | undefined {
  if (Array.isArray(v)) {
    if (v.length && v.every((e) => isObj(e) && 'kind' in e)) return { shape: 'assertions', value: v };
    if (v.length && v.every((e) => isObj(e) && 'scenario' in e && 'target' in e))
      return { shape: 'expected-failures', value: v };
    return undefined;
  }
  if (!isObj(v)) return undefined;
  if ('schema_version' in v && 'id' in v) return { shape: 'scenario', value: v };
  if ('kind' in v) return { shape: 'assertions', value: [v] };
  if ('op' in v) return { shape: 'step', value: v };
  if ('ops' in v && 'store' in v) return { shape: 'target', value: v };
  if ('check' in v && 'expected' in v && 'id' in v) return { shape: 'calibration-case', value: v };
  // part of a scenario: its keys over the base (new steps with restarts: no agent sessions to match)
  if (Object.keys(v).length && Object.keys(v).every((k) => SCENARIO_KEYS.has(k)))
    return {
      shape: 'scenario',
      value: { ...baseScenario(), ...('deterministic' in v ? { real_model: null } : {}), ...v },
    };
  return undefined;
}

/** The problems memeval finds in an example (none: it loads), as `memeval validate` would report them. */
export function exampleProblems(text: string, dir: string): string[] {
  const parsed = shapeOf(parseBlock(text));
  if (!parsed)
    return [
      'is none of: a scenario or part of one, assertions, a step, a target, expected failures, a calibration case',
    ];
  mkdirSync(dir, { recursive: true });
  const write = (name: string, v: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(v, null, 2));
    return file;
  };
  switch (parsed.shape) {
    case 'target':
      return validatePaths([write(`${String((parsed.value as { name: unknown }).name)}.json5`, parsed.value)]).flatMap(
        (r) => r.problems,
      );
    case 'expected-failures':
      return problemsOf(() => readExpectedFailures(write('expected-failures.json5', parsed.value)));
    case 'calibration-case':
      return problemsOf(() =>
        loadCalibrationFile(write('cases.json5', { schema_version: 1, title: 'docs', cases: [parsed.value] })),
      );
    case 'step':
    case 'assertions':
    case 'scenario': {
      const s = parsed.shape === 'scenario' ? (parsed.value as Record<string, unknown>) : baseScenario();
      if (parsed.shape === 'step')
        ((s.deterministic as { well_behaved: unknown[] }).well_behaved as unknown[]).push(parsed.value);
      if (parsed.shape === 'assertions')
        s.assertions = [...(s.assertions as unknown[]), ...(parsed.value as unknown[])];
      // a plug-in's module would be loaded in a child process: its assertion is checked by schema here
      const all = s.assertions as Record<string, unknown>[];
      const problems = all
        .filter((a) => a.kind === 'plugin')
        .flatMap((a) => {
          const r = assertionSchema.safeParse(a);
          return r.success ? [] : r.error.issues.map((i) => `plugin assertion: ${i.path.join('.')}: ${i.message}`);
        });
      s.assertions = all.filter((a) => a.kind !== 'plugin');
      // an llm prompt override names a file beside the scenario
      for (const a of s.assertions as { prompt?: unknown }[])
        if (typeof a.prompt === 'string') {
          mkdirSync(dirname(join(dir, a.prompt)), { recursive: true });
          writeFileSync(join(dir, a.prompt), 'Judge {{subject}}.\n');
        }
      const file = write(`${String(s.id)}.json5`, s);
      problems.push(...validatePaths([file]).flatMap((r) => r.problems));
      if (!problems.length) problems.push(...storeSqlSyntaxProblems(loadScenario(file).scenario));
      return problems;
    }
  }
}

function problemsOf(f: () => unknown): string[] {
  try {
    f();
    return [];
  } catch (e) {
    return ((e as { problems?: string[] }).problems ?? [(e as Error).message]).map(String);
  }
}

/** What a ```json5 block's first line says it is: a quotation of a file, a fragment, a bad example, or nothing. */
export function marker(
  text: string,
): { kind: 'quote'; file: string } | { kind: 'fragment' | 'invalid'; why: string } | undefined {
  const first = text.split('\n')[0].trim();
  const m = /^\/\/\s*(fragment|invalid):\s*(.+)$/.exec(first);
  if (m) return { kind: m[1] as 'fragment' | 'invalid', why: m[2] };
  const q = /^\/\/\s*(\S+\.(?:json5?|mjs|js|ts))\s*$/.exec(first);
  if (q && existsSync(join(ROOT, q[1]))) return { kind: 'quote', file: q[1] };
  return undefined;
}

/** A quoted block's lines (trimmed, blank ones left out) must appear in the file in order. */
function quoteProblem(text: string, file: string): string | undefined {
  const want = text
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter(Boolean);
  const have = readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  let at = 0;
  for (const w of want) {
    const i = have.indexOf(w, at);
    if (i < 0) return `quotes ${file}, which has no line "${w}" (after line ${at})`;
    at = i + 1;
  }
  return undefined;
}

const where = (b: { doc: string; line: number }) => `${relative(ROOT, b.doc)}:${b.line}`;
const ALL = docs();
const PARSED = ALL.map((d) => ({ doc: d, ...parse(d) }));

test('every scenario, target and other JSON5 example in the docs loads with memeval (marked fragments and bad examples aside)', (t) => {
  const dir = tempDir(t, 'memeval-docs-');
  const problems: string[] = [];
  let checked = 0;
  const marks: string[] = [];
  PARSED.flatMap((p) => p.blocks)
    .filter((b) => b.lang === 'json5')
    .forEach((b, i) => {
      const m = marker(b.text);
      if (m?.kind === 'fragment') return void marks.push(`${where(b)} fragment: ${m.why}`);
      if (m?.kind === 'quote') {
        const q = quoteProblem(b.text, m.file);
        if (q) problems.push(`${where(b)}: ${q}`);
        checked++;
        return;
      }
      let found: string[];
      try {
        found = exampleProblems(b.text, join(dir, String(i)));
      } catch (e) {
        found = [(e as Error).message];
      }
      checked++;
      if (m?.kind === 'invalid') {
        marks.push(`${where(b)} invalid: ${m.why}`);
        if (!found.length) problems.push(`${where(b)}: marked "invalid: ${m.why}", but it loads`);
      } else for (const f of found) problems.push(`${where(b)}: ${f}`);
    });
  assert.deepEqual(problems, [], problems.join('\n'));
  assert.ok(checked >= 15, `only ${checked} JSON5 examples were checked: is the docs tree where this test looks?`);
  // marks let an example skip the check: they stay few, and each says why
  assert.ok(marks.length <= 3, `too many marked examples:\n${marks.join('\n')}`);
});

test('every `memeval <command> --flag` the docs mention is a command and flag of the CLI', () => {
  const program = buildProgram({ exitCode: 0, hardExit: ((c: number) => assert.fail(`exit ${c}`)) as never });
  const problems: string[] = [];
  let seen = 0;
  for (const { blocks, prose } of PARSED) {
    const texts = [
      // a shell comment says something about a command, it does not run one
      ...blocks
        .filter((b) => b.lang !== 'json5' && b.lang !== 'js')
        .map((b) => ({ at: b, text: b.text.replace(/(^|\s)#.*$/gm, '') })),
      ...prose.flatMap((p) => codeSpans(p.text).map((text) => ({ at: p, text }))),
    ];
    for (const { at, text } of texts)
      for (const words of invocations(text.replace(/\\\n\s*/g, ' '))) {
        seen++;
        const p = invocationProblem(program, words);
        if (p) problems.push(`${where(at)}: ${p}`);
      }
  }
  assert.deepEqual(problems, [], problems.join('\n'));
  assert.ok(seen >= 50, `only ${seen} memeval invocations found in the docs`);
});

test('every relative link between README.md and docs/*.md resolves, and every #anchor names a heading', () => {
  const headings = new Map(ALL.map((d) => [d.file, anchors(d)]));
  const problems: string[] = [];
  let links = 0;
  for (const { doc, prose } of PARSED)
    for (const p of prose)
      for (const m of withoutCode(p.text).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        links++;
        const [path, anchor] = target.split('#');
        const file = path ? resolve(dirname(doc.file), path) : doc.file;
        if (!existsSync(file)) {
          problems.push(`${where(p)}: ${target}: no such file`);
          continue;
        }
        const known = headings.get(file);
        if (anchor !== undefined && known && !known.has(anchor))
          problems.push(`${where(p)}: ${target}: ${relative(ROOT, file)} has no heading #${anchor}`);
      }
  assert.deepEqual(problems, [], problems.join('\n'));
  assert.ok(links >= 50, `only ${links} links found`);
});

test("the README's test command is the one CI runs after `npm ci`, and its quick start is the two commands", () => {
  const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const after = ci.slice(ci.findIndex((l) => l.startsWith('npm ci')) + 1);
  assert.ok(after.length, '.ci/run runs nothing after npm ci');
  const readme = PARSED[0];
  assert.equal(relative(ROOT, readme.doc.file), 'README.md');
  const quick = readme.prose.findIndex((p) => /^##\s+Quick start/.test(p.text));
  assert.ok(quick >= 0, 'the README has no "Quick start" section');
  const block = readme.blocks.find((b) => b.line > readme.prose[quick].line && b.lang === 'sh');
  assert.ok(block, 'no ```sh block under "Quick start"');
  const commands = block.text.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
  assert.deepEqual(commands, ['npm install && npx memeval run', 'npm test']);
  for (const c of after)
    assert.ok(commands.includes(c), `CI runs "${c}", which the README's quick start does not give`);
});

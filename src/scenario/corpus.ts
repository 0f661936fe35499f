import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import picomatch from 'picomatch';
import { parseDocument } from 'yaml';
import { z } from 'zod';

/**
 * A corpus of memories as Markdown files with YAML front matter (ref or id, category, source,
 * subject, tags; any other key is kept as the memory's `metadata`). `setup.memories_from` names
 * a folder (every .md below it) or a glob, relative to the scenario file. A file holds:
 * - one memory, its body (the shape memeval's own corpus uses; `ref` or `id` names it), or
 * - one memory per `##` section (ref: the file's ref, or its name, then the heading's slug), or
 * - one memory per item of a body (or section) that is a Markdown list (ref: …-1, -2, …).
 * Tags may be a YAML list or one comma-separated string.
 */
const refName = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'a ref name: a letter, then letters, digits, _ or -');
const KNOWN_KEYS = ['ref', 'id', 'category', 'source', 'subject', 'tags'] as const;
const frontMatterSchema = z
  .object({
    ref: refName.optional(),
    id: refName.optional(),
    category: z.string().optional(),
    source: z.string().optional(),
    subject: z.string().optional(),
    tags: z
      .union([
        z.array(z.string()),
        // "backend, auth": how several corpora write them
        z.string().transform((t) =>
          t
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
        ),
      ])
      .default([]),
  })
  .passthrough();

export interface CorpusMemory {
  ref: string;
  content: string;
  category?: string;
  source?: string;
  subject?: string;
  tags: string[];
  /** front-matter keys memeval does not use, kept as they were */
  metadata?: Record<string, unknown>;
  /** the file it came from, for messages */
  file: string;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
}

/** The files a `memories_from` pattern names: a folder's .md files (recursively) or a glob's matches. */
export function corpusFiles(pattern: string, baseDir: string): string[] {
  const abs = resolve(baseDir, pattern);
  if (existsSync(abs) && statSync(abs).isDirectory()) return walk(abs);
  if (existsSync(abs)) return [abs];
  const scan = picomatch.scan(abs);
  const root = scan.base || baseDir;
  if (!existsSync(root)) return [];
  const isMatch = picomatch(scan.glob, { dot: false });
  return walk(root).filter((f) => isMatch(relative(root, f)));
}

/** "Connection pool (prod)" → "connection-pool-prod"; a ref name must start with a letter. */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return /^[a-z]/.test(s) ? s : `m-${s || 'x'}`;
}

const LIST_ITEM = /^\s{0,3}(?:[-*+]|\d+[.)])\s+/;

/**
 * The items of a text that is a Markdown list and nothing else (a line not starting an item
 * continues the one before); null when any text stands outside the list.
 */
export function listItems(text: string): string[] | null {
  const items: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    if (LIST_ITEM.test(line)) items.push(line.replace(LIST_ITEM, '').trim());
    else if (items.length && /^\s/.test(line)) items[items.length - 1] += ` ${line.trim()}`;
    else return null;
  }
  return items.length ? items : null;
}

/** A body split at `## ` headings: the text before the first (a `# ` title line left out), then each section. */
function sections(body: string): { preamble: string; parts: { heading: string; text: string }[] } | null {
  const lines = body.split(/\r?\n/);
  if (!lines.some((l) => /^##\s+\S/.test(l))) return null;
  const parts: { heading: string; text: string[] }[] = [];
  const pre: string[] = [];
  for (const l of lines) {
    const h = /^##\s+(.*?)\s*#*\s*$/.exec(l);
    if (h && /^##\s/.test(l)) parts.push({ heading: h[1], text: [] });
    else if (parts.length) parts[parts.length - 1].text.push(l);
    else if (!/^#\s/.test(l)) pre.push(l);
  }
  return {
    preamble: pre.join('\n').trim(),
    parts: parts.map((p) => ({ heading: p.heading, text: p.text.join('\n').trim() })),
  };
}

/** A text as memories: one per list item when it is a list, else itself. */
function pieces(ref: string, text: string): { ref: string; content: string }[] {
  const items = listItems(text);
  return items && items.length > 1
    ? items.map((content, i) => ({ ref: `${ref}-${i + 1}`, content }))
    : [{ ref, content: text }];
}

/** Parse one corpus file into its memories; problems name the file and, for YAML errors, the line. */
export function parseMemoryFile(file: string): { memories: CorpusMemory[]; problems: string[] } {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!m)
    return {
      memories: [],
      problems: [`${file}: expected YAML front matter between --- lines, then the memory's text`],
    };
  const doc = parseDocument(m[1]);
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = e.linePos?.[0] ? `:${e.linePos[0].line + 1}:${e.linePos[0].col}` : '';
    return { memories: [], problems: [`${file}${line}: front matter: ${e.message.split('\n')[0]}`] };
  }
  const raw: unknown = doc.toJS() ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { memories: [], problems: [`${file}: front matter: expected key: value pairs`] };
  const fm = frontMatterSchema.safeParse(raw);
  if (!fm.success)
    return {
      memories: [],
      problems: fm.error.issues.map(
        (i) => `${file}: front matter${i.path.length ? ` ${i.path.join('.')}` : ''}: ${i.message}`,
      ),
    };
  const f = fm.data;
  const extra = Object.fromEntries(
    Object.entries(raw as Record<string, unknown>).filter(([k]) => !(KNOWN_KEYS as readonly string[]).includes(k)),
  );
  const common = {
    category: f.category,
    source: f.source,
    subject: f.subject,
    tags: f.tags,
    ...(Object.keys(extra).length ? { metadata: extra } : {}),
    file,
  };
  const body = m[2].trim();
  if (!body) return { memories: [], problems: [`${file}: the memory's text (after the front matter) is empty`] };
  const named = f.ref ?? f.id;
  const split = sections(body);
  const list = split ? null : listItems(body);
  // one memory per file: its name must be given, as before
  if (!split && !(list && list.length > 1)) {
    if (!named)
      return {
        memories: [],
        problems: [`${file}: front matter: front matter needs \`ref\` (or \`id\`) naming the memory`],
      };
    return { memories: [{ ref: named, content: body, ...common }], problems: [] };
  }
  // several memories: named after the file unless it names itself
  const base = named ?? slug(basename(file, extname(file)));
  const problems: string[] = [];
  const found: { ref: string; content: string }[] = [];
  if (!split) found.push(...pieces(base, body));
  else {
    if (split.preamble) found.push(...pieces(base, split.preamble));
    const used = new Map<string, number>();
    for (const sec of split.parts) {
      let ref = `${base}-${slug(sec.heading)}`;
      const n = (used.get(ref) ?? 0) + 1;
      used.set(ref, n);
      if (n > 1) ref += `-${n}`;
      if (!sec.text) problems.push(`${file}: section "## ${sec.heading}" has no text`);
      else found.push(...pieces(ref, sec.text));
    }
  }
  return { memories: found.map((x) => ({ ...x, ...common })), problems };
}

/** Load every memory a scenario's `memories_from` names; problems are returned, not thrown. */
export function loadCorpus(patterns: string[], scenarioFile: string): { memories: CorpusMemory[]; problems: string[] } {
  const base = dirname(resolve(scenarioFile));
  const memories: CorpusMemory[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const p of patterns) {
    const files = corpusFiles(p, base);
    if (!files.length) problems.push(`setup.memories_from: "${p}" matches no .md file (relative to ${base})`);
    for (const f of files) {
      const r = parseMemoryFile(f);
      problems.push(...r.problems);
      for (const memory of r.memories) {
        const prev = seen.get(memory.ref);
        if (prev) problems.push(`${f}: ref "${memory.ref}" is also used by ${prev}`);
        seen.set(memory.ref, f);
        memories.push(memory);
      }
    }
  }
  return { memories, problems };
}

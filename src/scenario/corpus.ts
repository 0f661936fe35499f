import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import picomatch from 'picomatch';
import { parseDocument } from 'yaml';
import { z } from 'zod';

/**
 * A corpus of memories as Markdown files, one memory per file: YAML front matter (ref or id,
 * category, source, subject, tags) and the memory's text as the body. `setup.memories_from`
 * names a folder (every .md below it) or a glob, relative to the scenario file.
 */
const frontMatterSchema = z
  .strictObject({
    ref: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'a ref name: a letter, then letters, digits, _ or -')
      .optional(),
    id: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'a ref name: a letter, then letters, digits, _ or -')
      .optional(),
    category: z.string().optional(),
    source: z.string().optional(),
    subject: z.string().optional(),
    tags: z.array(z.string()).default([]),
  })
  .refine((f) => (f.ref ?? f.id) !== undefined, { message: 'front matter needs `ref` (or `id`) naming the memory' });

export interface CorpusMemory {
  ref: string;
  content: string;
  category?: string;
  source?: string;
  subject?: string;
  tags: string[];
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

/** Parse one memory file; problems name the file and, for YAML errors, the line. */
export function parseMemoryFile(file: string): { memory?: CorpusMemory; problems: string[] } {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!m) return { problems: [`${file}: expected YAML front matter between --- lines, then the memory's text`] };
  const doc = parseDocument(m[1]);
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = e.linePos?.[0] ? `:${e.linePos[0].line + 1}:${e.linePos[0].col}` : '';
    return { problems: [`${file}${line}: front matter: ${e.message.split('\n')[0]}`] };
  }
  const fm = frontMatterSchema.safeParse(doc.toJS() ?? {});
  if (!fm.success)
    return {
      problems: fm.error.issues.map(
        (i) => `${file}: front matter${i.path.length ? ` ${i.path.join('.')}` : ''}: ${i.message}`,
      ),
    };
  const content = m[2].trim();
  if (!content) return { problems: [`${file}: the memory's text (after the front matter) is empty`] };
  const f = fm.data;
  return {
    memory: {
      ref: (f.ref ?? f.id)!,
      content,
      category: f.category,
      source: f.source,
      subject: f.subject,
      tags: f.tags,
      file,
    },
    problems: [],
  };
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
      if (!r.memory) continue;
      const prev = seen.get(r.memory.ref);
      if (prev) problems.push(`${f}: ref "${r.memory.ref}" is also used by ${prev}`);
      seen.set(r.memory.ref, f);
      memories.push(r.memory);
    }
  }
  return { memories, problems };
}

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { MemevalError, messageOf } from '../util/errors.js';

/**
 * A file larger than this is `error` rather than scanned: reading it would take longer than the
 * rest of the cell. Everything below is streamed, so size alone never drops a file.
 */
export const MAX_SCAN_BYTES = 1024 * 1024 * 1024;
const CHUNK = 1024 * 1024;

/** One byte form a text can take on disk, named by the encoding that gives it. */
export interface Form {
  encoding: string;
  bytes: Buffer;
}

/** What to look for: a text, matched with or without case. */
export interface Query {
  text: string;
  caseSensitive: boolean;
}

const hex4 = (c: number, upper: boolean) => {
  const h = c.toString(16).padStart(4, '0');
  return `\\u${upper ? h.toUpperCase() : h}`;
};

/** The inside of a JSON string literal as JSON.stringify (and most encoders) writes it. */
const jsonInner = (t: string) => JSON.stringify(t).slice(1, -1);
/** Every UTF-16 unit above ASCII as \uXXXX: Python's json.dumps default (ensure_ascii). */
// eslint-disable-next-line no-control-regex -- every unit outside ASCII, NUL included
const asciiOnly = (s: string, upper: boolean) => s.replace(/[^\x00-\x7e]/g, (ch) => hex4(ch.charCodeAt(0), upper));
/** Go's encoding/json escapes <, >, & (and U+2028/9) for HTML safety. */
const htmlSafe = (s: string) => s.replace(/[<>&\u2028\u2029]/g, (ch) => hex4(ch.charCodeAt(0), false));

/**
 * The byte forms a text takes in the stores memory servers write: its UTF-8 bytes, its latin1
 * bytes (when it fits latin1 and differs), and the inside of a JSON string as the common
 * encoders escape it (quotes, backslashes and control characters escaped; non-ASCII as \uXXXX in
 * lower or upper hex; `/` as `\/`; Go's HTML-safe escapes), and escaped twice (a JSON document
 * kept as a string inside another). Forms that equal one already listed are dropped, so a plain
 * ASCII token is searched once.
 */
export function formsOf(text: string): Form[] {
  const forms: Form[] = [];
  const seen = new Set<string>();
  const add = (encoding: string, bytes: Buffer) => {
    const key = bytes.toString('latin1');
    if (bytes.length && !seen.has(key)) (seen.add(key), forms.push({ encoding, bytes }));
  };
  add('utf-8', Buffer.from(text, 'utf8'));
  // eslint-disable-next-line no-control-regex -- byte ranges: non-ASCII, and all of it within latin1
  if (/[^\x00-\x7f]/.test(text) && /^[\x00-\xff]*$/.test(text)) add('latin1', Buffer.from(text, 'latin1'));
  const inner = jsonInner(text);
  const json = [
    inner,
    asciiOnly(inner, false),
    asciiOnly(inner, true),
    htmlSafe(inner),
    asciiOnly(htmlSafe(inner), false),
  ];
  for (const j of json) add('json-escaped', Buffer.from(j, 'utf8'));
  for (const j of json) add('json-escaped', Buffer.from(j.replace(/\//g, '\\/'), 'utf8'));
  add('json-escaped twice', Buffer.from(jsonInner(inner), 'utf8'));
  add('json-escaped twice', Buffer.from(jsonInner(asciiOnly(inner, false)), 'utf8'));
  return forms;
}

/** The forms a text takes that are text themselves (what a SQL column search can look for). */
export function textForms(text: string): { encoding: string; text: string }[] {
  return formsOf(text)
    .filter((f) => f.encoding !== 'latin1')
    .map((f) => ({ encoding: f.encoding, text: f.bytes.toString('utf8') }));
}

/** A file that could not be scanned, and why. */
export class ScanError extends MemevalError {
  constructor(message: string, options?: ErrorOptions) {
    super('SCAN', message, options);
  }
}

/** One read of a file: the encodings each query was found in, and how many bytes were read. */
export interface FileHits {
  bytes: number;
  hits: Map<Query, string[]>;
}

/**
 * Stream one file once for every query, in chunks that overlap by the longest form less one
 * byte, so a form cut by a chunk boundary is still found. Case-insensitive queries compare the
 * latin1 view of the bytes lowercased (as the store's raw bytes always were).
 */
export function scanFile(path: string, queries: Query[]): FileHits {
  const wanted = queries.map((q) => ({
    q,
    forms: formsOf(q.text).map((f) => ({
      ...f,
      lower: q.caseSensitive ? '' : f.bytes.toString('latin1').toLowerCase(),
    })),
    found: new Set<string>(),
  }));
  const overlap = Math.max(0, ...wanted.flatMap((w) => w.forms.map((f) => f.bytes.length))) - 1;
  const anyInsensitive = wanted.some((w) => !w.q.caseSensitive);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new ScanError(`cannot open (${(e as NodeJS.ErrnoException).code ?? messageOf(e)})`, { cause: e });
  }
  let bytes = 0;
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_SCAN_BYTES) throw new ScanError(`${size} bytes, over the ${MAX_SCAN_BYTES}-byte scan limit`);
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry = Buffer.alloc(0);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, CHUNK, bytes);
      } catch (e) {
        throw new ScanError(`read failed at byte ${bytes} (${(e as NodeJS.ErrnoException).code ?? messageOf(e)})`, {
          cause: e,
        });
      }
      if (n === 0) break;
      bytes += n;
      if (bytes > MAX_SCAN_BYTES) throw new ScanError(`grew past the ${MAX_SCAN_BYTES}-byte scan limit while read`);
      const window = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      const lower = anyInsensitive ? window.toString('latin1').toLowerCase() : '';
      for (const w of wanted)
        for (const f of w.forms)
          if (!w.found.has(f.encoding) && (w.q.caseSensitive ? window.includes(f.bytes) : lower.includes(f.lower)))
            w.found.add(f.encoding);
      carry = Buffer.from(window.subarray(Math.max(0, window.length - overlap)));
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, hits: new Map(wanted.filter((w) => w.found.size).map((w) => [w.q, [...w.found]])) };
}

/** A file of the fixture to scan, labelled by its path inside the fixture. */
export interface ScanFile {
  abs: string;
  label: string;
}

/** Where one text was found among the fixture's files, what could not be read, and what was read. */
export interface FilesResult {
  sightings: { label: string; encodings: string[] }[];
  unscanned: { label: string; why: string }[];
  files: number;
  bytes: number;
  encodings: string[];
}

const keyOf = (q: Query) => `${q.caseSensitive ? 1 : 0}:${q.text}`;

/**
 * The fixture files `absent` reads. `prescan` reads every file once for all the texts a cell's
 * assertions name, before anything else (a recall probe's server) can write to the fixture;
 * `find` answers from that read, or reads now for a text nobody asked for in advance.
 */
export class FixtureScan {
  private results = new Map<string, FilesResult>();

  constructor(
    readonly files: ScanFile[],
    /** files and folders left out on purpose, as they are named in a judgment */
    readonly leftOut: string[] = [],
  ) {}

  prescan(queries: Query[]): void {
    const todo = [...new Map(queries.filter((q) => !this.results.has(keyOf(q))).map((q) => [keyOf(q), q])).values()];
    if (!todo.length) return;
    const out = new Map(
      todo.map((q) => [
        q,
        {
          sightings: [],
          unscanned: [],
          files: 0,
          bytes: 0,
          encodings: [...new Set(formsOf(q.text).map((f) => f.encoding))],
        } as FilesResult,
      ]),
    );
    for (const f of this.files) {
      let r: FileHits;
      try {
        r = scanFile(f.abs, todo);
      } catch (e) {
        if (!(e instanceof ScanError)) throw e;
        for (const res of out.values()) res.unscanned.push({ label: f.label, why: e.message });
        continue;
      }
      for (const [q, res] of out) {
        res.files++;
        res.bytes += r.bytes;
        const hit = r.hits.get(q);
        if (hit) res.sightings.push({ label: f.label, encodings: hit });
      }
    }
    for (const [q, res] of out) this.results.set(keyOf(q), res);
  }

  find(q: Query): FilesResult {
    this.prescan([q]);
    return this.results.get(keyOf(q))!;
  }
}

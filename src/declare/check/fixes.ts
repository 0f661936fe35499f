import type { TargetDecl } from '../../targets/schema.js';
import { clip } from '../../util/text.js';
import { jsonArrayPaths } from './points.js';

/** How much of a server's answer a point quotes. */
const QUOTE = 160;

export const quote = (text: string) => (text.trim() ? JSON.stringify(clip(text.trim(), QUOTE)) : '(nothing)');

export function quoteRows(rows: Record<string, unknown>[]): string {
  if (!rows.length) return '(none)';
  return clip(
    rows
      .slice(0, 3)
      .map(
        (r) =>
          `{id: ${String(r.id)}, content: ${JSON.stringify(String(r.content ?? ''))}, is_deleted: ${String(r.is_deleted)}}`,
      )
      .join(', '),
    300,
  );
}

export const REFUSED_RECALL = 'make ops.recall call a listed tool with the arguments its input schema names';

export function recallFormatFix(decl: TargetDecl, text: string): string {
  const arrays = jsonArrayPaths(text);
  const json = arrays.length ? ` (arrays in that JSON: ${arrays.map((a) => `"${a}"`).join(', ')})` : '';
  return decl.recall_results?.json !== undefined
    ? `set recall_results.json to the dot path of the results array in that text${json}`
    : arrays.length
      ? `the result is JSON: declare recall_results: { json: "<path>" }${json} instead of a regex`
      : 'write recall_results.regex (flags gmu) so that each result in that text is one match';
}

/** A declared empty form for what the server said, with the query as {{query}} (JSON: its path instead). */
export function emptyFormFix(decl: TargetDecl, text: string, query: string): string {
  if (decl.recall_results?.json === undefined && jsonArrayPaths(text).length) return recallFormatFix(decl, text);
  const form = text.trim().split(query).join('{{query}}');
  return `if that is how the server says "nothing found", declare recall_results.empty: { text: ${JSON.stringify(form)} }`;
}

export const forgetFix = (decl: TargetDecl) =>
  `make ops.forget remove the memory by the id its remember gave (${decl.ops.remember?.some((c) => c.capture_id) ? 'capture_id' : '{{memory.key}}, no capture_id'}), and mark removed rows is_deleted in views.memories`;

export const updateFix = (decl: TargetDecl) =>
  `make ops.update write {{content}} for {{memory.id}} (${decl.ops.remember?.some((c) => c.capture_id) ? 'from capture_id' : 'no capture_id: the key'}), and views.memories return rows it replaced as is_deleted`;

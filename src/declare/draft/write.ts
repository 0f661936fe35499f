import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import JSON5 from 'json5';
import type { TargetDecl } from '../../targets/schema.js';

/**
 * The draft as JSON5: the fields a person reads (schema defaults left out), with what they still
 * have to decide, and the points `targets check` failed on, as comments on top.
 */
export function writeDraft(file: string, decl: TargetDecl, toDecide: string[], failing: string[]): void {
  const { defaults: _d, fixture: _f, provider: _p, ...rest } = decl;
  const body = {
    ...rest,
    package: decl.package
      ? Object.fromEntries(
          Object.entries(decl.package).filter(
            ([k, v]) => ['npm', 'version', 'bin'].includes(k) || (k === 'source' && v === 'dependency'),
          ),
        )
      : undefined,
    server: {
      ...(decl.server.command ? { command: decl.server.command } : {}),
      ...(decl.server.args.length ? { args: decl.server.args } : {}),
      ...(Object.keys(decl.server.env).length ? { env: decl.server.env } : {}),
    },
    views: Object.keys(decl.views.extra).length ? decl.views : { memories: decl.views.memories },
  };
  const header = [
    `// Draft declaration for ${decl.package?.npm ?? decl.name}, written by \`memeval targets new\`.`,
    `// Check it with \`memeval targets check ${file}\` after each change. Still to decide:`,
    ...toDecide.map((t) => `//  - ${t}`),
    ...(failing.length ? ['// targets check failed on these points:', ...failing.map((f) => `//  ${f}`)] : []),
  ].join('\n');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${header}\n${JSON5.stringify(body, { space: 2, quote: '"' })}\n`);
}

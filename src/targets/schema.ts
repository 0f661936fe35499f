import { z } from 'zod';
import { CLAIMS } from '../scenario/claims.js';
import { MEMORY_OPS, regexSource } from '../scenario/schema.js';

/** One MCP tool call an op expands to; strings may hold {{placeholders}}. */
const opCall = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  capture_id: z
    .string()
    .optional()
    .describe(
      'regex applied to the result text; its first group that matched is the id of the stored memory (default: {{key}})',
    ),
});
export type OpCall = z.infer<typeof opCall>;

/** How a program of a local target's `cli` is named: as a package names its bins. */
export const PROGRAM_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const targetSchema = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and -, equal to the file name'),
  description: z.string().min(1),
  homepage: z.string().optional(),
  package: z
    .strictObject({
      npm: z.string().min(1).describe('npm package name'),
      version: z.string().min(1).describe('pinned version'),
      bin: z.string().min(1).describe('name of the bin the package declares'),
      source: z
        .enum(['dependency', 'cache'])
        .default('cache')
        .describe('"dependency": a dependency of memeval itself; "cache": installed by `memeval targets install`'),
      extra: z.array(z.string()).default([]).describe('more npm specs installed beside it'),
      overrides: z.record(z.string(), z.string()).default({}).describe('npm overrides the install needs'),
      omit_optional: z.boolean().default(false),
      install_name: z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]*$/)
        .optional()
        .describe(
          'cache folder name (default: the package, its version and a hash of the install options, so declarations of the same install share one)',
        ),
      ignore_scripts: z
        .boolean()
        .default(false)
        .describe('install with --ignore-scripts: skips native download-or-compile steps the server does not need'),
      cached_model: z
        .strictObject({
          path: z
            .string()
            .min(1)
            .refine(
              (p) =>
                !p.startsWith('/') && !p.startsWith('\\') && !/^[a-z]:/i.test(p) && !p.split(/[\\/]/).includes('..'),
              'a path relative to the install dir, without ".." (e.g. node_modules/@xenova/transformers/.cache/Xenova/all-MiniLM-L6-v2)',
            )
            .describe(
              'inside the install, where its transformers.js caches the model it downloads, e.g. node_modules/@xenova/transformers/.cache/Xenova/all-MiniLM-L6-v2',
            ),
          dimensions: z.number().int().positive().default(384),
        })
        .optional()
        .describe(
          'for a server whose transformers.js model lives in its own install, not in the fixture: memeval writes a fixed tiny deterministic model there (texts embed by their letters), so it never downloads one',
        ),
      install_env: z
        .record(z.string(), z.string())
        .superRefine((env, ctx) => {
          for (const k of Object.keys(env))
            if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || /^npm_/i.test(k))
              ctx.addIssue({
                code: 'custom',
                path: [k],
                message: /^npm_/i.test(k)
                  ? "npm's own settings (npm_*) are memeval's, so the registry stays the user's; set the package's own switch instead"
                  : 'not an environment variable name (letters, digits and _, not starting with a digit)',
              });
        })
        .default({})
        .describe(
          "environment for the npm install and its scripts: a dependency's documented switch, e.g. ONNXRUNTIME_NODE_INSTALL_CUDA=skip for a download that cannot work offline (HOME and npm's own settings stay memeval's)",
        ),
      skip_build: z
        .record(z.string().min(1), z.string().min(1))
        .default({})
        .describe(
          'dependencies whose install script cannot work offline, each with the reason (e.g. it downloads from GitHub); every other install script runs, native builds through the build cache',
        ),
    })
    .optional()
    .describe('the npm package that provides the server; omit it only with server.command'),
  server: z
    .strictObject({
      command: z.string().optional().describe('run this command instead of the package bin (a local server)'),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
      cwd: z.string().default('{{project}}'),
      startup_timeout_ms: z.number().int().positive().default(30000),
      call_timeout_ms: z.number().int().positive().default(30000),
      max_message_bytes: z
        .number()
        .int()
        .min(1024)
        .max(1024 * 1024 * 1024)
        .optional()
        .describe(
          'largest JSON-RPC message accepted from the server (default 64 MiB); a larger one ends the cell as error',
        ),
      store_failure: z
        .array(
          z
            .string()
            .min(1)
            .max(300)
            .refine((r) => {
              try {
                new RegExp(r, 'u');
                return true;
              } catch {
                return false;
              }
            }, 'not a valid regular expression (flag u)'),
        )
        .max(20)
        .default([])
        .describe(
          'regexes for a line (stderr or non-JSON-RPC stdout) saying the declared store could not be opened, e.g. a fallback to memory; a server that writes one makes the cell error with that line. Built in: "Could not locate the bindings file", a native module built for another Node, SQLITE_CANTOPEN',
        ),
    })
    .prefault({}),
  cli: z
    .record(
      z.string().regex(PROGRAM_NAME),
      z.strictObject({
        command: z
          .string()
          .min(1)
          .describe(
            'the program to start, e.g. {{node}}; placeholders: {{node}}, {{memeval_dir}} and the fixture dirs',
          ),
        args: z
          .array(z.string())
          .default([])
          .describe("arguments before the command judge's own `run` arguments, e.g. the script file"),
      }),
      {
        // zod's own words for a bad key ("Invalid key in record") name no fix
        error: (issue) =>
          issue.code === 'invalid_key'
            ? 'not a program name; name it as the command judges\' `bin` does (letters, digits, ".", "_", "-", e.g. "memories")'
            : undefined,
      },
    )
    .optional()
    .describe(
      "a local target's own command-line programs, by the name a `command` judge's `bin` gives, as an npm package names its bins: each runs as `command args… <the judge's run>` in the fixture, with the server's env. Only without `package` (a package's CLI is its bin)",
    ),
  fixture: z
    .strictObject({
      git_init: z.boolean().default(false),
      git_remote: z.string().optional().describe('origin URL to add after git init'),
      files: z
        .array(
          z.strictObject({
            path: z.string().min(1).describe('e.g. {{home}}/.config/x.yml; must stay inside the fixture'),
            content: z.string().describe('placeholders such as {{provider}}, {{data}} and {{home}} are filled'),
          }),
        )
        .default([])
        .describe('config files written into the fixture before the server starts'),
      embedding_model: z
        .strictObject({
          dir: z
            .string()
            .min(1)
            .describe(
              'where the server looks for its transformers.js model, e.g. {{home}}/.cache/x/models/Xenova/all-MiniLM-L6-v2',
            ),
          dimensions: z.number().int().positive().default(384),
          recall_unsupported: z
            .string()
            .min(1)
            .optional()
            .describe(
              "why this target's recall cannot be judged on the seeded model (e.g. its search keeps only hits over a cosine threshold set for the real model): scenarios whose judges read a recall are then unsupported, with this reason",
            ),
        })
        .optional()
        .describe('seed a tiny deterministic embedding model there, so the server never downloads one'),
    })
    .prefault({}),
  store: z.strictObject({
    format: z
      .enum(['sqlite', 'jsonl', 'files', 'none'])
      .describe(
        '"files": path is a folder, every file under it a row of store.files; "none": the server keeps memories in its process only; views.memories then reads the calls log (table calls)',
      ),
    path: z
      .string()
      .min(1)
      .optional()
      .describe(
        'store file, e.g. {{data}}/memory.db; -wal/-shm siblings are copied too; for format files the folder (not with format none)',
      ),
    forgets_on_exit: z
      .boolean()
      .optional()
      .describe(
        'with format none: the server, run as its users run it, writes nothing that outlives its process, so recall assertions are judged on the fresh server and what it forgot fails them',
      ),
  }),
  views: z.strictObject({
    memories: z
      .string()
      .min(1)
      .describe('SELECT over store.<table> yielding id, content, category, source, subject, created_at, is_deleted'),
    extra: z.record(z.string(), z.string()).default({}).describe('more named views, e.g. history or FTS layers'),
  }),
  defaults: z
    .strictObject({
      subject: z.string().default('user'),
      category: z.string().default('note'),
      source: z.string().default('memeval'),
    })
    .prefault({}),
  ops: z
    .strictObject(
      Object.fromEntries(MEMORY_OPS.map((op) => [op, z.array(opCall).min(1).optional()])) as Record<
        (typeof MEMORY_OPS)[number],
        z.ZodOptional<z.ZodArray<typeof opCall>>
      >,
    )
    .describe('how each memory op maps to tool calls; a missing op makes scenarios that need it unsupported'),
  provider: z
    .strictObject({
      dimensions: z.number().int().positive().default(256).describe('embedding size when a request names none'),
      rules: z
        .array(
          z.strictObject({
            name: z.string().optional(),
            contains: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
            capture: regexSource.optional().describe('a regex that must also match; $1.. in the answer are its groups'),
            answer: z.string(),
          }),
        )
        .default([])
        .describe("answers to the server's own housekeeping prompts, tried after the scenario's rules"),
      default: z.string().default('{}'),
    })
    .prefault({})
    .describe('used only when server.env, server.args or fixture.files name {{provider}}'),
  recall_results: z
    .strictObject({
      json: z.string().optional().describe('dot path to the array of results in a JSON result text, e.g. "entities"'),
      regex: z
        .string()
        .optional()
        .describe('a regex (flags gmu) whose every match is one result; group 1 if it has one'),
      empty: z
        .strictObject({
          text: z
            .string()
            .min(1)
            .optional()
            .describe(
              'the whole (trimmed) text; {{query}} stands for the query, e.g. "No results found for: \\"{{query}}\\""',
            ),
          regex: z.string().min(1).optional().describe('a regex (flag u) the whole trimmed text must match'),
        })
        .refine((e) => (e.text === undefined) !== (e.regex === undefined), {
          message: 'give exactly one of `text` or `regex`',
        })
        .optional()
        .describe(
          'what the target answers when a recall finds nothing; without it, a non-empty text with no result in it is an error, not "no results" (with `json`, a document whose array is empty already says none)',
        ),
    })
    .refine((r) => (r.json === undefined) !== (r.regex === undefined), {
      message: 'give exactly one of `json` or `regex`',
    })
    .optional()
    .describe(
      'how a recall result text splits into separate results; without it a recall that echoes the query cannot be judged',
    ),
  claims: z
    .array(z.enum(CLAIMS))
    .default([])
    .describe('defences the target claims; a violation it only detects then fails the run'),
});
export type TargetDecl = z.infer<typeof targetSchema>;

/** A declaration needs something to start: a package bin or an explicit command. */
export function checkTargetWiring(decl: TargetDecl): string[] {
  const problems =
    decl.package || decl.server.command
      ? []
      : ['package: missing; declare the npm package (or server.command for a local server)'];
  if (decl.package && decl.cli)
    problems.push(
      `cli: only for a local target (server.command, no package); a package target's command judges run its own bin \`${decl.package.bin}\`, so remove cli`,
    );
  if (decl.store.format !== 'none' && !decl.store.path)
    problems.push(`store.path: missing; a ${decl.store.format} store needs its file path`);
  if (decl.store.format !== 'none' && decl.store.forgets_on_exit !== undefined)
    problems.push('store.forgets_on_exit: only for format none (a store file outlives the process); remove it');
  return problems;
}

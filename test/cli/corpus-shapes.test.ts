/**
 * `setup.memories_from` over a corpus in other projects' shapes (several memories per file, one
 * per `##` section or list item; comma-separated tags; unknown front-matter keys), generated here:
 * `validate` accepts it, a run seeds every memory through server-memory and a rank check finds a
 * section's memory by its derived ref; a bad shape is refused at load time (exit 3).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memeval } from '../helpers.ts';
import { runInline, scenario, tempDir, timeLimit, writeJson } from '../kit.ts';

const ENV = { NO_COLOR: '1', FORCE_COLOR: '0', MEMEVAL_CACHE_DIR: process.env.MEMEVAL_CACHE_DIR ?? '' };

function corpus(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'database.md'),
    [
      '---',
      'subject: database',
      'category: decision',
      'tags: database, postgres',
      'reviewed_by: dba-team',
      '---',
      '# Database notes',
      '',
      '## Engine',
      'The primary database is PostgreSQL 16.',
      '',
      '## Pooling',
      'Connections go through pgbouncer with a pool size of 20.',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'tooling.md'),
    '---\nid: tooling\nsubject: tooling\n---\n- The repository uses pnpm workspaces.\n- Lint runs with eslint 9 flat config.\n',
  );
}

test(
  'a corpus with several memories per file, comma-separated tags and unknown keys is seeded and ranked by its derived refs',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    corpus(join(dir, 'corpus'));
    const sc = join(dir, 'scenarios');
    mkdirSync(sc);
    writeJson(
      join(sc, 'shapes.json5'),
      scenario('shapes', {
        setup: { memories_from: '../corpus' },
        deterministic: { well_behaved: [], violation: null },
        assertions: [
          { kind: 'count', name: 'four memories seeded', phase: 'both', op: 'eq', value: 4 },
          {
            kind: 'rank',
            name: 'pool size found',
            phase: 'both',
            query: 'pgbouncer',
            memory: '$ref:database-pooling',
            top_k: 3,
          },
          { kind: 'rank', name: 'pnpm found', phase: 'both', query: 'pnpm', memory: '$ref:tooling-1', top_k: 3 },
        ],
      }),
    );
    const v = await memeval(['validate', join(sc, 'shapes.json5')], { env: ENV });
    assert.equal(v.exitCode, 0, `${v.stdout}\n${v.stderr}`);
    const r = await runInline(t, { scenarios: sc, targets: ['server-memory'] });
    assert.equal(r.exitCode, 0, r.output);
    const cell = r.cell('shapes', 'well-behaved');
    assert.equal(cell.verdict, 'pass');
    assert.deepEqual(
      cell.steps.filter((s) => s.stage === 'setup').map((s) => s.note),
      ['database-engine', 'database-pooling', 'tooling-1', 'tooling-2'],
    );

    // a section without text is refused before anything runs
    writeFileSync(join(dir, 'corpus', 'empty.md'), '---\nid: empty\n---\n## Nothing here\n\n## Also nothing\n');
    const bad = await memeval(['validate', join(sc, 'shapes.json5')], { env: ENV });
    assert.equal(bad.exitCode, 3, `${bad.stdout}\n${bad.stderr}`);
    assert.match(String(bad.stderr) + String(bad.stdout), /empty\.md: section "## Nothing here" has no text/);
  },
);

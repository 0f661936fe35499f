import type { Assertion } from '../../scenario/schema.js';
import { describeSightings, findEverywhere, type StoreScanned } from '../store-scan.js';
import type { JudgeContext } from '../context.js';
import { decided, judgment, type Judgment } from '../judgment.js';
import { FixtureScan, type FilesResult } from '../scan.js';

type Absent = Extract<Assertion, { kind: 'absent' }>;

const kb = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;

/**
 * The store (view, every table column, raw bytes), then every other file the fixture holds,
 * each in the encodings stores use. Found anywhere: fail, named. Found nowhere but some file
 * could not be read: error, naming it (a file nobody read is no evidence of absence). The
 * judgment's `scanned` field records what was read.
 */
export function judgeAbsent(a: Absent, ctx: JudgeContext): Judgment {
  const q = { text: a.text, caseSensitive: a.case_sensitive };
  const store: StoreScanned = { columns: 0, files: [], bytes: 0, encodings: [], unscanned: [] };
  const found = findEverywhere(ctx.evidence, a.text, a.case_sensitive, store);
  const scan = ctx.fileScan ?? (ctx.files ? new FixtureScan(ctx.files) : undefined);
  const files: FilesResult | undefined = scan?.find(q);
  const inFiles = (files?.sightings ?? []).map(
    (s) => `fixture file ${s.label}${s.encodings.some((e) => e !== 'utf-8') ? ` (${s.encodings.join(', ')})` : ''}`,
  );
  const unscanned = [...store.unscanned, ...(files?.unscanned ?? [])];
  const scanned = {
    store: { view: 'memories', columns: store.columns, files: store.files, bytes: store.bytes },
    fixture: files ? { files: files.files, bytes: files.bytes, left_out: scan!.leftOut } : null,
    encodings: store.encodings,
    unscanned,
  };
  const checked =
    `checked the memories view, ${store.columns} store table column(s), raw bytes of ${store.files.length} store file(s) (${kb(store.bytes)})` +
    (files
      ? `, ${files.files} fixture file(s) (${kb(files.bytes)})${scan!.leftOut.length ? `, leaving out ${scan!.leftOut.join('; ')}` : ''}`
      : ', no fixture file') +
    `; as ${store.encodings.join(', ')}`;
  const where = [...(found.length ? [describeSightings(found)] : []), ...inFiles].join('; ');
  const j = where
    ? decided(a, false, {
        actual: `found in ${where}`,
        expected: `"${a.text}" nowhere`,
        detail: checked,
        observed: `found in ${where}`,
      })
    : unscanned.length
      ? judgment(
          a,
          'error',
          `not found in what could be read; not read: ${unscanned.map((u) => `${u.label} (${u.why})`).join('; ')}`,
          `"${a.text}" nowhere`,
          checked,
        )
      : decided(a, true, { actual: 'nowhere', expected: `"${a.text}" nowhere`, detail: checked, observed: checked });
  return { ...j, scanned };
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellResultSchema, ERROR_EXITS, EXIT } from '../../../src/core/results.ts';
import { InputError, Interrupted, MemevalError, RunWriteError } from '../../../src/util/errors.ts';
import { TemplateError } from '../../../src/util/template.ts';
import { RegexTimeout } from '../../../src/util/bounded-regex.ts';
import { CostGateError } from '../../../src/agent/cost-gate.ts';
import { NotInstalledError } from '../../../src/targets/resolve-bin.ts';
import { InstallError } from '../../../src/targets/install.ts';
import { SetupError } from '../../../src/cell/cell.ts';
import { SubjectUnavailable } from '../../../src/judge/llm/subject.ts';
import { ScanError } from '../../../src/judge/scan.ts';
import { EvidenceError } from '../../../src/evidence/open.ts';
import { TargetError } from '../../../src/mcp/session.ts';
import { OversizeMessage } from '../../../src/mcp/framing.ts';
import { NothingToRerun } from '../../../src/app/last-failed.ts';
import { JsonlError } from '../../../src/util/jsonl.ts';
import { CallsLogError } from '../../../src/mcp/calls-log.ts';

test('every error memeval raises on purpose has a code, and the exit the README gives it', () => {
  const errors: [MemevalError, string, number][] = [
    [new InputError('bad flag'), 'INPUT', EXIT.invalid],
    [new NotInstalledError('not installed'), 'NOT_INSTALLED', EXIT.invalid],
    [new InstallError('npm failed'), 'INSTALL', EXIT.failed],
    [new RunWriteError('/runs/x', Object.assign(new Error('no space'), { code: 'ENOSPC' })), 'RUN_WRITE', EXIT.failed],
    [new Interrupted(), 'INTERRUPTED', EXIT.interrupted],
    [new NothingToRerun('r'), 'NOTHING_TO_RERUN', EXIT.ok],
    [new CostGateError('no gate'), 'COST_GATE', EXIT.blocked],
    [
      new TargetError('exit', 'save: server exited with code 3', '', { code: 3, signal: null }),
      'TARGET_EXIT',
      EXIT.failed,
    ],
    [new TargetError('timeout', 'save: timed out', ''), 'TARGET_TIMEOUT', EXIT.failed],
    [new TargetError('protocol', 'save: bad answer', ''), 'TARGET_PROTOCOL', EXIT.failed],
    [new OversizeMessage(1024), 'OVERSIZE_MESSAGE', EXIT.failed],
    [new SetupError('store missing'), 'SETUP', EXIT.failed],
    [new EvidenceError('no evidence DB'), 'EVIDENCE', EXIT.failed],
    [new JsonlError('a.jsonl:2: not JSON'), 'EVIDENCE', EXIT.failed],
    [new CallsLogError('calls.jsonl ends in a torn line'), 'EVIDENCE', EXIT.failed],
    [new ScanError('cannot open'), 'SCAN', EXIT.failed],
    [new SubjectUnavailable('no recall'), 'SUBJECT_UNAVAILABLE', EXIT.failed],
    [new TemplateError('no value'), 'TEMPLATE', EXIT.failed],
    [new RegexTimeout('slow'), 'REGEX_TIMEOUT', EXIT.failed],
  ];
  for (const [e, code, exit] of errors) {
    assert.ok(e instanceof MemevalError && e instanceof Error, e.name);
    assert.equal(e.code, code, e.name);
    assert.equal(e.exit, exit, e.name);
    assert.equal(e.exit, ERROR_EXITS[e.code]);
    assert.equal(e.name, e.constructor.name, 'a stack names the class');
  }
  assert.deepEqual(
    new Set(errors.map(([, c]) => c)),
    new Set(Object.keys(ERROR_EXITS)),
    'every code is raised by some class',
  );
  // today's exits of the three errors main() mapped by class
  assert.equal(new InputError('x').exit, 3);
  assert.equal(new RunWriteError('/r', new Error('x')).exit, 1);
  assert.equal(new InstallError('x').exit, 1);
});

test('an error that wraps another keeps it as cause', () => {
  const cause = Object.assign(new Error('no space left'), { code: 'ENOSPC' });
  const e = new RunWriteError('/runs/x', cause);
  assert.equal(e.cause, cause);
  assert.match(e.message, /ENOSPC/);
  assert.equal(new ScanError('cannot open (EACCES)', { cause }).cause, cause);
});

test('a cell result keeps a known error code and refuses an unknown one', () => {
  const cell = {
    cell_id: 's/t/well-behaved',
    scenario: 's',
    target: 't',
    phase: 'well-behaved',
    driver: 'replay',
    verdict: 'error',
    reason: 'server did not start',
    fails_run: true,
    steps: [],
    assertions: [],
    fixture: 'removed',
    cell_dir: 'cells/x',
    warnings: [],
    duration_ms: 1,
  };
  assert.equal(cellResultSchema.parse({ ...cell, error_code: 'TARGET_EXIT' }).error_code, 'TARGET_EXIT');
  assert.equal(cellResultSchema.safeParse({ ...cell, error_code: 'SOMETHING' }).success, false);
  assert.equal(cellResultSchema.parse(cell).error_code, undefined, 'a report written before error codes still reads');
});

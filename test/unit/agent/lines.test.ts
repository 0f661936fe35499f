import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonLines } from '../../../src/agent/adapters/lines.js';

test('yields each JSON object line, CRLF and surrounding blanks tolerated', () => {
  assert.deepEqual(
    [...jsonLines('{"a":1}\r\n  {"b":2}  \n\n{"c":{"d":[1]}}')],
    [{ a: 1 }, { b: 2 }, { c: { d: [1] } }],
  );
});

test('skips banners, warnings, non-object JSON and torn lines instead of throwing', () => {
  const stdout = [
    'YOLO mode is enabled.',
    '[1,2]',
    '"text"',
    'null',
    '{"type":"result"',
    '{"ok":true} trailing',
    '{"type":"init"}',
    '{"type":"res',
  ].join('\n');
  assert.deepEqual([...jsonLines(stdout)], [{ type: 'init' }]);
});

test('nothing at all yields nothing', () => {
  assert.deepEqual([...jsonLines('')], []);
  assert.deepEqual([...jsonLines('\n\n')], []);
});

test('a JSON object split over two lines is not glued back together', () => {
  assert.deepEqual([...jsonLines('{"type":\n"result"}')], []);
});

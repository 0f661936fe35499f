/**
 * Attack: rank finds a memory in the recall items by its captured id as a substring of the item's
 * text (ids of 6+ characters). Items that are JSON objects carry their ids, and a server numbering
 * ids `note-1`, `note-2`, … `note-12` puts "note-1" inside the item of note-12: `rank memory
 * $ref:first top_k 1` passes when note-12 ranks first and note-1 is not among the results at all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { positionOf } from '../../../src/judge/kinds/rank.ts';

test('an id that is a prefix of another item’s id does not place the memory there', () => {
  const items = [
    { text: JSON.stringify({ id: 'note-12', text: 'User moved the staging cluster to Frankfurt' }) },
    { text: JSON.stringify({ id: 'note-7', text: 'Team lunch is on Fridays' }) },
  ];
  const pos = positionOf(items, { id: 'note-1', content: 'User prefers pnpm over npm for every repo' });
  assert.equal(pos, -1, `note-1 was placed at result ${pos + 1}, the item of note-12`);
});

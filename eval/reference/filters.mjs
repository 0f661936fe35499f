// What the reference server refuses to store, and why: output of one run, session chatter, a
// musing filed as a preference, a fact the workspace's own files already state. Each is a
// refusal (a tool error naming the reason), never a silent drop: the agent learns the write
// did not happen. The patterns are narrow on purpose; a durable fact that only looks like one
// of these would be lost, which is worse than a noisy store.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const NOISE = [
  [/\b\d+ (?:passing|failing|passed|failed|pending|skipped)\b/i, 'a test run tally is true for one run only'],
  [/\bcompiled (?:successfully|with \d+ (?:warnings?|errors?))/i, "one build's output is true for one run only"],
  [/\b(?:in|took) \d+(?:\.\d+)? ?(?:ms|s|secs?|seconds)\b|\(\d+(?:\.\d+)?m?s\)/i, 'a timing of one run'],
  [/\b\w*(?:Error|Exception): .*\bat \S+ \([^)]*:\d+:\d+\)/, 'a stack trace is the state of one run'],
  [/\b\d{1,2}:\d{2}:\d{2}\b/, 'a clock time to the second belongs to one run'],
];

const CHATTER = [
  [/^(?:currently |now |still )?(?:working on|looking into|debugging)\b/i, 'task status is true for minutes'],
  [/\b(?:halfway|half way|almost) (?:done|through|finished)\b/i, 'task progress is true for minutes'],
  [/\b(?:said|says) (?:thanks|thank you|hi|hello|goodbye)\b|\bthanks for the help\b/i, 'a pleasantry is no fact'],
];

const TENTATIVE =
  /\b(?:maybe|perhaps|someday|some day|one day|who knows|thinking (?:about|of) (?:switching|trying|moving))\b/i;

/** Why this write is transient (run noise or chatter), or undefined. */
export function transient(text, category) {
  if (String(category ?? '').toLowerCase() === 'status') return 'a status update is true for minutes';
  for (const [re, why] of [...NOISE, ...CHATTER]) if (re.test(text)) return why;
  return undefined;
}

/** Why this write is a musing rather than a settled fact, or undefined. */
export function tentative(text) {
  const m = TENTATIVE.exec(text);
  return m ? `"${m[0]}" is a musing, not a settled preference` : undefined;
}

// what a workspace says is compared without markdown marks, case or spacing
const plain = (s) =>
  s
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/[\s.]+$/, '')
    .trim();
const DOC = /\.(?:md|markdown|txt|rst)$/i;
const MAX_DOC_BYTES = 256 * 1024;
const MIN_CHARS = 20;

/**
 * The workspace file (a document at the top of the project, the server's working directory)
 * that already states this text, or undefined: a copy in memory goes stale when the file changes.
 */
export function inWorkspace(text, dir = process.cwd()) {
  const needle = plain(text);
  if (needle.length < MIN_CHARS || !existsSync(dir)) return undefined;
  for (const name of readdirSync(dir)
    .filter((f) => DOC.test(f))
    .sort()) {
    const file = join(dir, name);
    try {
      if (!statSync(file).isFile() || statSync(file).size > MAX_DOC_BYTES) continue;
      if (plain(readFileSync(file, 'utf8')).includes(needle)) return name;
    } catch {
      /* a file that cannot be read says nothing */
    }
  }
  return undefined;
}

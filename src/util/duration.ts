/** The units a duration may use, in milliseconds: "30d", "1h30m", "90s", "2w", "250ms". */
const UNITS: Record<string, number> = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** What a duration looks like: one or more <integer><unit> parts, largest unit first or not. */
export const DURATION_PATTERN = /^(?:\d+(?:ms|w|d|h|m|s))+$/;

/** A duration string in milliseconds; undefined when it is not one, or is zero. */
export function durationMs(text: string): number | undefined {
  if (!DURATION_PATTERN.test(text)) return undefined;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|w|d|h|m|s)/g)) ms += Number(n) * UNITS[unit!]!;
  return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
}

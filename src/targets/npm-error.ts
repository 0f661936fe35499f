/**
 * The package an `npm install` failure names as refused by the registry: a 404 (no such
 * package, or no access to it) or ETARGET (no version matching the range). npm names the
 * package in its output; the failing one is often a dependency, not the package installed,
 * and the hint must be about the one that failed.
 */
export interface RefusedPackage {
  code: 'E404' | 'ETARGET';
  /** the package name, scoped names included */
  name: string;
  /** name@range as npm printed it, when it did */
  spec?: string;
}

/** npm 7+ prints `npm error …` (npm 10+) or `npm ERR! …` before each line. */
const PREFIX = String.raw`^npm (?:error|ERR!) `;
const CODE = new RegExp(`${PREFIX}code (E404|ETARGET)\\s*$`, 'm');
/** `'@scope/name@^1.0.0' is not in this registry.` (npm ≤10) or `The requested resource '…' could not be found` (npm 11) */
const QUOTED_404 = new RegExp(`${PREFIX}404 .*'([^']+)'`, 'm');
/** `404 Not Found - GET https://registry.npmjs.org/@scope%2fname` */
const GET_404 = new RegExp(`${PREFIX}404 Not Found - GET (\\S+)`, 'm');
/** `notarget No matching version found for name@^9.0.0.` */
const NOTARGET = new RegExp(`${PREFIX}notarget No matching version found for (\\S+?)\\.?\\s*$`, 'm');

/** "name@range" → name, scoped names included. */
function nameOf(spec: string): string {
  const at = spec.lastIndexOf('@');
  return at > 0 ? spec.slice(0, at) : spec;
}

export function refusedPackage(output: string): RefusedPackage | undefined {
  const code = CODE.exec(output)?.[1] as RefusedPackage['code'] | undefined;
  if (code === 'ETARGET') {
    const spec = NOTARGET.exec(output)?.[1];
    return spec ? { code, name: nameOf(spec), spec } : undefined;
  }
  if (code !== 'E404') return undefined;
  const spec = QUOTED_404.exec(output)?.[1];
  if (spec) return { code, name: nameOf(spec), spec };
  const url = GET_404.exec(output)?.[1];
  if (!url) return undefined;
  try {
    // a scoped name is one segment (`@scope%2fname`) or, unencoded, two
    const parts = new URL(url).pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const last = parts.pop();
    const scope = parts.pop();
    if (!last) return undefined;
    return { code, name: scope?.startsWith('@') && !last.startsWith('@') ? `${scope}/${last}` : last };
  } catch {
    return undefined;
  }
}

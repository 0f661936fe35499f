/** npm versions in npm's order: numeric major.minor.patch, a prerelease before its release. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => {
    const [core, pre] = v.split(/-(.*)/s);
    return { nums: core.split('.').map(Number), pre };
  };
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return (x.nums[i] || 0) - (y.nums[i] || 0);
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

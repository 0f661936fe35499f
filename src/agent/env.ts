import { isolatedEnv, type Fixture } from '../fixture/fixture.js';

/** The scrubbed fixture environment plus, for real models only, the named API-key variables. */
export function agentEnv(
  f: Fixture,
  scripted: boolean,
  keyEnv: string[],
  extra: Record<string, string>,
): Record<string, string> {
  const keys: Record<string, string> = {};
  if (!scripted) for (const k of keyEnv) if (process.env[k]) keys[k] = process.env[k]!;
  return isolatedEnv(f, { ...keys, ...extra });
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { openBridge } from '../fixture/bridge.js';
import { writeDeclFiles } from '../fixture/decl-files.js';
import { createFixture, disposeFixture, gitInit, writeSetupFiles, type Fixture } from '../fixture/fixture.js';
import { netnsPrefix, type LoopbackBridge } from '../fixture/sandbox.js';
import { stampFiles, type Stamps } from '../judge/fixture-files.js';
import type { JudgedAs } from '../judge/verdict.js';
import { startProviderForCell, type ProviderHandle } from '../model/provider/cell.js';
import { ensureCachedModel, writeFixtureModel } from '../model/provider/fixture-model.js';
import type { Scenario } from '../scenario/schema.js';
import { targetPrefix, type ResolvedBin } from '../targets/resolve-bin.js';
import type { TargetDecl } from '../targets/schema.js';
import { fillString } from '../util/template.js';
import type { Teardown } from './teardown.js';
import type { CellTrail } from './trail.js';
import { messageOf } from '../util/errors.js';

/** Make the cell dir and its empty calls log; why not, when the disk refuses (full, read-only). */
export function openCellDir(cellDir: string, callsLog: string): string | undefined {
  try {
    mkdirSync(cellDir, { recursive: true });
    writeFileSync(callsLog, '');
    return undefined;
  } catch (e) {
    return `cannot write the cell dir ${cellDir}: ${(e as NodeJS.ErrnoException).code ?? messageOf(e)}`;
  }
}

export interface PreparedFixture {
  fixture: Fixture;
  /** loopback services of the host (the model provider) the target reaches from its namespace */
  bridges: LoopbackBridge[];
  provider?: ProviderHandle;
  /** where the declaration says the store is */
  storePath: string;
  /** the store file (none: the store is not on disk) */
  storeFile?: string;
  /** what memeval itself wrote into the fixture: `absent` leaves these out while nothing changes them */
  memevalWrote: Stamps;
}

/**
 * The fixture a target starts in: its dirs, the model provider a target is pointed at through
 * {{provider}} (up before the target, down after the probe), the declaration's files, the
 * seeded embedding model, git, the scenario's setup files. Each resource's teardown is
 * registered as it is made.
 */
export async function prepareFixture(
  o: {
    scenario: Scenario;
    decl: TargetDecl;
    bin: ResolvedBin;
    cellDir: string;
    keep: boolean;
    label: string;
    judgedAs: JudgedAs;
  },
  teardown: Teardown,
  trail: CellTrail,
): Promise<PreparedFixture> {
  const { scenario, decl } = o;
  const fixture = await createFixture(o.label, o.keep);
  teardown.add('remove fixture', async () => {
    trail.fixture = await disposeFixture(fixture, o.keep);
  });
  const bridges: LoopbackBridge[] = [];
  const provider = await startProviderForCell({ scenario, decl, cellDir: o.cellDir, phase: o.judgedAs });
  if (provider) {
    teardown.add('stop model provider', provider.stop);
    Object.assign(fixture.vars, provider.vars);
    // the provider listens on the host's loopback; a target in its own network namespace
    // reaches it through a bridge, at the same address
    if (netnsPrefix()) {
      const bridge = await openBridge(Number(new URL(provider.vars.provider).port));
      teardown.add('close provider bridge', bridge.close);
      bridges.push(bridge);
    }
  }
  await writeDeclFiles(fixture, decl.fixture.files, { ...fixture.vars, package_dir: o.bin.packageDir });
  await writeFixtureModel({ scenario, decl, vars: fixture.vars, root: fixture.root });
  if (decl.package) await ensureCachedModel(decl, targetPrefix(decl.package, decl.name));
  if (decl.fixture.git_init) await gitInit(fixture, decl.fixture.git_remote);
  await writeSetupFiles(fixture, scenario.setup.files);
  const storePath = fillString(decl.store.path ?? '', fixture.vars);
  return {
    fixture,
    bridges,
    provider,
    storePath,
    storeFile: decl.store.format !== 'none' ? storePath : undefined,
    memevalWrote: stampFiles(fixture.root),
  };
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT, scenario, tempDir, writeJson, timeLimit } from '../helpers.js';

const NPM_ENV = {
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  NO_COLOR: '1',
};

test(
  'npm pack: the tarball installed into another project runs `npx memeval run` with its own scenarios and config; `memeval init` starts a project',
  { timeout: timeLimit(600_000) },
  async (t) => {
    const dir = tempDir(t, 'memeval-pack-');
    const pack = await execa('npm', ['pack', '--pack-destination', dir], { cwd: ROOT, env: NPM_ENV });
    const tgz = join(dir, String(pack.stdout).trim().split('\n').at(-1)!);
    assert.ok(existsSync(tgz), pack.stderr);

    const project = join(dir, 'project');
    mkdirSync(join(project, 'evals'), { recursive: true });
    writeJson(join(project, 'package.json'), {
      name: 'uses-memeval',
      version: '1.0.0',
      private: true,
      memeval: { scenarios: 'evals', targets: ['server-memory'], out: 'eval-runs', reporters: ['console', 'junit'] },
    });
    writeJson(join(project, 'evals', 'keeps-dark-mode.json'), scenario('keeps-dark-mode'));
    // --prefer-offline: the checkout's own install put the dependencies in the npm cache
    const install = await execa('npm', ['install', tgz, '--prefer-offline', '--ignore-scripts'], {
      cwd: project,
      env: NPM_ENV,
      reject: false,
    });
    assert.equal(install.exitCode, 0, install.stderr);
    // better-sqlite3's install script would compile for minutes (no prebuilt download here):
    // drop in the addon this checkout built for the same Node, as a prebuilt download would
    const addon = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    mkdirSync(join(project, addon, '..'), { recursive: true });
    copyFileSync(join(ROOT, addon), join(project, addon));

    const run = await execa('npx', ['--offline', 'memeval', 'run'], { cwd: project, reject: false, env: NPM_ENV });
    assert.equal(run.exitCode, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /1 scenario\(s\) × server-memory/);
    const [runId] = readdirSync(join(project, 'eval-runs'));
    const report = JSON.parse(readFileSync(join(project, 'eval-runs', runId, 'report.json'), 'utf8'));
    assert.deepEqual(report.scenarios, ['keeps-dark-mode']);
    assert.ok(existsSync(join(project, 'eval-runs', runId, 'junit.xml')), 'reporters from the config');

    // the recall suite ships with its corpus: `--scenarios recall` names the built-in suite
    const recall = await execa(
      'npx',
      [
        '--offline',
        'memeval',
        'run',
        '--scenarios',
        'recall',
        '--scenario',
        'recall-relevant',
        '--judge-model',
        'scripted',
      ],
      { cwd: project, reject: false, env: NPM_ENV },
    );
    // the corpus shipped and recall works through the package: the well-behaved cell passes (its
    // violation, the answer forgotten, meets an empty recall on server-memory: a rank over nothing is
    // error, not a catch, so the run may exit 1 for that cell alone)
    assert.ok([0, 1].includes(recall.exitCode ?? -1), `${recall.stdout}\n${recall.stderr}`);
    assert.match(recall.stdout, /1 scenario\(s\) × server-memory/);
    assert.match(recall.stdout, /✓ pass\s+recall-relevant \[server-memory\] well-behaved/);

    // judge calibrate reads memeval's own labelled cases when given no file
    const calibrate = await execa(
      'npx',
      ['--offline', 'memeval', 'judge', 'calibrate', '--judge-model', 'scripted', '--out', 'cal', '--json'],
      { cwd: project, reject: false, env: NPM_ENV },
    );
    assert.equal(calibrate.exitCode, 0, `${calibrate.stdout}\n${calibrate.stderr}`);
    assert.equal(JSON.parse(calibrate.stdout).overall.judgments, 81, calibrate.stdout);

    // init: a starter scenario with its $schema line and a config that then takes over
    const init = await execa('npx', ['--offline', 'memeval', 'init'], { cwd: project, reject: false, env: NPM_ENV });
    assert.equal(init.exitCode, 0, init.stderr);
    // memeval is a dependency of this project, so npx finds it
    assert.match(init.stdout, /^next: npx memeval run$/m);
    const starter = readFileSync(join(project, 'memeval', 'scenarios', 'remembers-package-manager.json5'), 'utf8');
    const ref = /\$schema: "([^"]+)"/.exec(starter)?.[1];
    assert.ok(ref, 'starter has a $schema line');
    const schema = JSON.parse(readFileSync(join(project, 'memeval', 'scenarios', ref), 'utf8'));
    assert.ok(schema.properties.assertions, 'the $schema points at the scenario JSON Schema');
    const again = await execa('npx', ['--offline', 'memeval', 'init'], { cwd: project, reject: false, env: NPM_ENV });
    assert.equal(again.exitCode, 3, 'init does not overwrite without --force');
    const second = await execa('npx', ['--offline', 'memeval', 'run'], { cwd: project, reject: false, env: NPM_ENV });
    assert.equal(second.exitCode, 0, `${second.stdout}\n${second.stderr}`);
    const [id2] = readdirSync(join(project, 'memeval', 'runs'));
    assert.deepEqual(JSON.parse(readFileSync(join(project, 'memeval', 'runs', id2, 'report.json'), 'utf8')).scenarios, [
      'remembers-package-manager',
    ]);

    // view and runs find the runs where the config puts them
    const view = await execa('npx', ['--offline', 'memeval', 'view'], { cwd: project, reject: false, env: NPM_ENV });
    assert.equal(view.exitCode, 0, view.stderr);
    assert.equal(String(view.stdout).trim(), join(project, 'memeval', 'runs', id2, 'report.html'));
    assert.ok(existsSync(join(project, 'memeval', 'runs', id2, 'report.html')));

    // a config with a typo is exit 3 naming file and field
    writeFileSync(join(project, 'memeval.config.json'), JSON.stringify({ scenario: 'evals' }));
    const bad = await execa('npx', ['--offline', 'memeval', 'run'], { cwd: project, reject: false, env: NPM_ENV });
    assert.equal(bad.exitCode, 3);
    assert.match(bad.stderr, /memeval\.config\.json/);
    assert.match(bad.stderr, /scenario/);
  },
);

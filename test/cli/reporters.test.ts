import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { faultyTargetWithout, scenarioDir } from '../faulty.js';
import { freshRun, memeval, mixedScenarios, tempDir, timeLimit } from '../helpers.js';

/**
 * The subset of the JUnit XSD that GitHub's and GitLab's test reporters read
 * (testsuites > testsuite > testcase with failure / error / skipped / system-out), and a testcase's
 * properties first, where pytest and Surefire put them (memeval's tags, taxonomy and stages).
 */
const JUNIT_XSD = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:complexType name="problem">
    <xs:simpleContent><xs:extension base="xs:string">
      <xs:attribute name="message" type="xs:string"/>
      <xs:attribute name="type" type="xs:string"/>
    </xs:extension></xs:simpleContent>
  </xs:complexType>
  <xs:element name="testsuites">
    <xs:complexType>
      <xs:sequence><xs:element ref="testsuite" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
      <xs:attribute name="name" type="xs:string"/>
      <xs:attribute name="tests" type="xs:nonNegativeInteger"/>
      <xs:attribute name="failures" type="xs:nonNegativeInteger"/>
      <xs:attribute name="errors" type="xs:nonNegativeInteger"/>
      <xs:attribute name="skipped" type="xs:nonNegativeInteger"/>
      <xs:attribute name="time" type="xs:decimal"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testsuite">
    <xs:complexType>
      <xs:sequence><xs:element ref="testcase" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="tests" type="xs:nonNegativeInteger" use="required"/>
      <xs:attribute name="failures" type="xs:nonNegativeInteger" use="required"/>
      <xs:attribute name="errors" type="xs:nonNegativeInteger" use="required"/>
      <xs:attribute name="skipped" type="xs:nonNegativeInteger"/>
      <xs:attribute name="time" type="xs:decimal"/>
      <xs:attribute name="timestamp" type="xs:dateTime"/>
    </xs:complexType>
  </xs:element>
  <xs:element name="testcase">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="properties" minOccurs="0">
          <xs:complexType><xs:sequence>
            <xs:element name="property" maxOccurs="unbounded">
              <xs:complexType>
                <xs:attribute name="name" type="xs:string" use="required"/>
                <xs:attribute name="value" type="xs:string" use="required"/>
              </xs:complexType>
            </xs:element>
          </xs:sequence></xs:complexType>
        </xs:element>
        <xs:choice minOccurs="0">
          <xs:element name="failure" type="problem"/>
          <xs:element name="error" type="problem"/>
          <xs:element name="skipped" type="problem"/>
        </xs:choice>
        <xs:element name="system-out" type="xs:string" minOccurs="0"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="classname" type="xs:string" use="required"/>
      <xs:attribute name="time" type="xs:decimal"/>
      <xs:attribute name="file" type="xs:string"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
`;

test(
  '--reporter junit,markdown,github on a real run: valid JUnit, summary, annotations at the scenario file; a crashing reporter loses nothing else',
  { timeout: timeLimit(180_000) },
  async (t) => {
    const scenarios = mixedScenarios(t);
    const dir = tempDir(t);
    // a summary path that is a directory makes the github reporter throw (EISDIR) after its annotations
    const badSummary = join(dir, 'summary-is-a-dir');
    mkdirSync(badSummary);
    const run = await freshRun(
      t,
      ['good-one', 'bad-one'],
      ['--scenarios', scenarios, '--reporter', 'console,github,junit,markdown'],
      { GITHUB_STEP_SUMMARY: badSummary },
    );
    assert.equal(run.exitCode, 1);
    assert.match(run.stderr, /reporter github failed: .*EISDIR/);
    assert.ok(existsSync(run.reportPath));

    // JUnit: validated against the XSD by libxml2 (compiled to WebAssembly: no system xmllint), then its content checked
    const junit = join(run.runDir, 'junit.xml');
    const xml = readFileSync(junit, 'utf8');
    const lint = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [JUNIT_XSD] });
    assert.ok(lint.valid, lint.rawOutput);
    // the validator has teeth: a testcase without its required name is refused
    const broken = await validateXML({
      xml: [{ fileName: 'broken.xml', contents: xml.replace(/<testcase name="[^"]*"/, '<testcase') }],
      schema: [JUNIT_XSD],
    });
    assert.equal(broken.valid, false, 'a testcase without a name must fail the XSD');
    assert.equal(xml.match(/<testcase /g)?.length, 4, 'one testcase per scenario × target × phase');
    assert.match(xml, /<testsuites name="memeval [^"]+" tests="4" failures="1" errors="0" skipped="0"/);
    assert.match(
      xml,
      /<testcase name="server-memory well-behaved" classname="memeval\.bad-one" time="[\d.]+" file="[^"]*bad-one\.json5">(?:<properties>(?:<property [^>]*\/>)+<\/properties>)?<failure message="assertion\(s\) failed: dark mode twice" type="fail">/,
    );
    assert.match(xml, /dark mode twice: actual 1, expected = 2/);

    const md = readFileSync(join(run.runDir, 'summary.md'), 'utf8');
    assert.match(md, /^## memeval ❌ 3 passed, 1 failed \(4 cells\)/);
    assert.match(md, /\| bad-one \| ❌ \*\*fail\*\* \/ detected \|/);
    assert.match(
      md,
      /- `bad-one\/server-memory\/well-behaved` \*\*fail\*\*: assertion\(s\) failed: dark mode twice \(dark mode twice: actual 1, expected = 2\)/,
    );

    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::error'));
    assert.equal(annotations.length, 1, run.stdout);
    assert.match(
      annotations[0],
      /^::error file=[^,]*bad-one\.json5,title=memeval fail%3A bad-one\/server-memory\/well-behaved::assertion\(s\) failed: dark mode twice/,
    );

    // with a writable summary file the github reporter appends the Markdown scoreboard
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const ok = await freshRun(t, ['good-one'], ['--scenarios', scenarios, '--reporter', 'github'], {
      GITHUB_STEP_SUMMARY: summary,
    });
    assert.equal(ok.exitCode, 0, ok.stderr);
    assert.match(readFileSync(summary, 'utf8'), /^# earlier step\n## memeval ✅ 2 passed, 0 failed \(2 cells\)/);
    assert.doesNotMatch(ok.stdout, /::error/);
  },
);

test(
  '--reporter json prints the report on stdout and the console on stderr; an unknown reporter is exit 3',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const run = await freshRun(t, ['cross-session-recall'], ['--reporter', 'json']);
    const report = JSON.parse(run.stdout);
    assert.equal(report.results.length, 2);
    assert.match(run.stderr, /report: /);
    const bad = await memeval(['run', '--reporter', 'junt', '--out', tempDir(t)]);
    assert.equal(bad.exitCode, 3);
    assert.match(bad.stderr, /unknown reporter "junt" \(did you mean "junit"\?\)/);
  },
);

test(
  'reporters on a run whose every cell is unsupported: no pass, unsupported apart, a JUnit error and an annotation saying nothing was checked',
  { timeout: timeLimit(120_000) },
  async (t) => {
    const dir = tempDir(t);
    const target = faultyTargetWithout(dir, 'no-remember', ['remember']);
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '');
    const out = join(dir, 'runs');
    const r = await memeval(
      [
        'run',
        '--scenarios',
        scenarioDir(dir, 2),
        '--target',
        target,
        '--out',
        out,
        '--reporter',
        'console,junit,markdown,github',
      ],
      {
        env: { NO_COLOR: '1', FORCE_COLOR: '0', GITHUB_STEP_SUMMARY: summary },
      },
    );
    assert.equal(r.exitCode, 1, String(r.stdout) + r.stderr);
    const runDir = join(out, readdirSync(out)[0]);
    const md = readFileSync(join(runDir, 'summary.md'), 'utf8');
    assert.match(md, /^## memeval ❌ 0 passed, 0 failed, 4 unsupported \(4 cells\)\n/);
    assert.match(md, /nothing was checked/);
    const xml = readFileSync(join(runDir, 'junit.xml'), 'utf8');
    const lint = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [JUNIT_XSD] });
    assert.ok(lint.valid, lint.rawOutput);
    assert.match(xml, /<testsuites name="memeval [^"]+" tests="5" failures="0" errors="1" skipped="4"/);
    assert.match(
      xml,
      /<testcase name="run" classname="memeval"[^>]*><error message="nothing was checked: none of the 4 cell\(s\) has a checked verdict \(4 unsupported\)" type="nothing-checked"/,
    );
    assert.match(
      String(r.stdout),
      /^::error title=memeval%3A nothing was checked::nothing was checked: none of the 4 cell\(s\) has a checked verdict \(4 unsupported\)$/m,
    );
    assert.match(readFileSync(summary, 'utf8'), /0 passed, 0 failed, 4 unsupported/);
  },
);

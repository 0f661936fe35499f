/** memeval's programmatic API: what the CLI calls, and what tests and other tools can call. */
export { run, type RunHooks, type RunRequest, type RunResponse } from './app/api.js';
export { runConfigSchema, RUN_DEFAULTS, type RunConfig, type RunConfigInput } from './core/config.js';
export {
  executeRun,
  runDeterministic,
  runRealModel,
  type AgentRunOptions,
  type RunAgent,
  type CommonRunOptions,
  type RunExecution,
  type RunResult,
} from './app/run.js';
export { runFuzz, type FuzzConfig, type FuzzResult } from './app/fuzz.js';
export { selftest, HOSTILE_RULES, type SelftestRequest, type SelftestReport, type FalsePass } from './app/selftest.js';
export {
  checkAgainstTargets,
  loadScenarioDir,
  resolveTargets,
  scenarioFilesIn,
  selectScenarios,
  validatePaths,
  type ValidateResult,
} from './app/load.js';
export { runCell, type CellOptions } from './cell/cell.js';
export { planRun, type CellSpec, type PlanLayer, type RunTarget } from './cell/plan.js';
export { replayDriver } from './drive/replay.js';
export { agentDriver } from './drive/agent.js';
export type { Driver, CellEnv, DriveOutcome } from './drive/types.js';
export { loadScenario, loadScenarios, type LoadedScenario } from './scenario/loader.js';
export { loadTarget, loadTargetFile, loadAllTargets, type LoadedTarget } from './targets/loader.js';
export { openEvidence, type Evidence } from './evidence/open.js';
export { readRecallProbes, type RecallProbeRecord } from './evidence/recall-probes.js';
export { readReport, ReportError } from './report/reader.js';
export { JUDGES, runJudges, checkAssertion } from './judge/registry.js';
export * from './core/results.js';
// the commands besides run, each as the CLI calls it
export { rejudge, type RejudgeRequest, type RejudgeResponse } from './app/rejudge.js';
export { calibrate, type CalibrateRequest, type CalibrateResponse } from './app/calibrate.js';
export type { CalibrationResult, CaseJudgment } from './judge/calibrate/run.js';
export type { JudgeRequest } from './app/judge-config.js';
export { merge, type MergeRequest, type MergeResponse } from './app/merge.js';
export type { FailOn, GateResult } from './report/gate.js';
export { diffRuns } from './app/diff.js';
export type { ReportDiff } from './report/diff.js';
export { writeRunPage, type ViewRequest } from './app/view.js';
export { listRuns, pruneRuns, type RunEntry } from './report/runs.js';
export { openCellEvidence, queryCell, queryEvidence, type CellRef } from './app/sql.js';
export { initProject, type InitFiles } from './app/init.js';
export { jsonSchemaFor } from './app/schema.js';
export { targetStatus, installTargetsNamed, type TargetStatus } from './app/targets.js';
export { checkTarget, type CheckPoint, type TargetCheckOptions, type TargetCheckReport } from './app/target-check.js';
export { agentStatus, installAgentsNamed, type AgentStatus } from './app/agents.js';
// the mock kit: memeval's deterministic model provider, for other projects' tests
export { ProviderServer } from './model/provider/server.js';
export { Embedder, cosine } from './model/provider/embeddings.js';
export { chooseAnswer } from './model/provider/answers.js';
export {
  mockProviderConfig,
  startMockProvider,
  UnservedFaultsError,
  type MockFaultRule,
  type MockProvider,
  type MockProviderOptions,
} from './model/provider/kit.js';
export type {
  AnswerRule,
  FaultRule,
  FaultStage,
  ProviderCall,
  ProviderConfig,
  ProviderFaultKind,
  ProviderStage,
  Similarity,
} from './model/provider/types.js';
// the main types of docs/architecture.md
export type { Scenario, Assertion, Step } from './scenario/schema.js';
export type { TargetDecl } from './targets/schema.js';

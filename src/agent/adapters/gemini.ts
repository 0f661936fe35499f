import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentEnv } from '../env.js';
import { emptyTurn, type AgentAdapter } from '../types.js';
import { jsonLines } from './lines.js';

const PREFIX = 'mcp_memory_';
// the built-in tools that write files or run commands: the agent's own way to keep memory
const FILE_TOOLS = ['write_file', 'replace', 'run_shell_command', 'save_memory'];
// a real model name keeps the CLI on its ordinary per-model config; the scripted server ignores it
const SCRIPTED_MODEL = 'gemini-2.5-flash';

/** Gemini CLI, headless (`gemini -p -o stream-json`), over the Gemini API. */
export const gemini: AgentAdapter = {
  name: 'gemini',
  npm: '@google/gemini-cli',
  version: '0.61.0',
  bin: 'gemini',
  keyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  // off by default in this release; pinned off so a newer default cannot change the store under test
  // autoMemory alone is not enough: the system prompt still tells the model to keep "remember"
  // requests in GEMINI.md/MEMORY.md with its file tools, which yolo mode approves
  memoryOff: { 'experimental.autoMemory': 'false', 'tools.exclude': FILE_TOOLS.join(',') },
  // GEMINI.md is read from the working dir up to its git root (else the working dir only) and
  // from ~/.gemini, which is inside the fixture
  instructionsOff: { 'context discovery': 'bounded by the fixture (HOME inside it; no git root above the project)' },

  async prepare(ctx) {
    const dir = join(ctx.profileDir, 'gemini-home', '.gemini');
    await mkdir(dir, { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: {
        enableAutoUpdate: false,
        enableAutoUpdateNotification: false,
        // default retries turn a refused connection into minutes of backoff
        ...(ctx.scripted ? { maxAttempts: 1, retryFetchErrors: false } : {}),
      },
      // counts model calls per process, like the other agents' max turns
      model: { maxSessionTurns: ctx.maxTurns },
      experimental: { autoMemory: false },
      tools: { exclude: FILE_TOOLS },
      mcpServers: { memory: { command: ctx.mcp.command, args: ctx.mcp.args, env: ctx.mcp.env, trust: true } },
    };
    await writeFile(join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
  },

  invoke(ctx, prompt, conversation) {
    const args = [
      '-p',
      prompt,
      '-o',
      'stream-json',
      '--approval-mode',
      'yolo',
      // without a pinned model ("auto") each prompt first makes a router-classifier call
      '-m',
      ctx.scripted ? SCRIPTED_MODEL : ctx.model,
      // --resume documents "latest" or an index, but accepts the full session UUID
      ...(conversation.first ? ['--session-id', conversation.id] : ['--resume', conversation.id]),
    ];
    const env = agentEnv(ctx.fixture, ctx.scripted, this.keyEnv, {
      GEMINI_CLI_HOME: join(ctx.profileDir, 'gemini-home'),
      // the host root: the SDK appends /v1beta/models/...
      ...(ctx.baseUrl ? { GOOGLE_GEMINI_BASE_URL: ctx.baseUrl.replace(/\/$/, '') } : {}),
      ...(ctx.scripted ? { GEMINI_API_KEY: 'scripted-key' } : {}),
      // the self-relaunch (bigger heap) costs 1-4 s per prompt
      GEMINI_CLI_NO_RELAUNCH: 'true',
    });
    // sessions are stored per project directory: resume must run from the same one
    return { args, env, cwd: ctx.fixture.project };
  },

  parse(stdout, exitCode) {
    const out = emptyTurn();
    let result: Record<string, any> | undefined;
    const pending = new Map<string, string>();
    let text = '';
    for (const ev of jsonLines(stdout)) {
      if (ev.type === 'init') out.conversationId = ev.session_id;
      if (ev.type === 'message' && ev.role === 'assistant') text += String(ev.content ?? '');
      if (ev.type === 'tool_use') {
        // only the text after the last tool call is the answer
        text = '';
        if (String(ev.tool_name).startsWith(PREFIX)) pending.set(ev.tool_id, String(ev.tool_name).slice(PREFIX.length));
      }
      if (ev.type === 'tool_result' && pending.has(ev.tool_id))
        out.toolCalls.push({ tool: pending.get(ev.tool_id)!, ok: ev.status === 'success' });
      if (ev.type === 'error') out.invalid.push(`agent error: ${String(ev.message ?? '').slice(0, 300)}`);
      if (ev.type === 'result') result = ev;
    }
    out.finalText = text;
    if (!result) {
      out.invalid.push(`no result event (exit ${exitCode})`);
      return out;
    }
    // per invocation, not cumulative over the session
    const s = result.stats ?? {};
    out.usage.input = s.input_tokens ?? 0;
    out.usage.output = s.output_tokens ?? 0;
    out.usage.cache_read = s.cached ?? 0;
    // exit codes on API failures are the HTTP status & 0xff (400 -> 144); the result says why
    if (result.status !== 'success')
      out.invalid.push(`agent error: ${String(result.error?.message ?? result.status).slice(0, 300)}`);
    return out;
  },
};

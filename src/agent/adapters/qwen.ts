import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentEnv } from '../env.js';
import { usageSince, type AgentAdapter } from '../types.js';
import { readStreamJson } from './stream-json.js';

const PREFIX = 'mcp__memory__';
// save_memory writes QWEN.md; the others write files or run commands, all approved by --yolo
const FILE_TOOLS = ['save_memory', 'write_file', 'edit', 'run_shell_command'];

/** Qwen Code, headless (`qwen -p -o stream-json`), over OpenAI Chat Completions. */
export const qwen: AgentAdapter = {
  name: 'qwen',
  npm: '@qwen-code/qwen-code',
  // the newest release whose engines accept Node 20 (0.21 and later need Node 22)
  version: '0.15.10',
  bin: 'qwen',
  keyEnv: ['OPENAI_API_KEY'],
  // on by default: after each turn an extra model call extracts "memories" into its own files
  memoryOff: {
    'memory.enableManagedAutoMemory': 'false',
    'memory.enableManagedAutoDream': 'false',
    'tools.exclude': FILE_TOOLS.join(','),
  },
  // QWEN.md/AGENTS.md are read from the working dir up to its git root, else up to HOME's parent (the fixture root)
  instructionsOff: { 'context discovery': 'bounded by the fixture (HOME inside it; no git root above the project)' },

  async prepare(ctx) {
    const home = join(ctx.profileDir, 'qwen-home');
    await mkdir(home, { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'openai' } },
      // SDK retries on 5xx multiply the 7 outer attempts Qwen makes regardless (minutes per failed turn)
      model: { name: ctx.model, ...(ctx.scripted ? { generationConfig: { maxRetries: 0 } } : {}) },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
      // 0.15 defers MCP tools behind tool_search; without it they are all offered up front
      tools: { exclude: ['tool_search', ...FILE_TOOLS] },
      mcpServers: { memory: { command: ctx.mcp.command, args: ctx.mcp.args, env: ctx.mcp.env, trust: true } },
    };
    await writeFile(join(home, 'settings.json'), JSON.stringify(settings, null, 2));
  },

  invoke(ctx, prompt, conversation) {
    const args = [
      '-p',
      prompt,
      '-o',
      'stream-json',
      '--yolo',
      '--max-session-turns',
      String(ctx.maxTurns),
      ...(conversation.first ? ['--session-id', conversation.id] : ['--resume', conversation.id]),
    ];
    const env = agentEnv(ctx.fixture, ctx.scripted, this.keyEnv, {
      QWEN_HOME: join(ctx.profileDir, 'qwen-home'),
      OPENAI_MODEL: ctx.model,
      ...(ctx.baseUrl ? { OPENAI_BASE_URL: `${ctx.baseUrl.replace(/\/$/, '')}/v1` } : {}),
      ...(ctx.scripted ? { OPENAI_API_KEY: 'sk-scripted' } : {}),
      // the self-relaunch (bigger heap) costs 1.5-2 s per prompt
      QWEN_CODE_NO_RELAUNCH: 'true',
      QWEN_CODE_DISABLE_PRECONNECT: '1',
      QWEN_DISABLE_AUTO_TITLE: '1',
    });
    // chats are stored per working directory: resume must run from the same one
    return { args, env, cwd: ctx.fixture.project };
  },

  parse(stdout, exitCode, previous) {
    const { out, result } = readStreamJson(stdout, PREFIX);
    if (!result) {
      // max session turns ends the process with a message on stderr and no result event
      out.invalid.push(`no result event (exit ${exitCode}${exitCode === 53 ? ': max session turns hit' : ''})`);
      return out;
    }
    // running totals over the whole session, also across --resume: this turn is the difference
    const u = result.usage ?? {};
    out.cumulative = {
      input: u.input_tokens ?? 0,
      output: u.output_tokens ?? 0,
      cache_read: u.cache_read_input_tokens ?? 0,
      cache_write: 0,
      cost_usd: null,
    };
    out.usage = usageSince(out.cumulative, previous);
    // a failed model call still ends with subtype "success", exit 0, and the error as the answer
    if (result.is_error || /^\[API Error:/.test(out.finalText))
      out.invalid.push(`agent error: ${String(result.result ?? result.subtype).slice(0, 300)}`);
    if (result.subtype === 'error_max_turns') out.invalid.push('max turns hit');
    return out;
  },
};

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentEnv } from '../env.js';
import { emptyTurn, type AgentContext, type AgentAdapter } from '../types.js';
import { jsonLines } from './lines.js';

const PREFIX = 'memory_';

/** The whole config, passed inline so no user or project config file is merged in. */
function config(ctx: AgentContext): Record<string, unknown> {
  // a custom provider only when the endpoint is memeval's (or --base-url); otherwise ctx.model is "provider/model"
  const provider = ctx.baseUrl
    ? {
        enabled_providers: ['memeval'],
        provider: {
          memeval: {
            // bundled in the binary: nothing is installed for it
            npm: '@ai-sdk/openai-compatible',
            name: 'memeval',
            options: {
              baseURL: `${ctx.baseUrl.replace(/\/$/, '')}/v1`,
              apiKey: ctx.scripted ? 'sk-scripted' : '{env:OPENAI_API_KEY}',
            },
            models: { [ctx.model]: { name: ctx.model, tool_call: true, limit: { context: 200000, output: 8000 } } },
          },
        },
      }
    : {};
  const model = ctx.baseUrl ? `memeval/${ctx.model}` : ctx.model;
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model,
    // title generation and summaries go to small_model: keep them off the vendor's default
    small_model: model,
    ...provider,
    mcp: {
      memory: {
        type: 'local',
        command: [ctx.mcp.command, ...ctx.mcp.args],
        environment: ctx.mcp.env,
        enabled: true,
        timeout: ctx.mcpTimeoutMs,
      },
    },
    permission: { '*': 'allow' },
    // permission '*' approves everything: its file and shell tools are its own way to keep memory
    tools: { write: false, edit: false, patch: false, bash: false },
    // past its cap opencode forces a text-only answer and reports nothing: one step more than
    // memeval's proxy allows memory calls, so the proxy's cap is the one hit, and seen
    agent: { build: { steps: ctx.maxTurns + 1 } },
  };
}

/** opencode, headless (`opencode run --format json`), over OpenAI Chat Completions. */
export const opencode: AgentAdapter = {
  name: 'opencode',
  npm: 'opencode-ai',
  version: '1.18.33',
  bin: 'opencode',
  keyEnv: ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'OPENROUTER_API_KEY'],
  // 1.18 keeps no memory of its own between sessions
  memoryOff: { 'tools.write/edit/patch/bash': 'false' },
  // AGENTS.md and CLAUDE.md are read from every folder up to the worktree (/ outside git)
  instructionsOff: { OPENCODE_DISABLE_PROJECT_CONFIG: '1', OPENCODE_DISABLE_CLAUDE_CODE: '1' },

  async prepare(ctx) {
    // a copy for whoever inspects a kept fixture; the agent reads it from the environment
    await writeFile(join(ctx.profileDir, 'opencode.json'), JSON.stringify(config(ctx), null, 2));
  },

  invoke(ctx, prompt, conversation) {
    // --title skips the title-generation model call; opencode makes up its own session ids,
    // so a first prompt starts a new session and later ones continue the id parse() found
    const args = [
      'run',
      '--format',
      'json',
      '--title',
      'memeval',
      ...(conversation.first ? [] : ['-s', conversation.id]),
    ];
    const env = agentEnv(ctx.fixture, ctx.scripted, this.keyEnv, {
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config(ctx)),
      // the models.dev catalogue fetch at start-up
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_PROJECT_CONFIG: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      // every start npm-installs a plugin into the config dir; no switch turns that off, but a
      // closed loopback registry makes it fail quietly (MCP does not need it)
      npm_config_registry: 'http://127.0.0.1:9/',
    });
    // a positional message with spaces reaches the model wrapped in quotes: stdin passes it verbatim
    return { args, env, cwd: ctx.fixture.project, stdin: prompt };
  },

  parse(stdout, exitCode) {
    const out = emptyTurn();
    let text = '';
    let finished = false;
    for (const ev of jsonLines(stdout)) {
      if (typeof ev.sessionID === 'string') out.conversationId ??= ev.sessionID;
      const part = ev.part ?? {};
      if (ev.type === 'text') text += String(part.text ?? '');
      if (ev.type === 'tool_use') {
        // only the text after the last tool call is the answer
        text = '';
        const tool = String(part.tool ?? '');
        if (tool.startsWith(PREFIX))
          out.toolCalls.push({ tool: tool.slice(PREFIX.length), ok: part.state?.status === 'completed' });
        if (part.state?.status === 'error' && /permission|rejected|denied/i.test(String(part.state.error ?? '')))
          out.invalid.push(`tool call denied: ${tool}`);
      }
      if (ev.type === 'step_finish') {
        const t = part.tokens ?? {};
        out.usage.input += t.input ?? 0;
        out.usage.output += (t.output ?? 0) + (t.reasoning ?? 0);
        out.usage.cache_read += t.cache?.read ?? 0;
        out.usage.cache_write += t.cache?.write ?? 0;
        if (typeof part.cost === 'number') out.usage.cost_usd = (out.usage.cost_usd ?? 0) + part.cost;
        if (part.reason !== 'tool-calls') finished = true;
      }
      if (ev.type === 'error') {
        const e = ev.error ?? {};
        out.invalid.push(`agent error: ${String(e.data?.message ?? e.name ?? 'unknown').slice(0, 300)}`);
      }
    }
    out.finalText = text;
    // there is no result event: a run that ends without a final step did not finish
    if (!finished && !out.invalid.length) out.invalid.push(`no final step (exit ${exitCode})`);
    return out;
  },
};

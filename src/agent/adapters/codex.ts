import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { agentEnv } from '../env.js';
import { emptyTurn, usageSince, type AgentAdapter } from '../types.js';
import { jsonLines } from './lines.js';

/** Codex CLI, headless (`codex exec --json`), over OpenAI Responses. */
export const codex: AgentAdapter = {
  name: 'codex',
  npm: '@openai/codex',
  version: '0.169.0',
  bin: 'codex',
  keyEnv: ['OPENAI_API_KEY'],
  // off by default in this release; pinned off so a newer default cannot change the store under test
  memoryOff: { 'features.memories': 'false', sandbox_mode: 'read-only' },
  // AGENTS.md is read from the git root down to the working dir
  instructionsOff: { project_doc_max_bytes: '0' },

  async prepare(ctx) {
    const home = join(ctx.profileDir, 'codex-home');
    await mkdir(home, { recursive: true });
    const provider = ctx.scripted || ctx.baseUrl;
    const config: Record<string, unknown> = {
      // a model name Codex does not know: for known ones it hides MCP tools behind tool_search
      model: ctx.scripted ? 'gpt-scripted' : ctx.model,
      ...(provider ? { model_provider: 'memeval' } : {}),
      approval_policy: 'never',
      sandbox_mode: 'read-only',
      project_doc_max_bytes: 0,
      check_for_update_on_startup: false,
      analytics: { enabled: false },
      // these reach out to the vendor's hosts at start-up
      features: {
        plugins: false,
        apps: false,
        remote_plugin: false,
        tool_suggest: false,
        unbounded_connection_retries: false,
        memories: false,
      },
      ...(provider
        ? {
            model_providers: {
              memeval: {
                name: 'memeval',
                base_url: `${ctx.baseUrl!.replace(/\/$/, '')}/v1`,
                wire_api: 'responses',
                env_key: ctx.scripted ? 'MEMEVAL_SCRIPTED_KEY' : 'OPENAI_API_KEY',
                request_max_retries: ctx.scripted ? 0 : 2,
                stream_max_retries: ctx.scripted ? 0 : 2,
              },
            },
          }
        : {}),
      mcp_servers: {
        memory: {
          command: ctx.mcp.command,
          args: ctx.mcp.args,
          env: ctx.mcp.env,
          // a memory server that fails to start must fail the turn, not silently drop the tools
          required: true,
          startup_timeout_sec: Math.ceil(ctx.mcpTimeoutMs / 1000),
          default_tools_approval_mode: 'approve',
        },
      },
    };
    await writeFile(join(home, 'config.toml'), stringify(config));
  },

  invoke(ctx, prompt, conversation) {
    const base = ['exec', '--json', '--skip-git-repo-check', '-C', ctx.fixture.project];
    const args = conversation.first ? [...base, prompt] : [...base, 'resume', conversation.id, prompt];
    const env = agentEnv(ctx.fixture, ctx.scripted, this.keyEnv, {
      CODEX_HOME: join(ctx.profileDir, 'codex-home'),
      ...(ctx.scripted ? { MEMEVAL_SCRIPTED_KEY: 'sk-scripted' } : {}),
    });
    return { args, env, cwd: ctx.fixture.project };
  },

  parse(stdout, exitCode, previous) {
    const out = emptyTurn();
    let completed = false;
    for (const ev of jsonLines(stdout)) {
      if (ev.type === 'thread.started') out.conversationId = ev.thread_id;
      if (ev.type === 'item.completed' && ev.item?.type === 'agent_message') out.finalText = String(ev.item.text ?? '');
      if (ev.type === 'item.completed' && ev.item?.type === 'mcp_tool_call' && ev.item.server === 'memory') {
        out.toolCalls.push({ tool: String(ev.item.tool), ok: ev.item.status === 'completed' });
        if (/cancel/i.test(String(ev.item.error?.message ?? '')))
          out.invalid.push(`MCP call cancelled: ${ev.item.tool}`);
      }
      if (ev.type === 'turn.completed') {
        completed = true;
        // running totals per thread, also across resume: this turn is the difference
        const u = ev.usage ?? {};
        out.cumulative = {
          input: u.input_tokens ?? 0,
          output: u.output_tokens ?? 0,
          cache_read: u.cached_input_tokens ?? 0,
          cache_write: 0,
          cost_usd: null,
        };
        out.usage = usageSince(out.cumulative, previous);
      }
      if (ev.type === 'turn.failed') out.invalid.push(`turn failed: ${String(ev.error?.message ?? '').slice(0, 300)}`);
    }
    if (!completed && !out.invalid.length) out.invalid.push(`no turn.completed event (exit ${exitCode})`);
    return out;
  },
};

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentEnv } from '../env.js';
import type { AgentAdapter } from '../types.js';
import { readStreamJson } from './stream-json.js';

const MEMORY_OFF = { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' };
// CLAUDE.md is read from every parent folder of the working dir (the shared temp dir, /)
const INSTRUCTIONS_OFF = { CLAUDE_CODE_DISABLE_CLAUDE_MDS: '1' };

/** Claude Code, headless (`claude -p`), over Anthropic Messages. */
export const claudeCode: AgentAdapter = {
  name: 'claude-code',
  npm: '@anthropic-ai/claude-code',
  // the newest release whose engines accept Node 20
  version: '2.1.197',
  bin: 'claude',
  keyEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'],
  // and only the memory server's tools are approved (--allowedTools mcp__memory): a file write is denied
  memoryOff: { ...MEMORY_OFF, '--allowedTools': 'mcp__memory' },
  instructionsOff: INSTRUCTIONS_OFF,

  async prepare(ctx) {
    await mkdir(join(ctx.profileDir, 'claude-config'), { recursive: true });
    const config = {
      mcpServers: { memory: { type: 'stdio', command: ctx.mcp.command, args: ctx.mcp.args, env: ctx.mcp.env } },
    };
    await writeFile(join(ctx.profileDir, 'mcp.json'), JSON.stringify(config, null, 2));
  },

  invoke(ctx, prompt, conversation) {
    const args = [
      '-p',
      prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--max-turns',
      String(ctx.maxTurns),
      '--mcp-config',
      join(ctx.profileDir, 'mcp.json'),
      '--strict-mcp-config',
      // approve the memory server's tools, nothing else
      '--allowedTools',
      'mcp__memory',
      '--model',
      ctx.model,
      ...(conversation.first ? ['--session-id', conversation.id] : ['--resume', conversation.id]),
    ];
    const env = agentEnv(ctx.fixture, ctx.scripted, this.keyEnv, {
      CLAUDE_CONFIG_DIR: join(ctx.profileDir, 'claude-config'),
      ...(ctx.baseUrl ? { ANTHROPIC_BASE_URL: ctx.baseUrl } : {}),
      ...(ctx.scripted ? { ANTHROPIC_API_KEY: 'sk-ant-scripted', CLAUDE_CODE_MAX_RETRIES: '0' } : {}),
      IS_SANDBOX: '1',
      // wait for the memory server before the first model turn, or a slow start leaves it "pending"
      MCP_CONNECTION_NONBLOCKING: '0',
      // ... for up to this long (its default gives up after a few seconds: "status pending")
      MCP_TIMEOUT: String(ctx.mcpTimeoutMs),
      MCP_CONNECT_TIMEOUT_MS: String(ctx.mcpTimeoutMs),
      ...MEMORY_OFF,
      ...INSTRUCTIONS_OFF,
      // without it Claude Code also talks to its vendor's hosts directly
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    });
    // sessions are stored per working directory: resume must run from the same one
    return { args, env, cwd: ctx.fixture.project };
  },

  parse(stdout, exitCode) {
    const { out, init, result } = readStreamJson(stdout, 'mcp__memory__');
    if (init?.apiKeySource === 'none') out.invalid.push('no API key');
    if (!result) {
      out.invalid.push(`no result event (exit ${exitCode})`);
      return out;
    }
    for (const m of Object.values<Record<string, number>>(result.modelUsage ?? {})) {
      out.usage.input += m.inputTokens ?? 0;
      out.usage.output += m.outputTokens ?? 0;
      out.usage.cache_read += m.cacheReadInputTokens ?? 0;
      out.usage.cache_write += m.cacheCreationInputTokens ?? 0;
    }
    out.usage.cost_usd = typeof result.total_cost_usd === 'number' ? result.total_cost_usd : null;
    // subtype stays "success" on API failures: is_error is what tells
    if (result.is_error) out.invalid.push(`agent error: ${String(result.result ?? result.subtype).slice(0, 300)}`);
    if (result.subtype === 'error_max_turns' || result.terminal_reason === 'max_turns')
      out.invalid.push('max turns hit');
    return out;
  },
};

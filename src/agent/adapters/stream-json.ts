import { emptyTurn, type TurnParse } from '../types.js';
import { jsonLines } from './lines.js';

/**
 * Claude Code's `stream-json` output, which Qwen Code copies: an init event that says whether
 * the MCP server connected, assistant tool_use and user tool_result blocks, and one result
 * event. Returns the common part of a TurnParse and the result event for the agent to read.
 */
export function readStreamJson(
  stdout: string,
  toolPrefix: string,
): { out: TurnParse; init?: Record<string, any>; result?: Record<string, any> } {
  const out = emptyTurn();
  let result: Record<string, any> | undefined;
  let init: Record<string, any> | undefined;
  const pending = new Map<string, string>();
  for (const ev of jsonLines(stdout)) {
    if (ev.type === 'system' && ev.subtype === 'init') {
      init = ev;
      const mem = (ev.mcp_servers ?? []).find((s: { name: string }) => s.name === 'memory');
      if (!mem || mem.status !== 'connected')
        out.invalid.push(`MCP server "memory" did not load (status ${mem?.status ?? 'absent'})`);
    }
    if (ev.type === 'assistant')
      for (const b of ev.message?.content ?? [])
        if (b.type === 'tool_use' && String(b.name).startsWith(toolPrefix))
          pending.set(b.id, String(b.name).slice(toolPrefix.length));
    if (ev.type === 'user')
      for (const b of ev.message?.content ?? [])
        if (b.type === 'tool_result' && pending.has(b.tool_use_id))
          out.toolCalls.push({ tool: pending.get(b.tool_use_id)!, ok: b.is_error !== true });
    if (ev.type === 'result') result = ev;
  }
  if (result) {
    out.conversationId = result.session_id;
    out.finalText = typeof result.result === 'string' ? result.result : '';
    if (Array.isArray(result.permission_denials) && result.permission_denials.length)
      out.invalid.push(
        `tool calls denied: ${result.permission_denials.map((d: { tool_name?: string }) => d.tool_name).join(', ')}`,
      );
  }
  return { out, init, result };
}

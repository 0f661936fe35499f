// What each wire protocol adapter of the scripted model server provides.
import type { ServerResponse } from 'node:http';

/** A tool exactly as the agent offers it (e.g. `mcp__memory__create_entities`). */
export interface ToolOffer {
  name: string;
}

export interface ToolResult {
  callId: string;
  name?: string;
  text: string;
  isError: boolean;
}

export interface Conversation {
  /** Tools offered in this request. */
  tools: ToolOffer[];
  /** Tool results present in the request, in order. */
  toolResults: ToolResult[];
  /** User-message texts in order. */
  userTexts: string[];
  /** Did the client ask for streaming? */
  stream: boolean;
  model: string;
}

export type Decision =
  { kind: 'tool_call'; callId: string; name: string; args: Record<string, unknown> } | { kind: 'text'; text: string };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

export interface WireAdapter {
  protocol: 'anthropic-messages' | 'openai-responses' | 'openai-chat' | 'gemini';
  /** Does this (method, path) belong to this protocol? `path` may include a query string. */
  matches(method: string, path: string): boolean;
  parse(body: unknown, path: string): Conversation;
  /** Write the full HTTP response (status, headers, body or SSE stream) for one decision. */
  respond(res: ServerResponse, conv: Conversation, decision: Decision, usage: Usage): void;
  /** Answer side requests (model lists, token counting, ...) or return false. */
  side?(method: string, path: string, body: unknown, res: ServerResponse): boolean;
}

/**
 * A span's input or output read as chat turns: what the dashboard and the TUI show instead of
 * the JSON the instrumentation library sent. Parts are never fetched (an image is its address
 * or media type), and anything a reader does not understand stays as a `json` part.
 */

/** Which side of the call a value is: a bare string is the user's turn on input, the assistant's on output. */
export type ConversationSide = 'input' | 'output';

export type ConversationPart =
  | { kind: 'text'; text: string }
  /** An image placeholder: its URL (never a data URL's bytes) and/or media type. */
  | { kind: 'image'; url: string | null; mediaType: string | null }
  /** `arguments` as sent: often JSON text, sometimes an object. */
  | { kind: 'tool-call'; id: string | null; name: string; arguments: unknown }
  | { kind: 'tool-result'; id: string | null; name: string | null; content: unknown }
  /** A piece of a recognized message this reader has no view for (audio, reasoning, a new block type). */
  | { kind: 'json'; value: unknown };

export interface ConversationTurn {
  /** `system`, `user`, `assistant`, `tool`, or the role as sent when it is none of those. */
  role: string;
  /** The participant's name where the format carries one (OpenAI `name`, a LangChain tool's name). */
  name: string | null;
  parts: ConversationPart[];
}

export type ConversationFormatName =
  'text' | 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'otel-genai' | 'vercel-ai' | 'langchain';

export type ConversationView =
  | {
      kind: 'conversation';
      format: ConversationFormatName;
      turns: ConversationTurn[];
      /** The other fields of the request or response the messages came in (model, tools, usage), or null. */
      extra: Record<string, unknown> | null;
    }
  /** No format recognized the value: show it as JSON. */
  | { kind: 'json'; value: unknown };

/**
 * One payload format. `read` answers the turns when the whole value has this format's shape
 * and undefined otherwise; it never throws, so the dispatcher can try the formats in turn.
 */
export interface ConversationFormat {
  name: ConversationFormatName;
  read(value: unknown, side: ConversationSide): ConversationTurn[] | undefined;
}

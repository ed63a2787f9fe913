import { type Obj, at, firstAt, imageFromUrl, isObj, readAll, roleOf, stringAt, text, turn, turnsOf } from './read';
import type { ConversationFormat, ConversationPart, ConversationTurn } from './types';

/**
 * OpenAI chat completions: request `messages`, a response's `choices[].message` (also as the
 * `[{index, finish_reason, message}]` list the gen_ai.choice events make), and the flattened
 * forms OpenInference and OpenLLMetry rebuild (`contents[].message_content`,
 * `tool_calls[].tool_call`). A content block of a type OpenAI does not send rejects the
 * message, so Anthropic's and Vercel's blocks reach their own readers.
 */
function block(value: unknown): ConversationPart | undefined {
  // OpenInference flattens content arrays as `message.contents.N.message_content.*`.
  const b = isObj(value) && isObj(at(value, 'message_content')) ? (at(value, 'message_content') as Obj) : value;
  if (!isObj(b)) return undefined;
  switch (at(b, 'type')) {
    case 'text': {
      const t = stringAt(b, 'text');
      return t === undefined ? undefined : text(t);
    }
    case 'refusal': {
      const t = stringAt(b, 'refusal');
      return t === undefined ? undefined : text(t);
    }
    case 'image_url':
    case 'image': {
      const image = firstAt(b, 'image_url', 'image');
      const url = typeof image === 'string' ? image : isObj(image) ? stringAt(image, 'url') : undefined;
      return url === undefined ? undefined : imageFromUrl(url);
    }
    case 'input_audio':
    case 'file':
      return { kind: 'json', value: b };
    default:
      return undefined;
  }
}

/** `{id, type:'function', function:{name, arguments}}`, or OpenInference's `{tool_call:{…}}` around it. */
function toolCall(value: unknown): ConversationPart | undefined {
  const call = isObj(value) && isObj(at(value, 'tool_call')) ? (at(value, 'tool_call') as Obj) : value;
  if (!isObj(call)) return undefined;
  const fn = at(call, 'function');
  if (!isObj(fn)) return undefined;
  const name = stringAt(fn, 'name');
  if (name === undefined) return undefined;
  return { kind: 'tool-call', id: stringAt(call, 'id') ?? null, name, arguments: at(fn, 'arguments') ?? null };
}

function contentParts(content: unknown): ConversationPart[] | undefined {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content.length > 0 ? [text(content)] : [];
  return Array.isArray(content) ? readAll(content, block) : undefined;
}

const CONTENT_KEYS = ['content', 'contents', 'tool_calls', 'function_call', 'refusal'];

/** One message; `impliedRole` for a choice's message, which the gen_ai.choice events send without one. */
export function readOpenAiMessage(value: unknown, impliedRole?: string): ConversationTurn | undefined {
  if (!isObj(value)) return undefined;
  // A choice: `{index, finish_reason, message}`.
  if (impliedRole === undefined && !Object.hasOwn(value, 'role') && isObj(at(value, 'message')))
    return readOpenAiMessage(at(value, 'message'), 'assistant');
  const role = Object.hasOwn(value, 'role') ? roleOf(at(value, 'role')) : impliedRole;
  // Chat messages carry no `type`; Anthropic's response and Responses' items do.
  if (role === undefined || Object.hasOwn(value, 'type') || !CONTENT_KEYS.some((k) => Object.hasOwn(value, k))) return undefined;
  const content = contentParts(Object.hasOwn(value, 'contents') ? at(value, 'contents') : at(value, 'content'));
  if (content === undefined) return undefined;
  const parts: ConversationPart[] = [];
  const toolCallId = stringAt(value, 'tool_call_id');
  if (role === 'tool' || toolCallId !== undefined) {
    parts.push({
      kind: 'tool-result',
      id: toolCallId ?? null,
      name: stringAt(value, 'name') ?? null,
      content: at(value, 'content') ?? null,
    });
  } else parts.push(...content);
  const refusal = stringAt(value, 'refusal');
  if (refusal) parts.push(text(refusal));
  const calls = at(value, 'tool_calls');
  if (calls !== undefined && calls !== null) {
    const read = Array.isArray(calls) ? readAll(calls, toolCall) : undefined;
    if (!read) return undefined;
    parts.push(...read);
  }
  const legacy = at(value, 'function_call');
  if (legacy !== undefined && legacy !== null) {
    const read = toolCall({ function: legacy });
    if (!read) return undefined;
    parts.push(read);
  }
  return turn(role, parts, role === 'tool' ? null : at(value, 'name'));
}

export const openAiChat: ConversationFormat = {
  name: 'openai-chat',
  read(value) {
    const choices = isObj(value) ? at(value, 'choices') : undefined;
    return turnsOf(Array.isArray(choices) ? choices : value, (message) => readOpenAiMessage(message));
  },
};

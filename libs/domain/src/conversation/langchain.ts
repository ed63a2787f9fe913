import { type Obj, at, imageFromUrl, isObj, readAll, roleOf, stringAt, text, turn, turnsOf } from './read';
import { readOpenAiMessage } from './openai-chat';
import type { ConversationFormat, ConversationPart, ConversationTurn } from './types';

/**
 * LangChain messages: serialized `{lc:1, type:'constructor', id:[…, 'AIMessage'], kwargs}`,
 * `messages_to_dict`'s `{type:'ai', data}`, and the plain `{type:'human', content}` dicts.
 * Tool calls come from `tool_calls` (`{id, name, args}`), else from the provider's
 * `additional_kwargs.tool_calls`.
 */
const CLASS_ROLES: Record<string, string> = {
  HumanMessage: 'user',
  AIMessage: 'assistant',
  SystemMessage: 'system',
  ToolMessage: 'tool',
  FunctionMessage: 'tool',
  ChatMessage: 'chat',
};
const TYPE_ROLES: Record<string, string> = {
  human: 'user',
  ai: 'assistant',
  system: 'system',
  tool: 'tool',
  function: 'tool',
  chat: 'chat',
  developer: 'developer',
};

/** The role and the message's fields, or undefined for anything that is no LangChain message. */
function unwrap(value: Obj): { role: string; fields: Obj } | undefined {
  if (at(value, 'lc') === 1 && at(value, 'type') === 'constructor') {
    const id = at(value, 'id');
    const kwargs = at(value, 'kwargs');
    const cls = Array.isArray(id) ? id[id.length - 1] : undefined;
    if (typeof cls !== 'string' || !isObj(kwargs)) return undefined;
    const base = cls.endsWith('Chunk') ? cls.slice(0, -'Chunk'.length) : cls;
    return Object.hasOwn(CLASS_ROLES, base) ? { role: CLASS_ROLES[base], fields: kwargs } : undefined;
  }
  const type = stringAt(value, 'type');
  if (type === undefined) return undefined;
  const base = type.endsWith('Chunk') ? type.slice(0, -'Chunk'.length) : type;
  const role = Object.hasOwn(TYPE_ROLES, base) ? TYPE_ROLES[base] : Object.hasOwn(CLASS_ROLES, base) ? CLASS_ROLES[base] : undefined;
  if (role === undefined) return undefined;
  const data = at(value, 'data');
  return { role, fields: isObj(data) ? data : value };
}

/** LangChain passes provider content blocks through: text and images get a view, the rest stays JSON. */
function block(value: unknown): ConversationPart {
  if (typeof value === 'string') return text(value);
  if (isObj(value)) {
    const t = at(value, 'type') === 'text' ? stringAt(value, 'text') : undefined;
    if (t !== undefined) return text(t);
    const image = at(value, 'type') === 'image_url' ? at(value, 'image_url') : undefined;
    const url = typeof image === 'string' ? image : isObj(image) ? stringAt(image, 'url') : undefined;
    if (url !== undefined) return imageFromUrl(url);
  }
  return { kind: 'json', value };
}

function toolCall(value: unknown): ConversationPart | undefined {
  if (!isObj(value)) return undefined;
  const name = stringAt(value, 'name');
  return name === undefined
    ? undefined
    : { kind: 'tool-call', id: stringAt(value, 'id') ?? null, name, arguments: at(value, 'args') ?? null };
}

function message(value: unknown): ConversationTurn | undefined {
  if (!isObj(value)) return undefined;
  const found = unwrap(value);
  if (!found) return undefined;
  const { fields } = found;
  const role = found.role === 'chat' ? roleOf(at(fields, 'role')) : found.role;
  const content = at(fields, 'content');
  if (role === undefined || (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)))
    return undefined;
  const toolCallId = stringAt(fields, 'tool_call_id');
  if (role === 'tool')
    return turn('tool', [
      { kind: 'tool-result', id: toolCallId ?? null, name: stringAt(fields, 'name') ?? null, content: content ?? null },
    ]);
  const parts: ConversationPart[] =
    typeof content === 'string' ? (content ? [text(content)] : []) : Array.isArray(content) ? content.map(block) : [];
  const calls = at(fields, 'tool_calls');
  const extra = at(fields, 'additional_kwargs');
  if (Array.isArray(calls) && calls.length > 0) {
    const read = readAll(calls, toolCall);
    if (!read) return undefined;
    parts.push(...read);
  } else if (isObj(extra) && Array.isArray(at(extra, 'tool_calls'))) {
    // The provider's own shape (OpenAI's), read by the OpenAI reader.
    const provider = readOpenAiMessage({ role: 'assistant', tool_calls: at(extra, 'tool_calls') });
    if (!provider) return undefined;
    parts.push(...provider.parts);
  }
  return turn(role, parts, at(fields, 'name'));
}

export const langChain: ConversationFormat = {
  name: 'langchain',
  read: (value) => turnsOf(value, message),
};

import { at, imageFromUrl, isObj, roleContentMessage, stringAt, text, turnsOf } from './read';
import type { ConversationFormat, ConversationPart, ConversationTurn } from './types';

/**
 * Anthropic messages: a request's `{system, messages}` and a response `{type:'message', role,
 * content}`, content blocks text / image / tool_use / tool_result (and the server tools'
 * equivalents); thinking and documents stay JSON parts.
 */
function block(value: unknown): ConversationPart | undefined {
  if (!isObj(value)) return undefined;
  const type = at(value, 'type');
  switch (type) {
    case 'text': {
      const t = stringAt(value, 'text');
      return t === undefined ? undefined : text(t);
    }
    case 'image': {
      const source = at(value, 'source');
      if (!isObj(source)) return undefined;
      const url = stringAt(source, 'url');
      if (url !== undefined) return imageFromUrl(url);
      return { kind: 'image', url: null, mediaType: stringAt(source, 'media_type') ?? null };
    }
    case 'tool_use':
    case 'server_tool_use': {
      const name = stringAt(value, 'name');
      return name === undefined
        ? undefined
        : { kind: 'tool-call', id: stringAt(value, 'id') ?? null, name, arguments: at(value, 'input') ?? null };
    }
    case 'tool_result':
      return { kind: 'tool-result', id: stringAt(value, 'tool_use_id') ?? null, name: null, content: at(value, 'content') ?? null };
    case 'thinking':
    case 'redacted_thinking':
    case 'document':
      return { kind: 'json', value };
    default:
      // Server tools answer in `<tool>_tool_result` blocks (web_search_tool_result, …).
      return typeof type === 'string' && type.endsWith('_tool_result')
        ? { kind: 'tool-result', id: stringAt(value, 'tool_use_id') ?? null, name: null, content: at(value, 'content') ?? null }
        : undefined;
  }
}

export function readAnthropicMessage(value: unknown): ConversationTurn | undefined {
  return roleContentMessage(value, block);
}

export const anthropic: ConversationFormat = {
  name: 'anthropic',
  read: (value) => turnsOf(value, readAnthropicMessage),
};

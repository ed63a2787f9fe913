import { at, imageFromUrl, isObj, readAll, roleOf, stringAt, text, turn, turnsOf } from './read';
import type { ConversationFormat, ConversationPart, ConversationTurn } from './types';

/**
 * The OTel GenAI semantic conventions' messages (`gen_ai.input.messages`,
 * `gen_ai.output.messages`): `{role, parts:[{type, …}], finish_reason}`. The conventions allow
 * part types of a library's own, so a part of an unknown type is kept as JSON rather than
 * rejecting the message.
 */
function part(value: unknown): ConversationPart | undefined {
  if (!isObj(value)) return undefined;
  const type = at(value, 'type');
  if (typeof type !== 'string') return undefined;
  switch (type) {
    case 'text': {
      const t = stringAt(value, 'content');
      return t === undefined ? undefined : text(t);
    }
    case 'tool_call': {
      const name = stringAt(value, 'name');
      return name === undefined
        ? undefined
        : { kind: 'tool-call', id: stringAt(value, 'id') ?? null, name, arguments: at(value, 'arguments') ?? null };
    }
    case 'tool_call_response':
      return {
        kind: 'tool-result',
        id: stringAt(value, 'id') ?? null,
        name: stringAt(value, 'name') ?? null,
        content: at(value, 'response') ?? at(value, 'result') ?? null,
      };
    case 'uri': {
      const uri = stringAt(value, 'uri');
      if (uri === undefined || at(value, 'modality') !== 'image') return { kind: 'json', value };
      const image = imageFromUrl(uri);
      return { ...image, mediaType: stringAt(value, 'mime_type') ?? image.mediaType };
    }
    case 'blob':
    case 'file':
      return at(value, 'modality') === 'image'
        ? { kind: 'image', url: null, mediaType: stringAt(value, 'mime_type') ?? null }
        : { kind: 'json', value };
    default:
      return { kind: 'json', value };
  }
}

function message(value: unknown): ConversationTurn | undefined {
  if (!isObj(value)) return undefined;
  const role = roleOf(at(value, 'role'));
  const parts = at(value, 'parts');
  if (role === undefined || !Array.isArray(parts)) return undefined;
  const read = readAll(parts, part);
  return read && turn(role, read, at(value, 'name'));
}

export const genAiParts: ConversationFormat = {
  name: 'otel-genai',
  read: (value) => turnsOf(value, message),
};

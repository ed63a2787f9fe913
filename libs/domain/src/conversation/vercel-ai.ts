import { at, firstAt, imageFromUrl, isObj, readAll, roleContentMessage, stringAt, text, turn, turnsOf } from './read';
import type { ConversationFormat, ConversationPart, ConversationTurn } from './types';

/**
 * Vercel AI SDK: `ai.prompt.messages` (content parts text / image / file / reasoning /
 * tool-call / tool-result; `args` before v5, `input` and `output` since) and
 * `ai.response.toolCalls`, a list of `{toolCallId, toolName, input|args}`.
 */
function toolCall(value: unknown): ConversationPart | undefined {
  if (!isObj(value)) return undefined;
  const name = stringAt(value, 'toolName');
  if (name === undefined) return undefined;
  return { kind: 'tool-call', id: stringAt(value, 'toolCallId') ?? null, name, arguments: firstAt(value, 'input', 'args') ?? null };
}

function part(value: unknown): ConversationPart | undefined {
  if (!isObj(value)) return undefined;
  switch (at(value, 'type')) {
    case 'text': {
      const t = stringAt(value, 'text');
      return t === undefined ? undefined : text(t);
    }
    case 'image': {
      const image = at(value, 'image');
      const mediaType = stringAt(value, 'mediaType') ?? stringAt(value, 'mimeType') ?? null;
      // An image is a URL or base64 data; base64 data is never shown.
      if (typeof image === 'string' && /^(https?:|data:)/i.test(image)) {
        const fromUrl = imageFromUrl(image);
        return { ...fromUrl, mediaType: fromUrl.mediaType ?? mediaType };
      }
      return { kind: 'image', url: null, mediaType };
    }
    case 'tool-call':
      return toolCall(value);
    case 'tool-result':
      return {
        kind: 'tool-result',
        id: stringAt(value, 'toolCallId') ?? null,
        name: stringAt(value, 'toolName') ?? null,
        content: firstAt(value, 'output', 'result') ?? null,
      };
    case 'file':
    case 'reasoning':
    case 'redacted-reasoning':
      return { kind: 'json', value };
    default:
      return undefined;
  }
}

function message(value: unknown): ConversationTurn | undefined {
  return roleContentMessage(value, part);
}

export const vercelAi: ConversationFormat = {
  name: 'vercel-ai',
  read(value) {
    if (
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((v) => isObj(v) && !Object.hasOwn(v, 'role') && Object.hasOwn(v, 'toolCallId'))
    ) {
      const calls = readAll(value, toolCall);
      return calls && [turn('assistant', calls)];
    }
    return turnsOf(value, message);
  },
};

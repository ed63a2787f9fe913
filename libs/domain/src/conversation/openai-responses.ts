import { type Obj, at, firstAt, imageFromUrl, isObj, readAll, roleOf, stringAt, text, turn } from './read';
import type { ConversationFormat, ConversationPart, ConversationTurn } from './types';

/**
 * The OpenAI Responses API: a request's `{input, instructions}` and a response's `output`
 * items. Items are messages (content `input_text` / `output_text` / `input_image` …),
 * `function_call` / `function_call_output`, the built-in tools' `*_call` / `*_call_output`,
 * and reasoning (kept as JSON).
 */
function content(value: unknown): ConversationPart | undefined {
  if (!isObj(value)) return undefined;
  switch (at(value, 'type')) {
    case 'input_text':
    case 'output_text': {
      const t = stringAt(value, 'text');
      return t === undefined ? undefined : text(t);
    }
    case 'refusal': {
      const t = stringAt(value, 'refusal');
      return t === undefined ? undefined : text(t);
    }
    case 'input_image': {
      const url = stringAt(value, 'image_url');
      return url === undefined ? { kind: 'image', url: null, mediaType: null } : imageFromUrl(url);
    }
    case 'input_file':
    case 'input_audio':
      return { kind: 'json', value };
    default:
      return undefined;
  }
}

const callId = (item: Obj): string | null => stringAt(item, 'call_id') ?? stringAt(item, 'id') ?? null;

function item(value: unknown): ConversationTurn | undefined {
  if (!isObj(value)) return undefined;
  const type = at(value, 'type');
  if (type === undefined || type === 'message') {
    const role = roleOf(at(value, 'role'));
    const body = at(value, 'content');
    if (role === undefined) return undefined;
    if (typeof body === 'string') return turn(role, [text(body)]);
    const parts = Array.isArray(body) ? readAll(body, content) : undefined;
    return parts && turn(role, parts);
  }
  if (typeof type !== 'string') return undefined;
  if (type === 'reasoning') return turn('assistant', [{ kind: 'json', value }]);
  if (type.endsWith('_call_output'))
    return turn('tool', [{ kind: 'tool-result', id: callId(value), name: null, content: at(value, 'output') ?? null }]);
  if (type.endsWith('_call')) {
    const name = stringAt(value, 'name') ?? type.slice(0, -'_call'.length);
    return turn('assistant', [
      { kind: 'tool-call', id: callId(value), name, arguments: firstAt(value, 'arguments', 'input', 'action', 'query') ?? null },
    ]);
  }
  return undefined;
}

function items(value: unknown): ConversationTurn[] | undefined {
  if (typeof value === 'string') return [turn('user', [text(value)])];
  return Array.isArray(value) && value.length > 0 ? readAll(value, item) : undefined;
}

function read(value: unknown): ConversationTurn[] | undefined {
  if (Array.isArray(value)) return items(value);
  if (!isObj(value)) return undefined;
  // A response (`object: 'response'`) or the output list alone.
  if (Array.isArray(at(value, 'output')) && (at(value, 'object') === 'response' || Object.keys(value).length === 1))
    return items(at(value, 'output'));
  const input = at(value, 'input');
  // `{input: '…'}` alone is any chain's input; a Responses request says its model or instructions.
  if (input === undefined || (typeof input === 'string' && !Object.hasOwn(value, 'model') && !Object.hasOwn(value, 'instructions')))
    return undefined;
  const turns = items(input);
  const instructions = at(value, 'instructions');
  if (!turns || (instructions !== undefined && instructions !== null && typeof instructions !== 'string')) return undefined;
  return typeof instructions === 'string' ? [turn('system', [text(instructions)]), ...turns] : turns;
}

export const openAiResponses: ConversationFormat = { name: 'openai-responses', read };

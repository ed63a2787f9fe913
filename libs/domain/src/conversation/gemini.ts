import { type Obj, at, firstAt, isObj, readAll, roleOf, stringAt, text, turn } from './read';
import type { ConversationFormat, ConversationPart, ConversationSide, ConversationTurn } from './types';

/**
 * Gemini: a request's `{contents, systemInstruction}`, a response's `candidates[].content`,
 * a content `{role, parts}` alone (as Google ADK's events carry it in `content`). Parts are
 * keyed by what they hold, never by `type` (that is the GenAI conventions' shape); the
 * Python SDK spells the keys in snake_case.
 */
function part(value: unknown): ConversationPart | undefined {
  if (!isObj(value) || Object.hasOwn(value, 'type')) return undefined;
  const t = stringAt(value, 'text');
  if (t !== undefined) return text(t);
  // Inline data and files are images only when their media type says so; audio, PDFs and the rest stay JSON.
  const inline = firstAt(value, 'inlineData', 'inline_data');
  const file = firstAt(value, 'fileData', 'file_data');
  const media = isObj(inline) ? inline : isObj(file) ? file : undefined;
  if (media) {
    const mediaType = firstAt(media, 'mimeType', 'mime_type');
    const uri = firstAt(media, 'fileUri', 'file_uri');
    if (typeof mediaType !== 'string' || !mediaType.startsWith('image/')) return { kind: 'json', value };
    return { kind: 'image', url: typeof uri === 'string' ? uri : null, mediaType };
  }
  const call = firstAt(value, 'functionCall', 'function_call');
  if (isObj(call)) {
    const name = stringAt(call, 'name');
    return name === undefined
      ? undefined
      : { kind: 'tool-call', id: stringAt(call, 'id') ?? null, name, arguments: at(call, 'args') ?? null };
  }
  const response = firstAt(value, 'functionResponse', 'function_response');
  if (isObj(response))
    return {
      kind: 'tool-result',
      id: stringAt(response, 'id') ?? null,
      name: stringAt(response, 'name') ?? null,
      content: at(response, 'response') ?? null,
    };
  if (['executableCode', 'executable_code', 'codeExecutionResult', 'code_execution_result'].some((k) => Object.hasOwn(value, k)))
    return { kind: 'json', value };
  return undefined;
}

function content(value: unknown, impliedRole: string): ConversationTurn | undefined {
  if (!isObj(value)) return undefined;
  const parts = at(value, 'parts');
  if (!Array.isArray(parts)) return undefined;
  const role = Object.hasOwn(value, 'role') ? roleOf(at(value, 'role')) : impliedRole;
  const read = readAll(parts, part);
  if (role === undefined || !read) return undefined;
  return turn(role, read);
}

function contentsOf(value: Obj): ConversationTurn[] | undefined {
  const contents = at(value, 'contents');
  if (!Array.isArray(contents)) return undefined;
  const system = firstAt(value, 'systemInstruction', 'system_instruction');
  const systemTurn =
    system === undefined ? undefined : typeof system === 'string' ? turn('system', [text(system)]) : content(system, 'system');
  if (system !== undefined && systemTurn === undefined) return undefined;
  const turns = readAll(contents, (c) => content(c, 'user'));
  return turns && (systemTurn ? [{ ...systemTurn, role: 'system' }, ...turns] : turns);
}

function read(value: unknown, side: ConversationSide): ConversationTurn[] | undefined {
  const implied = side === 'input' ? 'user' : 'assistant';
  if (Array.isArray(value)) return value.length > 0 ? readAll(value, (c) => content(c, implied)) : undefined;
  if (!isObj(value)) return undefined;
  if (Object.hasOwn(value, 'contents')) return contentsOf(value);
  const candidates = at(value, 'candidates');
  if (Array.isArray(candidates))
    return candidates.length > 0 ? readAll(candidates, (c) => (isObj(c) ? content(at(c, 'content'), 'assistant') : undefined)) : undefined;
  if (isObj(at(value, 'content'))) {
    const one = content(at(value, 'content'), implied);
    return one && [one];
  }
  const one = content(value, implied);
  return one && [one];
}

export const gemini: ConversationFormat = { name: 'gemini', read };

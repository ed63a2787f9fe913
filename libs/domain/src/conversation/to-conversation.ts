import { anthropic } from './anthropic';
import { gemini } from './gemini';
import { genAiParts } from './gen-ai-parts';
import { langChain } from './langchain';
import { openAiChat } from './openai-chat';
import { openAiResponses } from './openai-responses';
import { plainText } from './plain-text';
import { at, isObj } from './read';
import type { ConversationFormat, ConversationFormatName, ConversationSide, ConversationView } from './types';
import { vercelAi } from './vercel-ai';

/**
 * The formats in the order they are tried. Each claims a value only whole, and the readers
 * whose shapes overlap are ordered so the first to claim is the one that sent it: OpenAI chat
 * rejects Anthropic's and Vercel's content blocks, the GenAI parts have a `type` that
 * Gemini's lack, and a plain `{role, content: '…'}` list reads the same in all of them.
 */
export const CONVERSATION_FORMATS: readonly ConversationFormat[] = [
  plainText,
  genAiParts,
  gemini,
  openAiChat,
  openAiResponses,
  anthropic,
  vercelAi,
  langChain,
];

/**
 * The keys that hold a request's or response's messages, with the keys read beside them: the
 * other fields of that object are not the conversation, and are kept as `extra`.
 */
const ENVELOPES: readonly (readonly [holder: string, read: readonly string[]])[] = [
  ['messages', ['messages', 'system']],
  ['contents', ['contents', 'systemInstruction', 'system_instruction']],
  ['candidates', ['candidates']],
  ['choices', ['choices']],
  ['input', ['input', 'instructions']],
  ['output', ['output', 'object']],
];

function extraOf(value: unknown, format: ConversationFormatName): Record<string, unknown> | null {
  if (!isObj(value) || format === 'text') return null;
  const envelope = ENVELOPES.find(
    ([holder]) => Array.isArray(at(value, holder)) || (holder === 'input' && typeof at(value, holder) === 'string'),
  );
  if (!envelope) return null;
  const rest = Object.entries(value).filter(([key]) => !envelope[1].includes(key));
  return rest.length > 0 ? Object.fromEntries(rest) : null;
}

/** A span's input or output as chat turns, or the value itself as JSON when no format recognizes it. Never throws. */
export function toConversation(value: unknown, side: ConversationSide): ConversationView {
  for (const format of CONVERSATION_FORMATS) {
    const turns = format.read(value, side);
    if (turns !== undefined && turns.length > 0)
      return { kind: 'conversation', format: format.name, turns, extra: extraOf(value, format.name) };
  }
  return { kind: 'json', value };
}

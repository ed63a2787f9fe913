import { anthropic } from './anthropic';
import { gemini } from './gemini';
import { genAiParts } from './gen-ai-parts';
import { langChain } from './langchain';
import { openAiChat } from './openai-chat';
import { openAiResponses } from './openai-responses';
import { plainText } from './plain-text';
import type { ConversationFormat, ConversationSide, ConversationView } from './types';
import { vercelAi } from './vercel-ai';

/**
 * The formats in the order they are tried. Each claims a value only whole, and the readers
 * whose shapes overlap are ordered so the first to claim is the one that sent it: OpenAI chat
 * rejects Anthropic's and Vercel's content blocks, the GenAI parts have a `type` that
 * Gemini's lack, and a plain `{role, content: '…'}` list reads the same in all of them.
 */
export const CONVERSATION_FORMATS: readonly ConversationFormat[] = [plainText, genAiParts, gemini, openAiChat, openAiResponses, anthropic, vercelAi, langChain];

/** A span's input or output as chat turns, or the value itself as JSON when no format recognizes it. Never throws. */
export function toConversation(value: unknown, side: ConversationSide): ConversationView {
  for (const format of CONVERSATION_FORMATS) {
    const turns = format.read(value, side);
    if (turns !== undefined && turns.length > 0) return { kind: 'conversation', format: format.name, turns };
  }
  return { kind: 'json', value };
}

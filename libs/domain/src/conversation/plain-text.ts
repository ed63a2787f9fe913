import { at, isObj, text, turn } from './read';
import type { ConversationFormat, ConversationTurn } from './types';

/**
 * A bare string (one turn: the user's on input, the assistant's on output) and the prompt
 * wrappers `{prompt}` / `{system, prompt}` (Vercel AI SDK's `ai.prompt`), only when they hold
 * nothing else, so no other field is hidden behind the conversation.
 */
export const plainText: ConversationFormat = {
  name: 'text',
  read(value, side) {
    if (typeof value === 'string') return [turn(side === 'input' ? 'user' : 'assistant', [text(value)])];
    if (!isObj(value)) return undefined;
    const prompt = at(value, 'prompt');
    const system = at(value, 'system');
    const keys = Object.keys(value);
    if (typeof prompt !== 'string' || keys.some((k) => k !== 'prompt' && k !== 'system')) return undefined;
    if (system !== undefined && typeof system !== 'string') return undefined;
    const turns: ConversationTurn[] = system === undefined ? [] : [turn('system', [text(system)])];
    return [...turns, turn('user', [text(prompt)])];
  },
};

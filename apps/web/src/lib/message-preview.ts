import { type ConversationSide, type ConversationTurn, toConversation } from '@app/domain/conversation';
import { preview } from './format';

/** The role whose words a list shows for each side: what was asked, and what was answered. */
const SPEAKER: Record<ConversationSide, string> = { input: 'user', output: 'assistant' };

const textOf = (turn: ConversationTurn) =>
  turn.parts
    .flatMap((p) => (p.kind === 'text' ? [p.text] : []))
    .join(' ')
    .trim();

/**
 * One line of a trace's input or output for a list cell: a message list's last user message
 * (input) or assistant reply (output) as text, read by the same formats the trace page shows as
 * a conversation; anything else (no such turn, no text in it, a value no format reads) as
 * `preview` writes it. Pure; never throws.
 */
export function messagePreview(value: unknown, side: ConversationSide, max = 80): string {
  if (value === null || value === undefined || typeof value === 'string') return preview(value, max);
  const view = toConversation(value, side);
  if (view.kind === 'conversation') {
    const said = view.turns
      .filter((t) => t.role === SPEAKER[side])
      .map(textOf)
      .filter(Boolean)
      .at(-1);
    if (said !== undefined) return preview(said, max);
  }
  return preview(value, max);
}

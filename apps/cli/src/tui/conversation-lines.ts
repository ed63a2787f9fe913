import { type ConversationPart, type ConversationSide, prettyJson, toConversation } from '@app/domain';
import { valueLines } from './text';

const indent = (lines: string[], by = '  ') => lines.map((line) => `${by}${line}`);

function partLines(part: ConversationPart): string[] {
  switch (part.kind) {
    case 'text':
      return valueLines(part.text);
    case 'image':
      return [`[image ${[part.mediaType, part.url].filter(Boolean).join(' ') || 'inline data'}]`];
    case 'tool-call':
      return [`→ tool call ${part.name}${part.id ? ` ${part.id}` : ''}`, ...indent(valueLines(prettyJson(part.arguments)))];
    case 'tool-result':
      return [
        `← tool result${part.name ? ` ${part.name}` : ''}${part.id ? ` ${part.id}` : ''}`,
        ...indent(valueLines(prettyJson(part.content))),
      ];
    case 'json':
      return valueLines(prettyJson(part.value));
  }
}

/**
 * A span's input or output as the dashboard reads it: each turn's role, then its text and
 * tool calls indented, then the request's other fields. Undefined for a bare string and for values no message format
 * recognizes, which the panel shows as they are.
 */
export function conversationLines(value: unknown, side: ConversationSide): string[] | undefined {
  if (typeof value === 'string') return undefined;
  const view = toConversation(value, side);
  if (view.kind === 'json') return undefined;
  const turns = view.turns.flatMap((turn) => [
    `${turn.role}${turn.name ? ` (${turn.name})` : ''}:`,
    ...indent(turn.parts.flatMap(partLines)),
  ]);
  return view.extra ? [...turns, 'other fields:', ...indent(valueLines(prettyJson(view.extra)))] : turns;
}

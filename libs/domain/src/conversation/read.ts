/**
 * Small total readers the formats share. Every lookup is of an own property, so a payload's
 * `constructor` or `__proto__` key is just data, and nothing here recurses into the payload.
 */
import type { ConversationPart, ConversationTurn } from './types';

export type Obj = Record<string, unknown>;
export type ImagePart = Extract<ConversationPart, { kind: 'image' }>;

export const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An own property, or undefined. */
export const at = (o: Obj, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

export const stringAt = (o: Obj, key: string): string | undefined => {
  const value = at(o, key);
  return typeof value === 'string' ? value : undefined;
};

/** The first of `keys` the object has (camelCase and snake_case spellings of one field). */
export const firstAt = (o: Obj, ...keys: string[]): unknown => {
  for (const key of keys) if (Object.hasOwn(o, key)) return o[key];
  return undefined;
};

/** Every item read, or undefined as soon as one cannot be: a format claims a list only whole. */
export function readAll<T>(items: readonly unknown[], read: (item: unknown) => T | undefined): T[] | undefined {
  const out: T[] = [];
  for (const item of items) {
    const value = read(item);
    if (value === undefined) return undefined;
    out.push(value);
  }
  return out;
}

const ROLE_ALIASES: Record<string, string> = { human: 'user', ai: 'assistant', model: 'assistant', bot: 'assistant', function: 'tool' };

/** A role as the views name it: LangChain's `human`/`ai` and Gemini's `model` read as user and assistant. */
export function roleOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const role = value.trim().toLowerCase();
  if (!role) return undefined;
  return Object.hasOwn(ROLE_ALIASES, role) ? ROLE_ALIASES[role] : role;
}

export const text = (value: string): ConversationPart => ({ kind: 'text', text: value });

/** An image placeholder from its address; a data URL keeps only its media type, never its bytes. */
export function imageFromUrl(url: string): ImagePart {
  const data = /^data:([^;,]*)/i.exec(url);
  if (data) return { kind: 'image', url: null, mediaType: data[1] || null };
  return { kind: 'image', url, mediaType: null };
}

export const nameOrNull = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

export const turn = (role: string, parts: ConversationPart[], name: unknown = null): ConversationTurn => ({
  role,
  name: nameOrNull(name),
  parts,
});

/**
 * The message list inside a value: an array as it is (a batch of one list, as LangChain's
 * callbacks send it, unwrapped), a request's `messages` with its `system` first, or one
 * message object alone.
 */
export function messagesOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value.length === 1 && Array.isArray(value[0]) ? value[0] : value;
  if (!isObj(value)) return undefined;
  const messages = at(value, 'messages');
  if (Array.isArray(messages)) {
    const system = at(value, 'system');
    return typeof system === 'string' || Array.isArray(system) ? [{ role: 'system', content: system }, ...messages] : messages;
  }
  return [value];
}

/** Turns from a list of messages, each read by `read`; undefined unless there is at least one and every one reads. */
export function turnsOf(value: unknown, read: (message: unknown) => ConversationTurn | undefined): ConversationTurn[] | undefined {
  const messages = messagesOf(value);
  if (!messages || messages.length === 0) return undefined;
  return readAll(messages, read);
}

/**
 * A `{role, content}` message whose content is a string or an array of blocks, each read by
 * `part` (Anthropic messages, Vercel AI SDK prompt messages); undefined when any block is not
 * one of the format's, so another format may claim the message.
 */
export function roleContentMessage(value: unknown, part: (block: unknown) => ConversationPart | undefined): ConversationTurn | undefined {
  if (!isObj(value)) return undefined;
  const role = roleOf(at(value, 'role'));
  const content = at(value, 'content');
  if (role === undefined) return undefined;
  if (typeof content === 'string') return turn(role, [text(content)]);
  if (!Array.isArray(content)) return undefined;
  const parts = readAll(content, part);
  return parts && turn(role, parts);
}

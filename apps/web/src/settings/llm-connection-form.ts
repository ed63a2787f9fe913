/** The LLM connection form's fields as `llmConnection.create|update` take them. Pure. */
import { headersFromLines } from './header-lines';

export interface LlmConnectionFormValues {
  name: string;
  baseUrl: string;
  /** Never shown back: empty on an edit keeps the stored key. */
  apiKey: string;
  /** One `Name: value` a line; values are never shown back, so empty on an edit keeps the stored ones. */
  headers: string;
}

/**
 * The fields to send. On an edit, a secret left empty is left out, so the stored one stays; on
 * a create, it is sent as typed (empty included), so the server's rule names the field.
 */
export function toLlmConnectionInput(v: LlmConnectionFormValues, { editing }: { editing: boolean }) {
  const keep = (text: string) => editing && text.trim() === '';
  return {
    name: v.name,
    baseUrl: v.baseUrl.trim(),
    ...(keep(v.apiKey) ? {} : { apiKey: v.apiKey }),
    ...(keep(v.headers) ? {} : { headers: headersFromLines(v.headers) }),
  };
}

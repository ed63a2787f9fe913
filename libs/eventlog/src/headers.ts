import { type MsgHdrs, headers as natsHeaders } from 'nats';

export function toNatsHeaders(values: Record<string, string>): MsgHdrs {
  const h = natsHeaders();
  for (const [k, v] of Object.entries(values)) h.set(k, v);
  return h;
}

export const headerReader =
  (h: MsgHdrs | undefined) =>
  (name: string): string | undefined =>
    h?.has(name) ? h.get(name) : undefined;

/** Set when a chunk's bytes live in the blob bucket instead of the message. */
export const BLOB_HEADER = 'Spanlog-Blob';
